// disassemble: the cubin for an arch out of a shared object, and its SASS. cuobjdump and
// nvdisasm come from the PyPI wheels (config::kPyDepsBinDir) first, then PATH, then the CUDA
// toolkit: the wheels' 13.x tools read nvcc 13.0 cubins, including sm_100a.
#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <map>
#include <mutex>

#include "ptxbench/config.hpp"
#include "ptxbench/sass/sass.hpp"

namespace ptxbench::sass {
namespace {

constexpr auto kToolTimeout = std::chrono::seconds(120);

util::Expected<std::filesystem::path> find_tool(const std::string& name) {
  const auto wheel = config::relocated(config::kPyDepsBinDir) / name;
  if (::access(wheel.c_str(), X_OK) == 0) return wheel;
  if (auto in_path = util::find_in_path(name)) return *in_path;
  const auto toolkit = std::filesystem::path("/usr/local/cuda/bin") / name;
  if (::access(toolkit.c_str(), X_OK) == 0) return toolkit;
  return util::make_error(fmt::format("{} not found (looked in {}, PATH, /usr/local/cuda/bin)",
                                      name, config::kPyDepsBinDir));
}

util::Expected<std::string> run_tool(util::ProcessRunner& runner, std::vector<std::string> argv,
                                     const std::filesystem::path& working_dir = {}) {
  util::ProcessSpec spec{
      .argv = std::move(argv), .timeout = kToolTimeout, .working_dir = working_dir};
  spec.output_cap_bytes = 256u << 20;  // a large kernel's disassembly; truncation is an error
  if (!working_dir.empty()) spec.write_paths = {working_dir};  // cuobjdump -xelf writes there
  auto result = runner.run(spec);
  if (!result.succeeded() || result.stdout_truncated) {
    auto reason = result.stdout_truncated ? std::string("output too large") : result.describe_end();
    return util::make_error(fmt::format("{} failed ({}): {}", spec.argv.front(), reason,
                                        result.stderr_text.substr(0, 2000)));
  }
  return std::move(result.stdout_text);
}

// "nvdisasm: Cuda compilation tools, release 13.2, V13.2.51"
std::string read_version_line(util::ProcessRunner& runner, const std::filesystem::path& tool) {
  auto text = run_tool(runner, {tool.string(), "--version"});
  if (!text) return tool.filename().string() + ": version unknown";
  std::string_view rest = *text;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const auto line = rest.substr(0, newline);
    if (line.find("release") != std::string_view::npos)
      return fmt::format("{}: {}", tool.filename().string(), line);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
  }
  return tool.filename().string() + ": version unknown";
}

// Asked once per tool and process (a tool process less per candidate); an unknown version is
// asked again.
std::string version_line(util::ProcessRunner& runner, const std::filesystem::path& tool) {
  static std::mutex mutex;
  static std::map<std::filesystem::path, std::string> known;
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(tool); it != known.end()) return it->second;
  }
  const std::string line = read_version_line(runner, tool);
  if (line.ends_with(": version unknown")) return line;
  std::lock_guard lock(mutex);
  known.try_emplace(tool, line);
  return line;
}

util::Expected<SassModule> disassemble_cubin(util::ProcessRunner& runner,
                                             const std::filesystem::path& nvdisasm,
                                             const std::filesystem::path& cubin, arch::Arch arch) {
  auto text = run_tool(runner, {nvdisasm.string(), "-c", cubin.string()});
  if (!text) return text.error();
  auto module = parse_disassembly(*text, arch);
  if (module) module->cubin = cubin;
  return module;
}

}  // namespace

util::Expected<SassModule> disassemble(util::ProcessRunner& runner,
                                       const std::filesystem::path& binary, arch::Arch arch,
                                       const std::filesystem::path& work_dir) {
  auto nvdisasm = find_tool("nvdisasm");
  if (!nvdisasm) return nvdisasm.error();
  const std::string version = version_line(runner, *nvdisasm);
  const auto absolute = std::filesystem::absolute(binary);
  if (binary.extension() == ".cubin") {
    auto module = disassemble_cubin(runner, *nvdisasm, absolute, arch);
    if (module) module->tool_version = version;
    return module;
  }

  auto cuobjdump = find_tool("cuobjdump");
  if (!cuobjdump) return cuobjdump.error();
  const auto cubin_dir = work_dir / "cubin";
  std::error_code ec;
  std::filesystem::remove_all(cubin_dir, ec);
  std::filesystem::create_directories(cubin_dir);
  auto extracted =
      run_tool(runner, {cuobjdump->string(), "-xelf", "all", absolute.string()}, cubin_dir);
  if (!extracted) return extracted.error();

  // nvcc may embed more than one cubin for the arch (one of them without kernels): disassemble
  // each and keep the one that holds the kernels.
  const std::string sm(arch::info(arch).sm);
  std::vector<std::filesystem::path> cubins;
  for (const auto& entry : std::filesystem::directory_iterator(cubin_dir)) {
    const auto name = entry.path().filename().string();
    if (name.ends_with("." + sm + ".cubin")) cubins.push_back(entry.path());
  }
  std::sort(cubins.begin(), cubins.end());
  if (cubins.empty())
    return util::make_error(fmt::format("{}: no {} cubin inside", binary.string(), sm));
  std::optional<SassModule> best;
  for (const auto& cubin : cubins) {
    auto module = disassemble_cubin(runner, *nvdisasm, cubin, arch);
    if (!module) return module.error();
    if (!best || module->kernels.size() > best->kernels.size()) best = std::move(*module);
  }
  if (best->kernels.empty()) {
    // Cubins of one arch share a file name, so extraction may have kept the empty one: read the
    // SASS of every embedded cubin of the arch straight from the binary instead.
    auto text = run_tool(runner, {cuobjdump->string(), "-sass", "-arch", sm, absolute.string()});
    if (!text) return text.error();
    auto direct = parse_disassembly(*text, arch);
    if (!direct) return direct.error();
    if (!direct->kernels.empty()) best = std::move(*direct);  // no single cubin file to name
  }
  best->tool_version = version;
  return std::move(*best);
}

}  // namespace ptxbench::sass
