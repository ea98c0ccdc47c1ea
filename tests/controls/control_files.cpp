#include "control_files.hpp"

#include <algorithm>
#include <regex>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::controls_test {

std::filesystem::path controls_dir() {
  return PTXBENCH_CONTROLS_DIR;
}

util::Expected<ControlHeader> parse_control_header(std::string_view text) {
  const std::string first_line(text.substr(0, text.find('\n')));
  static const std::regex header(
      R"(^// ptxbench-control: task=(\S+) arch=(\S+) expect=(\S+) why=(.+)$)");
  std::smatch match;
  if (!std::regex_match(first_line, match, header)) {
    return util::make_error(
        "first line is not '// ptxbench-control: task=... arch=... "
        "expect=... why=...': " +
        first_line);
  }
  const auto arch = arch::parse(match[2].str());
  if (!arch) return util::make_error("unknown arch " + match[2].str());
  ControlHeader parsed{.task = match[1].str(), .arch = *arch, .why = match[4].str()};
  const std::string expect = match[3].str();
  for (std::size_t start = 0; start <= expect.size();) {
    const std::size_t bar = std::min(expect.find('|', start), expect.size());
    const std::string verdict = expect.substr(start, bar - start);
    if (!eval::parse_verdict(verdict)) return util::make_error("unknown verdict " + verdict);
    parsed.expect.push_back(verdict);
    start = bar + 1;
  }
  return parsed;
}

util::Expected<std::vector<ControlFile>> load_controls() {
  std::vector<ControlFile> files;
  for (const auto& entry : std::filesystem::directory_iterator(controls_dir())) {
    if (entry.path().extension() != ".cu") continue;
    auto text = util::read_file(entry.path());
    if (!text) return text.error();
    auto header = parse_control_header(*text);
    if (!header) return util::make_error(entry.path().string() + ": " + header.error().message);
    files.push_back({entry.path(), std::move(*text), std::move(*header)});
  }
  std::sort(files.begin(), files.end(),
            [](const ControlFile& a, const ControlFile& b) { return a.path < b.path; });
  return files;
}

std::string honest_base_of(std::string_view text) {
  static constexpr std::string_view kBegin = "// control-base-begin";
  static constexpr std::string_view kEnd = "// control-base-end\n";
  const std::size_t begin = text.find(kBegin);
  const std::size_t end = text.find(kEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) return {};
  return std::string(text.substr(begin, end + kEnd.size() - begin));
}

}  // namespace ptxbench::controls_test
