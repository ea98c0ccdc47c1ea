#include "ptxbench/util/json_text.hpp"

#include "ptxbench/util/utf8.hpp"

namespace ptxbench::util {

using Json = nlohmann::json;

Json with_valid_text(const Json& json) {
  if (json.is_string()) return valid_utf8(json.get_ref<const std::string&>());
  if (json.is_array()) {
    Json out = Json::array();
    for (const auto& item : json) out.push_back(with_valid_text(item));
    return out;
  }
  if (!json.is_object()) return json;
  Json out = Json::object();
  for (const auto& [key, value] : json.items()) {
    const std::string name = valid_utf8(key);
    if (value.is_string() && !is_valid_utf8(value.get_ref<const std::string&>())) {
      const auto& bytes = value.get_ref<const std::string&>();
      out[name] = valid_utf8(bytes);
      out[name + std::string(kBytesSuffix)] = base64_encode(bytes);
    } else {
      out[name] = with_valid_text(value);
    }
  }
  return out;
}

void restore_bytes(Json& json) {
  if (json.is_array()) {
    for (auto& item : json) restore_bytes(item);
    return;
  }
  if (!json.is_object()) return;
  std::vector<std::string> restored;
  for (auto& [key, value] : json.items()) {
    restore_bytes(value);
    if (!key.ends_with(kBytesSuffix) || !value.is_string()) continue;
    const std::string base = key.substr(0, key.size() - kBytesSuffix.size());
    auto target = json.find(base);
    if (target == json.end() || !target->is_string()) continue;
    const auto& encoded = value.get_ref<const std::string&>();
    std::string bytes = base64_decode(encoded);
    if (bytes.empty() && !encoded.empty()) continue;  // not ours: leave the member alone
    *target = std::move(bytes);
    restored.push_back(key);
  }
  for (const auto& key : restored) json.erase(key);
}

std::string dump_json(const Json& json, int indent) {
  return with_valid_text(json).dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ptxbench::util
