// Typed reading of one mapping of a JSON or YAML file (YAML is read into JSON first) or of a
// request: each field by type and range, unknown and missing fields, and the first problem as
// "WHERE: FIELD: problem" (WHERE is e.g. "run.yaml: evaluation." or "model m: "). Duplicate keys
// never reach it: the YAML and JSON loaders refuse them (agent/config_file.hpp).
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace ptxbench::util {

// A whole number in [min, max] or the problem ("expected an integer from MIN to MAX (got V)").
// Read as 64 bits first: get<int> would wrap 4294967297 to 1.
inline std::optional<std::string> integer_problem(const nlohmann::json& value, std::int64_t min,
                                                  std::int64_t max) {
  if (value.is_number_integer() && value.get<std::int64_t>() >= min &&
      value.get<std::int64_t>() <= max)
    return std::nullopt;
  return fmt::format("expected an integer from {} to {} (got {})", min, max, value.dump());
}

class FieldReader {
 public:
  using Json = nlohmann::json;

  // `path` prefixes every field name ("evaluation." or "model m: "); the reader keeps a
  // reference to `object`.
  FieldReader(const Json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) error_ = prefix_without_dot() + "expected a mapping";
  }
  FieldReader(Json&&, std::string) = delete;  // it would keep a reference to a temporary

  bool has(std::string_view key) const {
    return object_.is_object() && object_.contains(key) && !object_[std::string(key)].is_null();
  }
  const Json& at(std::string_view key) const { return object_[std::string(key)]; }

  // A present field into `out` (left alone when absent). int: any 32-bit integer, read as 64
  // bits first (get<int> would wrap 4294967297 to 1); size_t: non-negative; double: finite.
  template <class T>
  void read(std::string_view key, T& out) {
    mark(key);
    if (!ok() || !has(key)) return;
    const Json& value = at(key);
    if constexpr (std::is_same_v<T, int>) {
      if (!value.is_number_integer() || value.get<std::int64_t>() < INT32_MIN ||
          value.get<std::int64_t>() > INT32_MAX)
        return fail(key, fmt::format("expected an integer ({})", value.dump()));
    } else if constexpr (std::is_same_v<T, std::size_t>) {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
        return fail(key, fmt::format("expected a non-negative integer ({})", value.dump()));
    } else if constexpr (std::is_same_v<T, double>) {
      if (!value.is_number() || !std::isfinite(value.get<double>()))
        return fail(key, fmt::format("expected a finite number ({})", value.dump()));
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!value.is_boolean()) return fail(key, "expected true or false");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!value.is_string()) return fail(key, "expected a string");
    }
    try {
      out = value.get<T>();
    } catch (const Json::exception&) {
      fail(key, fmt::format("wrong type ({})", value.dump()));
    }
  }
  template <class T>
  void read(std::string_view key, std::optional<T>& out) {
    T value{};
    const bool present = has(key);
    read(key, value);
    if (present && ok()) out = value;
  }
  // A whole number in [min, max] (integer_problem).
  void read_integer(std::string_view key, std::int64_t min, std::int64_t max, std::int64_t& out) {
    mark(key);
    if (!ok() || !has(key)) return;
    const Json& value = at(key);
    if (auto problem = integer_problem(value, min, max)) return fail(key, *problem);
    out = value.get<std::int64_t>();
  }
  template <class Int>
  requires std::is_integral_v<Int>
  void read_integer(std::string_view key, std::int64_t min, std::int64_t max, Int& out) {
    std::int64_t wide = static_cast<std::int64_t>(out);
    read_integer(key, min, max, wide);
    out = static_cast<Int>(wide);
  }

  // A field read by the caller itself (no unknown-field complaint for it).
  void mark(std::string_view key) { seen_.insert(std::string(key)); }
  // The first problem is kept; `key` empty: `problem` names its field itself.
  void fail(std::string_view key, std::string_view problem) {
    if (!ok()) return;
    error_ =
        key.empty() ? path_ + std::string(problem) : fmt::format("{}{}: {}", path_, key, problem);
  }
  bool ok() const { return error_.empty(); }
  // Call last: adds "FIELD: unknown field" for a member nobody read or marked; the first
  // problem, "" when none.
  const std::string& finish() {
    if (!object_.is_object()) return error_;
    for (const auto& item : object_.items()) {
      if (!seen_.contains(item.key())) fail(item.key(), "unknown field");
    }
    return error_;
  }

 private:
  // "evaluation." -> "evaluation: "; "model m: " stays.
  std::string prefix_without_dot() const {
    if (!path_.empty() && path_.back() == '.') return path_.substr(0, path_.size() - 1) + ": ";
    return path_;
  }

  const Json& object_;
  std::string path_;
  std::set<std::string> seen_;
  std::string error_;
};

}  // namespace ptxbench::util
