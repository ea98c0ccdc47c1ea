// Stage 3: one nvcc invocation with fixed flags turns a candidate .cu into the shared object
// that is inspected and run (never rebuilt). docs/result-schema.md lists the flags.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/compile/ptxas_resources.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::compile {

inline constexpr std::string_view kSourceFileName = "candidate.cu";
inline constexpr std::string_view kObjectFileName = "candidate.so";
// The Makefile rule of the headers the preprocessor opened, written by the compile itself
// (-MD -MF): the include lint reads it instead of running the preprocessor a second time.
inline constexpr std::string_view kDependencyFileName = "candidate.d";

struct CompileOptions {
  std::filesystem::path nvcc;  // from find_nvcc()
  std::chrono::seconds timeout{180};
  std::size_t log_cap_bytes = 64u << 10;  // of the log kept in the record
  // RLIMIT_AS of nvcc and the tools it starts (a ProcessSpec field, so a runner may carry it).
  std::optional<std::uint64_t> memory_limit_bytes;
  // Runs nvcc instead of the runner passed to compile_candidate: the compile sandbox
  // (sandbox::compiler_policy), which sees only the candidate folder and the toolkit.
  std::shared_ptr<util::ProcessRunner> sandbox;
  // Where finished compiles are kept and found again (compile_cache.hpp); null: none. A cached
  // compile is keyed by the code, the argv and `toolchain`, nvcc's version line.
  std::shared_ptr<class CompileCache> cache;
  std::string toolchain;
};

struct CompileOutput {
  bool succeeded = false;
  std::vector<std::string> command;  // the exact argv
  std::string log;                   // nvcc's stderr then stdout, capped
  bool log_truncated = false;
  std::string failure;  // one line when !succeeded: "exit 2", "timed out after 180 s"
  double seconds = 0;
  std::filesystem::path shared_object;
  std::vector<KernelResources> kernels;  // from ptxas -v
  bool cached = false;                   // found in CompileOptions::cache, nvcc not run
};

// nvcc from PATH, else /usr/local/cuda/bin.
util::Expected<std::filesystem::path> find_nvcc();
// "Cuda compilation tools, release 13.0, V13.0.88" (or "unknown").
std::string nvcc_version(util::ProcessRunner& runner, const std::filesystem::path& nvcc);

// The fixed command: build `source` (a file name relative to the working directory) into
// `output` for the arch, against the TVM-FFI headers and library this build found.
std::vector<std::string> nvcc_command(const std::filesystem::path& nvcc, arch::Arch arch,
                                      std::string_view source, std::string_view output);

// Writes `code` to work_dir/candidate.cu and compiles it there into candidate.so (nvcc_command
// plus -MD -MF candidate.d), or takes the same compile from options.cache. The log keeps no path
// or source line of files outside work_dir (scrub_compiler_log).
CompileOutput compile_candidate(util::ProcessRunner& runner, const CompileOptions& options,
                                arch::Arch arch, std::string_view code,
                                const std::filesystem::path& work_dir);

}  // namespace ptxbench::compile
