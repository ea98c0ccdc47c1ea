#include "ptxbench/eval/sanitize/sanitizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <thread>

#include "ptxbench/eval/kernel_name.hpp"
#include "ptxbench/eval/sanitize/report_lines.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval {
namespace {

constexpr std::string_view kPrefix = "=========";
constexpr std::size_t kMaxErrorLines = 12;

std::optional<std::int64_t> parse_count(std::string_view digits) {
  std::string plain;
  for (char c : digits) {
    if (c != ',') plain += c;
  }
  if (plain.empty() || plain.size() > 18) return std::nullopt;
  return std::stoll(plain);
}

// The line without compute-sanitizer's "========= " prefix, or nullopt for a line of the
// program's own output.
std::optional<std::string_view> tool_line(std::string_view line) {
  if (!line.starts_with(kPrefix)) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return line;
}

// Lines that say nothing about the defect: the banner, summaries, host backtraces.
bool is_noise(std::string_view line) {
  return line.empty() || line == "COMPUTE-SANITIZER" || line.starts_with("ERROR SUMMARY") ||
         line.starts_with("RACECHECK SUMMARY") || line.starts_with("Saved host backtrace") ||
         line.starts_with("Host Frame") || line.starts_with("Target application returned");
}

// What this compute-sanitizer offers, from its --help.
struct ToolFeatures {
  bool padding = false;
  bool kernel_exclude = false;
};

std::vector<std::string> tool_arguments(SanitizerTool tool, const SanitizerRequest& request,
                                        const ToolFeatures& features) {
  std::vector<std::string> args = {
      request.compute_sanitizer.string(),
      "--tool",
      std::string(to_string(tool)),
      "--error-exitcode",
      std::to_string(kSanitizerErrorExitCode),
      "--print-limit",
      "20",
      "--show-backtrace",
      "device",
  };
  if (tool == SanitizerTool::kMemcheck && features.padding && request.padding_bytes > 0) {
    args.insert(args.end(), {"--padding", std::to_string(request.padding_bytes)});
  }
  if (features.kernel_exclude && !request.harness_kernel_substring.empty()) {
    args.insert(args.end(), {"--kernel-name-exclude", "kns=" + request.harness_kernel_substring});
  }
  args.insert(args.end(), request.program_argv.begin(), request.program_argv.end());
  return args;
}

ToolFeatures tool_features(util::ProcessRunner& runner, const std::filesystem::path& tool) {
  util::ProcessSpec spec;
  spec.argv = {tool.string(), "--help"};
  spec.timeout = std::chrono::seconds(30);
  const util::ProcessResult result = runner.run(spec);
  if (!result.succeeded()) return {};
  const std::string& help = result.stdout_text;
  return ToolFeatures{.padding = help.find("--padding") != std::string::npos,
                      .kernel_exclude = help.find("--kernel-name-exclude") != std::string::npos};
}

bool inconclusive(SanitizerOutcome outcome) {
  return outcome != SanitizerOutcome::kClean && outcome != SanitizerOutcome::kErrors &&
         outcome != SanitizerOutcome::kNotApplicable;
}

}  // namespace

std::string_view to_string(SanitizerTool tool) {
  switch (tool) {
    case SanitizerTool::kMemcheck:
      return "memcheck";
    case SanitizerTool::kRacecheck:
      return "racecheck";
  }
  return "?";
}

std::string_view to_string(SanitizerOutcome outcome) {
  switch (outcome) {
    case SanitizerOutcome::kClean:
      return "clean";
    case SanitizerOutcome::kErrors:
      return "errors";
    case SanitizerOutcome::kProgramFailed:
      return "program failed";
    case SanitizerOutcome::kTimedOut:
      return "timed out";
    case SanitizerOutcome::kToolFailed:
      return "tool failed";
    case SanitizerOutcome::kSkipped:
      return "skipped";
    case SanitizerOutcome::kNotApplicable:
      return "not applicable";
    case SanitizerOutcome::kStopped:
      return "stopped";
  }
  return "?";
}

SanitizerSummary parse_sanitizer_output(std::string_view text) {
  SanitizerSummary summary;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    const auto line = tool_line(raw);
    if (!line) continue;
    // The last summary wins: the tool prints its own after the program has exited, so a
    // look-alike line printed by the program cannot replace it.
    if (auto race = racecheck_summary(*line)) {
      // Racecheck prints no ERROR SUMMARY; its own line carries errors and warnings.
      summary.errors = parse_count(race->first);
      summary.warnings = parse_count(race->second);
    } else if (auto errors = error_summary(*line)) {
      summary.errors = parse_count(*errors);
    } else if (line->starts_with("Target application returned an error")) {
      summary.program_failed = true;
    } else if (!is_noise(*line) && summary.first_errors.size() < kMaxErrorLines) {
      summary.first_errors.emplace_back(*line);
    }
  }
  return summary;
}

SanitizerOutcome judge_sanitizer_run(const util::ProcessResult& result,
                                     const SanitizerSummary& summary) {
  if (!result.started) return SanitizerOutcome::kToolFailed;
  if (result.timed_out) return SanitizerOutcome::kTimedOut;
  if (result.stopped) return SanitizerOutcome::kStopped;
  // The error exit status alone means the tool reported something, whatever the text says.
  const bool error_exit = result.term_signal == 0 && result.exit_code == kSanitizerErrorExitCode;
  if (error_exit || summary.errors.value_or(0) > 0) return SanitizerOutcome::kErrors;
  // No summary: the tool stopped early (device not supported, killed, crashed).
  if (!summary.errors) return SanitizerOutcome::kToolFailed;
  return result.succeeded() && !summary.program_failed ? SanitizerOutcome::kClean
                                                       : SanitizerOutcome::kProgramFailed;
}

std::vector<std::string> SanitizerReport::not_checked() const {
  std::vector<std::string> tools;
  for (const SanitizerRun& run : runs) {
    if (!inconclusive(run.outcome)) continue;
    tools.push_back(fmt::format("{} ({}{})", to_string(run.tool), to_string(run.outcome),
                                run.ending.empty() ? "" : ": " + run.ending));
  }
  return tools;
}

std::vector<std::string> kernels_not_from_harness(const std::vector<std::string>& kernels,
                                                  std::string_view harness_kernel_substring) {
  std::vector<std::string> charged;
  for (const auto& kernel : kernels) {
    if (harness_kernel_substring.empty() ||
        kernel.find(harness_kernel_substring) == std::string::npos)
      charged.push_back(kernel);
  }
  return charged;
}

std::string harness_kernel_substring(task::OpType op_type,
                                     const std::vector<std::string>& candidate_kernels) {
  if (op_type != task::OpType::kMhaBwd) return "";
  const std::string substring = "cudnn_generated";
  for (const auto& kernel : candidate_kernels) {
    if (kernel.find(substring) != std::string::npos) return "";
  }
  return substring;
}

bool SanitizerReport::found_errors() const {
  return std::any_of(runs.begin(), runs.end(), [](const SanitizerRun& run) {
    return run.outcome == SanitizerOutcome::kErrors;
  });
}

std::string SanitizerReport::message() const {
  std::string text;
  for (const SanitizerRun& run : runs) {
    if (!text.empty()) text += '\n';
    text += fmt::format("{}: {}", to_string(run.tool), to_string(run.outcome));
    if (run.summary.errors) text += fmt::format(" ({} errors)", *run.summary.errors);
    if (run.outcome != SanitizerOutcome::kClean) text += fmt::format(" [{}]", run.ending);
    for (const std::string& line : run.summary.first_errors) {
      if (run.outcome == SanitizerOutcome::kClean) break;
      text += "\n  " + line;
    }
  }
  return text;
}

SanitizerReport run_sanitizer(util::ProcessRunner& runner, const SanitizerRequest& request) {
  PTXBENCH_CHECK(!request.program_argv.empty(), "run_sanitizer without a program");
  SanitizerRequest resolved = request;
  SanitizerReport report;
  if (resolved.compute_sanitizer.empty()) {
    const auto found = find_compute_sanitizer();
    if (!found) {
      for (SanitizerTool tool : request.tools) {
        report.runs.push_back({.tool = tool,
                               .outcome = SanitizerOutcome::kToolFailed,
                               .ending = "compute-sanitizer not found"});
      }
      return report;
    }
    resolved.compute_sanitizer = *found;
  }
  const ToolFeatures features = tool_features(runner, resolved.compute_sanitizer);
  // The tools run at once, each on its own run of the program: together they cost the longer of
  // the two, not their sum. A tool that reports errors stops the others (the verdict is decided).
  auto found = std::make_shared<std::atomic<bool>>(false);
  auto run_tool = [&runner, &resolved, &features, found](SanitizerTool tool) {
    util::ProcessSpec spec;
    spec.argv = tool_arguments(tool, resolved, features);
    spec.stdin_text = resolved.program_stdin;
    spec.env = resolved.env;
    spec.read_paths = resolved.read_paths;
    spec.timeout =
        tool == SanitizerTool::kMemcheck ? resolved.memcheck_timeout : resolved.racecheck_timeout;
    spec.output_cap_bytes = 1u << 20;
    auto stop = std::make_shared<std::atomic<bool>>(false);
    spec.stop = stop;
    spec.hold_deadline = resolved.beside_running;
    // Stopped by the caller or by another tool's finding, whichever comes first.
    std::atomic<bool> done{false};
    std::thread watcher([&] {
      while (!done.load()) {
        if ((resolved.stop && resolved.stop->load()) || found->load()) stop->store(true);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
    const util::ProcessResult result = runner.run(spec);
    done.store(true);
    watcher.join();
    SanitizerRun run{.tool = tool};
    // The tool writes its report to stdout, interleaved with the program's own output.
    run.summary = parse_sanitizer_output(result.stdout_text + "\n" + result.stderr_text);
    run.outcome = judge_sanitizer_run(result, run.summary);
    run.ending = result.started ? result.describe_end() : result.spawn_error;
    run.seconds = std::chrono::duration<double>(result.wall).count();
    run.cost = worker::process_cost(result);
    if (run.outcome == SanitizerOutcome::kErrors) found->store(true);
    return run;
  };
  std::vector<std::future<SanitizerRun>> running;
  for (SanitizerTool tool : resolved.tools) {
    if (resolved.stop && resolved.stop->load()) {
      report.runs.push_back(
          {.tool = tool, .outcome = SanitizerOutcome::kStopped, .ending = "not run: stopped"});
      continue;
    }
    running.push_back(std::async(std::launch::async, run_tool, tool));
  }
  for (auto& run : running) report.runs.push_back(run.get());
  // A tool stopped because another found errors is not a finding of its own: it says so.
  for (auto& run : report.runs) {
    if (run.outcome == SanitizerOutcome::kStopped && report.found_errors())
      run.ending = "stopped: another tool reported errors";
  }
  for (SanitizerTool tool : resolved.not_needed) {
    report.runs.push_back({.tool = tool,
                           .outcome = SanitizerOutcome::kNotApplicable,
                           .ending = "not run: no shared-memory instruction in the candidate's "
                                     "SASS (nothing for it to race on)"});
  }
  return report;
}

bool racecheck_applies(const sass::SassModule& module) {
  static constexpr std::string_view kShared[] = {"LDS",    "STS",   "LDSM",  "STSM", "ATOMS",
                                                 "LDGSTS", "SYNCS", "UTMA",  "UBLK", "HGMMA",
                                                 "QGMMA",  "IGMMA", "BGMMA", "REDS"};
  for (const auto& kernel : module.kernels) {
    for (const auto& instruction : kernel.instructions) {
      const std::string_view base =
          std::string_view(instruction.opcode).substr(0, instruction.opcode.find('.'));
      for (auto prefix : kShared)
        if (base.starts_with(prefix)) return true;
    }
  }
  return module.kernels.empty();  // nothing disassembled: assume it may
}

std::optional<std::filesystem::path> find_compute_sanitizer() {
  if (auto found = util::find_in_path("compute-sanitizer")) return found;
  std::vector<std::filesystem::path> roots;
  if (const char* home = std::getenv("CUDA_HOME")) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    for (const auto& candidate :
         {root / "bin" / "compute-sanitizer", root / "compute-sanitizer" / "compute-sanitizer"}) {
      std::error_code error;
      if (std::filesystem::is_regular_file(candidate, error)) return candidate;
    }
  }
  return std::nullopt;
}

const task::Workload& smallest_workload(const task::Task& task) {
  PTXBENCH_CHECK(!task.workloads.empty(), "task " + task.name + " has no workloads");
  return *std::min_element(task.workloads.begin(), task.workloads.end(),
                           [&task](const task::Workload& a, const task::Workload& b) {
                             return task.flops(a) < task.flops(b);
                           });
}

std::vector<std::string> kernels_in_errors(const SanitizerReport& report) {
  std::vector<std::string> names;
  for (const auto& run : report.runs) {
    for (const std::string& line : run.summary.first_errors) {
      for (std::string_view located : located_names(line, /*device_frames=*/false)) {
        std::string name(located);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
  }
  return names;
}

namespace {
bool names_candidate_kernel(const std::string& name,
                            const std::vector<std::string>& candidate_kernels) {
  return names_one_of(KernelName(name), kernel_names(candidate_kernels));
}

// "... in candidate.cu:736" or "... in /work/dir/candidate.cu:736".
bool in_source_file(std::string_view line, std::string_view source_file) {
  const std::string needle = std::string(source_file) + ":";
  for (auto at = line.find(needle); at != std::string_view::npos; at = line.find(needle, at + 1)) {
    if (at > 0 && (line[at - 1] == ' ' || line[at - 1] == '/')) return true;
  }
  return false;
}
}  // namespace

bool errors_in_candidate_code(const SanitizerReport& report,
                              const std::vector<std::string>& candidate_kernels,
                              std::string_view source_file) {
  for (const auto& run : report.runs) {
    for (const std::string& line : run.summary.first_errors) {
      if (!source_file.empty() && in_source_file(line, source_file)) return true;
      for (std::string_view located : located_names(line, /*device_frames=*/true)) {
        if (names_candidate_kernel(std::string(located), candidate_kernels)) return true;
      }
    }
  }
  return false;
}

std::vector<std::string> foreign_kernels(const std::vector<std::string>& named,
                                         const std::vector<std::string>& candidate_kernels) {
  std::vector<std::string> foreign;
  for (const std::string& name : named) {
    if (KernelName(name).identifier().empty()) continue;
    if (!names_candidate_kernel(name, candidate_kernels)) foreign.push_back(name);
  }
  return foreign;
}

std::vector<std::string> library_kernels_in_errors(
    const SanitizerReport& report, const std::vector<std::string>& candidate_kernels,
    std::string_view source_file) {
  if (errors_in_candidate_code(report, candidate_kernels, source_file)) return {};
  return foreign_kernels(kernels_in_errors(report), candidate_kernels);
}

}  // namespace ptxbench::eval
