// Strict reading of the worker protocol's JSON (the stages' *_protocol.cpp files): a member that
// is missing or of the wrong type is a ProtocolError naming it ("candidate.median_ms: missing"),
// and parse_protocol() turns that into an Error prefixed with what was read. Both ends of the
// protocol are ptxbench's own code, so there is no silent default for a required member.
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::eval::worker {

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The member `key` of `object`; throws when `object` is no object or has no such member.
const nlohmann::json& member(const nlohmann::json& object, std::string_view key);

// A scalar is checked by util::value_problem (an int that would wrap, a negative size, a
// non-finite double); anything else by get<T>().
template <class T>
T required(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& value = member(object, key);
  if (auto problem = util::value_problem<T>(value))
    throw ProtocolError(std::string(key) + ": " + *problem);
  try {
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ProtocolError(std::string(key) + ": wrong type (" + value.type_name() + ")");
  }
}

// `fallback` when the member is absent or null; a present member of the wrong type throws.
template <class T>
T optional_or(const nlohmann::json& object, std::string_view key, T fallback) {
  if (!object.is_object()) throw ProtocolError("not an object");
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  return required<T>(object, key);
}

// Runs `read(member(object, key))`, prefixing any ProtocolError with "key.".
template <class Read>
auto read_member(const nlohmann::json& object, std::string_view key, Read&& read) {
  const nlohmann::json& value = member(object, key);
  try {
    return read(value);
  } catch (const ProtocolError& e) {
    throw ProtocolError(std::string(key) + "." + e.what());
  }
}

// Every element of the array member `key` read with `read`; errors name "key[i]".
template <class Read>
auto read_array(const nlohmann::json& object, std::string_view key, Read&& read) {
  const nlohmann::json& array = member(object, key);
  if (!array.is_array()) throw ProtocolError(std::string(key) + ": not an array");
  std::vector<decltype(read(array.front()))> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    try {
      out.push_back(read(array[i]));
    } catch (const ProtocolError& e) {
      throw ProtocolError(std::string(key) + "[" + std::to_string(i) + "]." + e.what());
    }
  }
  return out;
}

// `read()`'s value, or an Error "what: problem" for a ProtocolError or any JSON exception.
template <class Read>
auto parse_protocol(std::string_view what, Read&& read) -> util::Expected<decltype(read())> {
  try {
    return read();
  } catch (const ProtocolError& e) {
    return util::make_error(std::string(what) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    return util::make_error(std::string(what) + ": " + e.what());
  }
}

}  // namespace ptxbench::eval::worker
