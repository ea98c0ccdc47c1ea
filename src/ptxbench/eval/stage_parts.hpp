// Where a GPU stage's seconds go (docs/gpu-engine.md, "Where the time goes"): named parts summed
// over the stage's processes, and how many processes the stage started. A worker process splits
// its own time with a PartClock and reports it in its reply; the parent adds what the process
// cost outside it (start, sandbox, exit) as `process`. Parts a process running candidate code
// reports are that code's word: they explain the cost, nothing is judged from them.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ptxbench::eval {

using StageParts = std::map<std::string, double, std::less<>>;  // part -> seconds

// The parts' names: one vocabulary for the record, the report and the benchmarks.
namespace part {
inline constexpr std::string_view kProcess = "process";  // start, sandbox, exit: outside main()
inline constexpr std::string_view kContext = "context";  // CUDA context, device set-up
inline constexpr std::string_view kModuleLoad = "module_load";  // the candidate's library
inline constexpr std::string_view kInputs = "inputs";  // generation, poisoning, input hashes
inline constexpr std::string_view kCandidateCalls = "candidate_calls";      // run() and its kernels
inline constexpr std::string_view kLibraryReference = "library_reference";  // incl. its plans
inline constexpr std::string_view kPreciseReference = "precise_reference";  // fp64/fp32 reference
inline constexpr std::string_view kComparison = "comparison";  // element rule, accuracy figures
inline constexpr std::string_view kCopies = "copies";          // device <-> host, exchange files
inline constexpr std::string_view kSanitizerTool = "sanitizer_tool";  // the tools' own cost
inline constexpr std::string_view kProfiler = "profiler";  // CUPTI or ncu set-up and replay
inline constexpr std::string_view kTimedSamples = "timed_samples";  // the timing loop
inline constexpr std::string_view kGpuWait = "gpu_wait";  // waiting for the GPU (the gate)
inline constexpr std::string_view kOther = "other";       // the rest of a process's own time
}  // namespace part

// Whether `name` is one of the parts above.
bool is_part_name(std::string_view name);

void add_part(StageParts& parts, std::string_view part, double seconds);
void add_parts(StageParts& into, const StageParts& from);

nlohmann::json parts_to_json(const StageParts& parts);
// A reply's or record's parts. Untrusted: only known names with finite values from 0 to a day
// are kept.
StageParts parts_from_json(const nlohmann::json& json);

// Splits one process's time into parts: mark(p) gives p the time since the previous mark.
// Thread-safe (a watchdog may reply while the main thread marks).
class PartClock {
 public:
  PartClock();
  void mark(std::string_view part);
  // The time since the previous mark to `part`, except `other_seconds` of it (at most all of
  // it) to `other` (a copy measured by events inside a call, say).
  void mark_split(std::string_view part, std::string_view other, double other_seconds);
  StageParts parts() const;  // with `other`: the time since the last mark
  double elapsed_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  mutable std::mutex mutex_;
  Clock::time_point start_;
  Clock::time_point last_;
  StageParts parts_;
};

}  // namespace ptxbench::eval
