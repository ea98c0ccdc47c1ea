// The executed-instruction fallback: Nsight Compute counts per kernel launch. The CUPTI probe
// (dynamic_sass.hpp) sees only the first kernel function of a process; ncu replays every launch
// and counts warp-level executions per SASS opcode (with its modifiers, as nvdisasm spells them)
// by kernel name, so it measures every family of the later kernels of a multi-kernel candidate.
// Without its per-opcode counts (an ncu that does not print them) only GMMA and TMA are
// measured, from their op metrics; the other families then stay "not measured".
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/eval/proof/dynamic_sass.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

inline constexpr std::string_view kNcuGmmaMetric = "smsp__sass_inst_executed_op_shared_gmma.sum";
inline constexpr std::string_view kNcuTmaMetric = "smsp__sass_inst_executed_op_tma.sum";
inline constexpr std::string_view kNcuExecutedMetric = "smsp__sass_inst_executed.sum";
// An instanced metric: with `--print-metric-instances details` its cell reads
// "1,246,051 (SYNCS.EXCH.64: 32,768; IMAD: 98,304; ...)", the total then each opcode's count.
inline constexpr std::string_view kNcuPerOpcodeMetric =
    "sass__inst_executed_per_opcode_with_modifier_all";

// Summed over every launch of one kernel function (mangled name).
struct NcuKernelCounts {
  std::string kernel;
  int launches = 0;
  std::int64_t gmma = 0;        // warp-level executions
  std::int64_t tma = 0;         // warp-level executions
  std::int64_t executed = 0;    // all instructions, warp-level
  int unreadable_launches = 0;  // launches whose counts ncu printed as "n/a" or not at all
  // Warp-level executions per opcode, summed over the launches that printed a readable list.
  std::map<std::string, std::int64_t> per_opcode;
  int launches_without_opcodes = 0;  // readable launches whose per-opcode list was not
};

// One per-opcode cell: opcode -> count. nullopt when it is not "TOTAL (NAME: N; ...)" or when
// the instances do not add up to the total (a cut or misread list proves nothing). A total of
// zero may come without a list.
std::optional<std::map<std::string, std::int64_t>> parse_ncu_opcode_instances(
    std::string_view cell);

// `ncu --csv --page raw` output: a header row (ID, ..., Kernel Name, ..., metric names), a units
// row, then one row per launch. Lines before the header (the program's own output, ==PROF==
// lines) are skipped. Numbers may carry thousands separators. A launch with an unreadable count
// is counted in unreadable_launches, and such a kernel stays inconclusive. The per-opcode column
// is optional (per_opcode stays empty without it).
util::Expected<std::vector<NcuKernelCounts>> parse_ncu_raw_csv(std::string_view text);

struct NcuRequest {
  std::filesystem::path ncu = "ncu";      // looked up in PATH without a '/'
  std::vector<std::string> program_argv;  // the untrusted worker run the sanitizer uses
  std::optional<std::string> program_stdin;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::filesystem::path>
      read_paths;  // folders the program reads (a sandbox binds them)
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
};
// A bare name is looked up in PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin (ncu is often
// not on PATH); a path with a '/' is used as given.
std::filesystem::path resolve_ncu(const std::filesystem::path& ncu);
std::vector<std::string> ncu_arguments(const NcuRequest& request);

// What a sandbox must show ncu besides the toolkit: the toolkit's `ncu` is a launcher that looks
// for the Nsight Compute installation beside the toolkit or under /opt/nvidia (where the H200
// machine has it: "nsight-compute directory is not found ... Nsight Compute is not installed"
// inside the sandbox), and the real folder of an ncu reached through a link. Existing folders
// only.
std::vector<std::filesystem::path> ncu_installation_dirs(
    const std::filesystem::path& ncu,
    const std::vector<std::filesystem::path>& search_roots = {"/opt/nvidia"});

// One ncu process around the program. Whatever goes wrong comes back as an error.
util::Expected<std::vector<NcuKernelCounts>> run_ncu_counts(util::ProcessRunner& runner,
                                                            const NcuRequest& request,
                                                            double* seconds = nullptr);

// ncu's counts for one kernel of the candidate's module. With per-opcode counts from every
// launch, every family is measured and GMMA FLOPs come from each executed shape; otherwise GMMA
// and TMA are measured (GMMA FLOPs from the kernel's static GMMA shapes) and every other family
// is left unmeasured. A kernel ncu did not see stays inconclusive: ncu may have stopped early,
// so absence proves nothing.
KernelExecution execution_from_ncu(const std::vector<NcuKernelCounts>& counts,
                                   const sass::SassKernel& kernel, arch::Arch arch);

// Replaces every inconclusive execution by ncu's when ncu measured that kernel; runs ncu only
// when some execution is inconclusive. Kernels outside the module (cuBLAS's nvjet_*) are never
// looked up, so their counts cannot reach the candidate's families.
// `ncu_seconds` (if given) gets ncu's wall time when it ran, else stays as it is.
void fill_inconclusive_with_ncu(util::ProcessRunner& runner, const NcuRequest& request,
                                const sass::SassModule& module, arch::Arch arch,
                                std::vector<KernelExecution>& kernels,
                                double* ncu_seconds = nullptr);

}  // namespace ptxbench::eval
