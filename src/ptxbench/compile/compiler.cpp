#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/util/timestamps.hpp"

#include <fmt/format.h>

#include <csignal>

#include <unistd.h>

#include "ptxbench/compile/compile_cache.hpp"
#include "ptxbench/compile/log_scrub.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::compile {

util::Expected<std::filesystem::path> find_nvcc() {
  if (auto in_path = util::find_in_path("nvcc")) return *in_path;
  const std::filesystem::path toolkit = "/usr/local/cuda/bin/nvcc";
  if (::access(toolkit.c_str(), X_OK) == 0) return toolkit;
  return util::make_error("nvcc not found in PATH or /usr/local/cuda/bin");
}

std::string nvcc_version(util::ProcessRunner& runner, const std::filesystem::path& nvcc) {
  auto result =
      runner.run({.argv = {nvcc.string(), "--version"}, .timeout = std::chrono::seconds(30)});
  std::string_view rest = result.stdout_text;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const auto line = rest.substr(0, newline);
    if (line.find("release") != std::string_view::npos) return std::string(line);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
  }
  return "unknown";
}

namespace {

// nvcc hands -Xlinker values to a shell and splits them at spaces: a folder with a space (a
// tree copied to "/data/my builds") is quoted; one with a character a shell would still read
// ($, `, \, ") gets no run path, which costs nothing in the worker: it has loaded libtvm_ffi.so
// itself, so the candidate's dependency resolves by its soname.
std::vector<std::string> rpath_arguments(const std::string& folder) {
  if (folder.find_first_of("\"$`\\,") != std::string::npos) return {};
  if (folder.find(' ') != std::string::npos) return {"-Xlinker", "-rpath,\"" + folder + "\""};
  return {"-Xlinker", "-rpath," + folder};
}

}  // namespace

std::vector<std::string> nvcc_command(const std::filesystem::path& nvcc, arch::Arch arch,
                                      std::string_view source, std::string_view output) {
  const std::string tvm_include = config::relocated(config::kTvmFfiIncludeDir).string();
  const std::string tvm_lib = config::relocated(config::kTvmFfiLibraryDir).string();
  std::vector<std::string> command{
      nvcc.string(),
      "-std=c++17",
      "-O3",
      "-shared",
      "-Xcompiler",
      "-fPIC",
      arch::gencode_flag(arch),
      // The shared runtime: static cudart would itself import dlopen and hide the candidate's.
      "-cudart",
      "shared",
      "-lineinfo",
      "-Xptxas",
      "-v",
      "-I" + tvm_include,
      "-L" + tvm_lib,
  };
  for (auto& argument : rpath_arguments(tvm_lib)) command.push_back(std::move(argument));
  for (std::string_view argument : {"-ltvm_ffi", "-lcuda", "-o"}) command.emplace_back(argument);
  command.emplace_back(output);
  command.emplace_back(source);
  return command;
}

namespace {

// How a failed compile met its memory limit: the compiler's tools reported an allocation failure
// (kOutOfMemory), or aborted or were killed while a limit was in force, which is most often that
// limit (kLikely); kNo without a limit, after a timeout or a stop, or on a plain exit status.
enum class MemoryLimitEnd { kNo, kLikely, kOutOfMemory };

MemoryLimitEnd memory_limit_end(const util::ProcessResult& result, std::string_view log,
                                const std::optional<std::uint64_t>& limit) {
  if (!limit || *limit == 0 || result.timed_out || result.stopped) return MemoryLimitEnd::kNo;
  for (std::string_view sign : {"std::bad_alloc", "out of memory", "Out of memory",
                                "Cannot allocate memory", "Memory allocation failure"}) {
    if (log.find(sign) != std::string_view::npos) return MemoryLimitEnd::kOutOfMemory;
  }
  const bool aborted_or_killed = result.exit_code == 134 || result.term_signal == SIGABRT ||
                                 result.term_signal == SIGKILL || result.term_signal == SIGSEGV;
  return aborted_or_killed ? MemoryLimitEnd::kLikely : MemoryLimitEnd::kNo;
}

std::string gib(std::uint64_t bytes) {
  return bytes % (1ull << 30) == 0
             ? fmt::format("{} GiB", bytes >> 30)
             : fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

}  // namespace

CompileOutput compile_candidate(util::ProcessRunner& runner, const CompileOptions& options,
                                arch::Arch arch, std::string_view code,
                                const std::filesystem::path& work_dir) {
  CompileOutput out;
  std::filesystem::create_directories(work_dir);
  util::write_file_atomic(work_dir / kSourceFileName, code);
  out.command = nvcc_command(options.nvcc, arch, kSourceFileName, kObjectFileName);
  // The dependency rule comes out of the same preprocessing pass as the object.
  out.command.insert(out.command.end() - 3, {"-MD", "-MF", std::string(kDependencyFileName)});
  const CompileKey key{
      .code = std::string(code), .command = out.command, .toolchain = options.toolchain};
  if (options.cache) {
    if (auto cached = options.cache->find(key, work_dir)) return std::move(*cached);
  }
  util::ProcessSpec spec{.argv = out.command,
                         .timeout = options.timeout,
                         .working_dir = work_dir,
                         .address_space_limit_bytes = options.memory_limit_bytes,
                         .write_paths = {work_dir}};
  spec.output_cap_bytes = 4u << 20;
  std::error_code ignored;
  std::filesystem::remove(work_dir / kObjectFileName, ignored);  // never inspect a stale object
  std::filesystem::remove(work_dir / kDependencyFileName, ignored);
  const auto start = std::chrono::steady_clock::now();
  const auto result = (options.sandbox ? *options.sandbox : runner).run(spec);
  out.seconds = util::seconds_since(start);

  std::string log = result.stderr_text;
  if (!log.empty() && !result.stdout_text.empty() && log.back() != '\n') log += '\n';
  log += result.stdout_text;
  out.kernels = parse_ptxas_resources(log);
  log = scrub_compiler_log(log, work_dir);
  out.log_truncated =
      result.stderr_truncated || result.stdout_truncated || log.size() > options.log_cap_bytes;
  if (log.size() > options.log_cap_bytes) log.resize(options.log_cap_bytes);
  out.log = std::move(log);

  const auto object = work_dir / kObjectFileName;
  out.succeeded = result.succeeded() && std::filesystem::exists(object);
  const auto memory_end = out.succeeded
                              ? MemoryLimitEnd::kNo
                              : memory_limit_end(result, out.log, options.memory_limit_bytes);
  const bool out_of_memory = memory_end != MemoryLimitEnd::kNo;
  if (out.succeeded) {
    out.shared_object = object;
  } else if (result.timed_out) {
    out.failure = fmt::format("nvcc timed out after {} s", options.timeout.count());
  } else if (out_of_memory) {
    out.failure = fmt::format(
        "nvcc {}: {} the compile memory limit ({} of address space for nvcc and the tools it "
        "starts; --compile-memory, evaluation.compile_memory_gib)",
        result.describe_end(),
        memory_end == MemoryLimitEnd::kOutOfMemory ? "out of memory under"
                                                   : "an abort or kill, most often from",
        gib(*options.memory_limit_bytes));
  } else {
    out.failure = "nvcc " + result.describe_end();
  }
  // Only what the code decides is kept: a success or nvcc's own exit status, never a timeout, a
  // stop, a signal or the memory limit, which depend on the machine, the moment and the settings.
  const bool decided_by_code = result.started && !result.timed_out && !result.stopped &&
                               result.term_signal == 0 && !out_of_memory &&
                               (out.succeeded || result.exit_code != 0);
  if (options.cache && decided_by_code) options.cache->store(key, out, work_dir);
  return out;
}

}  // namespace ptxbench::compile
