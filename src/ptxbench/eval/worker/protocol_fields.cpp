#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::worker {

const nlohmann::json& member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) throw ProtocolError("not an object");
  auto it = object.find(key);
  if (it == object.end()) throw ProtocolError(std::string(key) + ": missing");
  return *it;
}

}  // namespace ptxbench::eval::worker
