#include "ptxbench/agent/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>
#include <charconv>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;

Json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  std::int64_t integer = 0;
  auto [int_end, int_error] = std::from_chars(text.data(), text.data() + text.size(), integer);
  if (int_error == std::errc() && int_end == text.data() + text.size()) return integer;
  double real = 0;
  auto [real_end, real_error] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (real_error == std::errc() && real_end == text.data() + text.size()) return real;
  return text;
}

Json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      return node.Tag() == "!" ? Json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(to_json(item));
      return array;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& item : node) object[item.first.as<std::string>()] = to_json(item.second);
      return object;
    }
  }
  return nullptr;
}

}  // namespace

util::Expected<Json> parse_yaml(std::string_view text, std::string_view source_name) {
  try {
    return to_json(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return util::make_error(fmt::format("{}: line {}: {}", source_name, e.mark.line + 1, e.msg));
  }
}

util::Expected<Json> load_yaml_file(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  return parse_yaml(*text, path.string());
}

}  // namespace ptxbench::agent
