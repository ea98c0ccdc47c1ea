// Typed reading of JSON and YAML (YAML is read into JSON first: agent/config_file.hpp): the one
// place where a value is checked by type and range before get<T>() (value_problem), where a
// JSON text is parsed with its duplicate keys found (parse_json_strict), and where a mapping is
// read field by field with unknown and missing fields reported as "WHERE: FIELD: problem"
// (FieldReader; WHERE is e.g. "run.yaml: evaluation." or "model m: "). Used by the config
// files, the task files, the service's requests and the worker protocol.
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxbench::util {

// A whole number in [min, max] or the problem ("expected an integer from MIN to MAX (got V)").
// Read as 64 bits first: get<int> would wrap 4294967297 to 1, and an unsigned value above
// INT64_MAX is compared as unsigned, never wrapped to a negative one.
template <class Json>
std::optional<std::string> integer_problem(const Json& value, std::int64_t min, std::int64_t max) {
  const bool in_range =
      value.is_number_unsigned()
          ? max >= 0 && value.template get<std::uint64_t>() <= static_cast<std::uint64_t>(max) &&
                (min <= 0 || value.template get<std::uint64_t>() >= static_cast<std::uint64_t>(min))
          : value.is_number_integer() && value.template get<std::int64_t>() >= min &&
                value.template get<std::int64_t>() <= max;
  if (in_range) return std::nullopt;
  return fmt::format("expected an integer from {} to {} (got {})", min, max, value.dump());
}

// Whether `value` can be read as a T without losing anything, or the problem. Scalars only
// (bool, integers, floating point, strings); any other T is left to get<T>().
template <class T, class Json>
std::optional<std::string> value_problem(const Json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) return "expected true or false";
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return integer_problem(value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  } else if constexpr (std::is_integral_v<T>) {
    // A non-negative value may be stored signed (a JSON value built from an int).
    constexpr std::uint64_t kMax = std::numeric_limits<T>::max();
    const bool fits =
        value.is_number_unsigned()
            ? value.template get<std::uint64_t>() <= kMax
            : value.is_number_integer() && value.template get<std::int64_t>() >= 0 &&
                  static_cast<std::uint64_t>(value.template get<std::int64_t>()) <= kMax;
    if (!fits) return fmt::format("expected a non-negative integer (got {})", value.dump());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number() || !std::isfinite(value.template get<double>()))
      return fmt::format("expected a finite number (got {})", value.dump());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) return "expected a string";
  }
  return std::nullopt;
}

// A JSON text parsed with every key that appears twice in one object reported: JSON keeps only
// one of the values, which hides a mistake (two inputs named "A"). `duplicates` gets
// (path of the object, key), the path "" for the top level; arrays do not appear in the path.
// Throws nlohmann's parse_error as Json::parse does.
template <class Json = nlohmann::json>
Json parse_json_strict(std::string_view text,
                       std::vector<std::pair<std::string, std::string>>& duplicates) {
  std::vector<std::set<std::string>> seen;
  std::vector<std::string> keys;
  auto callback = [&](int /*depth*/, nlohmann::detail::parse_event_t event, Json& parsed) {
    using Event = nlohmann::detail::parse_event_t;
    if (event == Event::object_start) {
      seen.emplace_back();
      keys.emplace_back();
    } else if (event == Event::object_end && !seen.empty()) {
      seen.pop_back();
      keys.pop_back();
    } else if (event == Event::key && !seen.empty() && parsed.is_string()) {
      auto key = parsed.template get<std::string>();
      if (!seen.back().insert(key).second) {
        const std::vector<std::string> path(keys.begin(), keys.end() - 1);
        duplicates.emplace_back(fmt::format("{}", fmt::join(path, ".")), key);
      }
      keys.back() = std::move(key);
    }
    return true;
  };
  return Json::parse(text, callback);
}

template <class Json>
class BasicFieldReader {
 public:
  // `path` prefixes every field name ("evaluation." or "model m: "); the reader keeps a
  // reference to `object`.
  BasicFieldReader(const Json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) error_ = prefix_without_dot() + "expected a mapping";
  }
  BasicFieldReader(Json&&, std::string) = delete;  // it would keep a reference to a temporary

  bool has(std::string_view key) const {
    return object_.is_object() && object_.contains(key) && !object_[std::string(key)].is_null();
  }
  const Json& at(std::string_view key) const { return object_[std::string(key)]; }

  // A present field into `out` (left alone when absent), checked by value_problem.
  template <class T>
  void read(std::string_view key, T& out) {
    mark(key);
    if (!ok() || !has(key)) return;
    const Json& value = at(key);
    if (auto problem = value_problem<T>(value)) return fail(key, *problem);
    try {
      out = value.template get<T>();
    } catch (const typename Json::exception&) {
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
  // A field that must be there.
  template <class T>
  void require(std::string_view key, T& out) {
    mark(key);
    if (ok() && !has(key)) return fail(key, "required");
    read(key, out);
  }
  // A whole number in [min, max] (integer_problem).
  void read_integer(std::string_view key, std::int64_t min, std::int64_t max, std::int64_t& out) {
    mark(key);
    if (!ok() || !has(key)) return;
    const Json& value = at(key);
    if (auto problem = integer_problem(value, min, max)) return fail(key, *problem);
    out = value.template get<std::int64_t>();
  }
  template <class Int>
  requires std::is_integral_v<Int>
  void read_integer(std::string_view key, std::int64_t min, std::int64_t max, Int& out) {
    std::int64_t wide = static_cast<std::int64_t>(out);
    read_integer(key, min, max, wide);
    out = static_cast<Int>(wide);
  }
  template <class Int>
  requires std::is_integral_v<Int>
  void read_integer(std::string_view key, std::int64_t min, std::int64_t max,
                    std::optional<Int>& out) {
    Int value{};
    const bool present = has(key);
    read_integer(key, min, max, value);
    if (present && ok()) out = value;
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

using FieldReader = BasicFieldReader<nlohmann::json>;

}  // namespace ptxbench::util
