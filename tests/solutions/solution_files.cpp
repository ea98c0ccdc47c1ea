#include "solution_files.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::solutions_test {

std::filesystem::path repo_root() {
  // PTXBENCH_TEST_DATA_DIR is <root>/tests/solutions/data.
  return std::filesystem::path(PTXBENCH_TEST_DATA_DIR).parent_path().parent_path().parent_path();
}

std::filesystem::path ptx_dir() {
  return repo_root() / "solutions" / "ptx";
}

util::Expected<SolutionHeader> parse_header(std::string_view text) {
  const std::string first_line(text.substr(0, text.find('\n')));
  static const std::regex kHeader(R"(^// ptxbench: task=(\S+) arch=(\S+) expect=(\S+)$)");
  std::smatch match;
  if (!std::regex_match(first_line, match, kHeader)) {
    return util::make_error("first line is not '// ptxbench: task=... arch=... expect=...': " +
                            first_line);
  }
  const auto arch = arch::parse(match[2].str());
  if (!arch) return util::make_error("unknown arch " + match[2].str());
  if (!eval::parse_verdict(match[3].str())) {
    return util::make_error("unknown verdict " + match[3].str());
  }
  return SolutionHeader{.task = match[1].str(), .arch = *arch, .expect = match[3].str()};
}

util::Expected<std::vector<SolutionFile>> load_solutions() {
  std::vector<SolutionFile> files;
  for (const char* folder : {"hopper", "blackwell", "simple", "broken"}) {
    const auto dir = repo_root() / "solutions" / folder;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".cu") continue;
      auto text = util::read_file(entry.path());
      if (!text) return text.error();
      auto header = parse_header(*text);
      if (!header) return util::make_error(entry.path().string() + ": " + header.error().message);
      files.push_back({entry.path(), std::move(*text), *header});
    }
  }
  std::sort(files.begin(), files.end(),
            [](const SolutionFile& a, const SolutionFile& b) { return a.path < b.path; });
  return files;
}

util::Expected<std::vector<EmbeddedBlock>> embedded_blocks(std::string_view text) {
  static constexpr std::string_view kBegin = "// ptx-begin: ";
  static constexpr std::string_view kEnd = "// ptx-end: ";
  std::vector<EmbeddedBlock> blocks;
  std::optional<EmbeddedBlock> open;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.rfind(kBegin, 0) == 0) {
      if (open) {
        return util::make_error("line " + std::to_string(number) + ": block " + open->family +
                                " is still open");
      }
      open = EmbeddedBlock{line.substr(kBegin.size()), "", number};
    }
    if (open) open->text += line + "\n";
    if (line.rfind(kEnd, 0) == 0) {
      if (!open || line.substr(kEnd.size()) != open->family) {
        return util::make_error("line " + std::to_string(number) + ": unmatched " + line);
      }
      blocks.push_back(std::move(*open));
      open.reset();
    }
  }
  if (open) return util::make_error("block " + open->family + " is never closed");
  return blocks;
}

std::filesystem::path block_source(const std::string& name) {
  const auto wrapper = ptx_dir() / (name + ".cuh");
  const auto kernel = repo_root() / "solutions" / "kernels" / (name + ".cuh");
  return std::filesystem::exists(wrapper) || !std::filesystem::exists(kernel) ? wrapper : kernel;
}

std::string compare_with_source(const EmbeddedBlock& block) {
  const auto path = block_source(block.family);
  if (std::filesystem::exists(path) && path.parent_path().filename() == "ptx" &&
      std::filesystem::exists(repo_root() / "solutions" / "kernels" / (block.family + ".cuh"))) {
    return "block " + block.family + " has a source in both solutions/ptx and solutions/kernels";
  }
  auto source = util::read_file(path);
  if (!source) return "no source file for block " + block.family + " (" + path.string() + ")";
  auto source_blocks = embedded_blocks(*source);
  if (!source_blocks) return path.string() + ": " + source_blocks.error().message;
  for (const auto& candidate : *source_blocks) {
    if (candidate.family != block.family) continue;
    if (candidate.text == block.text) return "";
    // Name the first line that differs.
    std::istringstream want(candidate.text), got(block.text);
    std::string want_line, got_line;
    for (int offset = 0;; ++offset) {
      const bool more_want = static_cast<bool>(std::getline(want, want_line));
      const bool more_got = static_cast<bool>(std::getline(got, got_line));
      if (!more_want && !more_got) break;
      if (more_want != more_got || want_line != got_line) {
        return "differs from " + path.string() + " at block line " + std::to_string(offset + 1) +
               ": want '" + (more_want ? want_line : "<end>") + "', got '" +
               (more_got ? got_line : "<end>") + "'";
      }
    }
    return "differs from " + path.string();
  }
  return path.string() + " has no block " + block.family;
}

namespace {
std::vector<std::string> code_lines(std::string_view text) {
  const auto start = text.find("#include <cuda.h>");
  std::istringstream lines{std::string(text.substr(start == std::string_view::npos ? 0 : start))};
  std::vector<std::string> out;
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  return out;
}
}  // namespace

int changed_code_lines(std::string_view from, std::string_view to) {
  const auto a = code_lines(from);
  const auto b = code_lines(to);
  std::vector<int> previous(b.size() + 1, 0), current(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      current[j] =
          a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    }
    std::swap(previous, current);
  }
  const int common = previous[b.size()];
  return static_cast<int>(a.size() + b.size()) - 2 * common;
}

}  // namespace ptxbench::solutions_test
