// Lenient reads of fields from JSON a service sent: a missing or mistyped field is "absent",
// never an exception.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ptxbench::model {

inline std::optional<std::int64_t> int_field(const nlohmann::json& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_number_integer()) {
    return object[key].get<std::int64_t>();
  }
  return std::nullopt;
}

inline std::string string_field(const nlohmann::json& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_string()) {
    return object[key].get<std::string>();
  }
  return "";
}

}  // namespace ptxbench::model
