#include "ptxbench/agent/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>
#include <charconv>
#include <stdexcept>

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

// Aliases let a few lines of YAML describe a tree of billions of nodes ("alias bomb"); the
// expansion is counted and refused beyond these bounds.
constexpr std::size_t kMaxConfigNodes = 100000;
constexpr int kMaxConfigDepth = 64;

struct ExpansionBudget {
  std::size_t nodes_left = kMaxConfigNodes;
};

// Throws std::runtime_error with the problem (no YAML mark survives an alias expansion).
Json to_json(const YAML::Node& node, ExpansionBudget& budget, int depth) {
  if (budget.nodes_left-- == 0) {
    throw std::runtime_error(fmt::format(
        "more than {} values after expanding aliases (an alias bomb?)", kMaxConfigNodes));
  }
  if (depth > kMaxConfigDepth)
    throw std::runtime_error(fmt::format("nested deeper than {} levels", kMaxConfigDepth));
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      return node.Tag() == "!" ? Json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(to_json(item, budget, depth + 1));
      return array;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& item : node) {
        if (!item.first.IsScalar()) {
          throw std::runtime_error(
              fmt::format("line {}: a key must be a plain value", item.first.Mark().line + 1));
        }
        const std::string key = item.first.Scalar();
        if (object.contains(key)) {
          throw std::runtime_error(
              fmt::format("line {}: {}: duplicate key", item.first.Mark().line + 1, key));
        }
        object[key] = to_json(item.second, budget, depth + 1);
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace

util::Expected<Json> parse_yaml(std::string_view text, std::string_view source_name) {
  try {
    ExpansionBudget budget;
    return to_json(YAML::Load(std::string(text)), budget, 0);
  } catch (const YAML::Exception& e) {
    return util::make_error(fmt::format("{}: line {}: {}", source_name, e.mark.line + 1, e.msg));
  } catch (const std::runtime_error& e) {
    return util::make_error(fmt::format("{}: {}", source_name, e.what()));
  }
}

util::Expected<Json> load_yaml_file(const std::filesystem::path& path) {
  auto text = util::read_file(path, util::kMaxConfigFileBytes);
  if (!text) return text.error();
  return parse_yaml(*text, path.string());
}

}  // namespace ptxbench::agent
