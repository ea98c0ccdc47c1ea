// Reads a YAML (or JSON, a subset of YAML) configuration file into JSON, so one set of field
// readers serves both. Plain scalars become booleans, numbers or null where they read as such;
// quoted scalars stay strings. A duplicate key, more than 100000 values after alias expansion
// or nesting deeper than 64 levels is an error naming the file.
#pragma once
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::agent {

util::Expected<nlohmann::json> parse_yaml(std::string_view text, std::string_view source_name);
util::Expected<nlohmann::json> load_yaml_file(const std::filesystem::path& path);

}  // namespace ptxbench::agent
