#include "ptxbench/util/generated_text.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace ptxbench::util {
namespace {

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// The JSON escape of a control character ("\n", "\u001b").
std::string escaped(char c) {
  const auto json = nlohmann::json(std::string(1, c)).dump();
  return json.substr(1, json.size() - 2);
}

}  // namespace

Expected<std::string> one_line(std::string_view what, std::string_view value,
                               std::string_view where) {
  for (char c : value) {
    if (is_control(c))
      return make_error(
          fmt::format("{}: {} holds a control character, which {} cannot hold", what,
                      nlohmann::json(std::string(value))
                          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                      where));
  }
  return std::string(value);
}

std::string yaml_quoted(std::string_view value) {
  YAML::Emitter out;
  out << YAML::DoubleQuoted << std::string(value);
  return out.c_str();
}

std::string markdown_inline(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (is_control(c)) {
      out += escaped(c);
    } else if (c == '|') {
      out += "\\|";
    } else if (c == '<') {  // Markdown renderers pass HTML through: names stay text
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string shell_quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace ptxbench::util
