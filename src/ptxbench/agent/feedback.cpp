#include "ptxbench/agent/feedback.hpp"

#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/prompt/task_prompt.hpp"
#include "ptxbench/util/utf8.hpp"

namespace ptxbench::agent {
namespace {

using eval::Evaluation;
using eval::StageStatus;
using eval::Verdict;

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

bool contains_word(std::string_view line, std::string_view word) {
  return line.find(word) != std::string_view::npos;
}

std::string stages_line(const Evaluation& evaluation) {
  std::string line;
  for (const auto& stage : evaluation.stages) {
    if (!line.empty()) line += ", ";
    line += fmt::format("{} {}", eval::to_string(stage.stage), eval::to_string(stage.status));
  }
  return line;
}

void render_compiler(const Evaluation& evaluation, const FeedbackOptions& options,
                     std::string& out) {
  const std::string& log = evaluation.compile.log;
  if (log.empty()) return;
  if (evaluation.verdict == Verdict::kCompileError) {
    out += "\n### Compiler output\n\n```text\n";
    out += trim_log(log, options.compiler_log_lines, options.compiler_log_bytes,
                    options.compiler_line_bytes);
    out += "```\n";
    return;
  }
  // A file that compiled: only its warnings matter here; resources are listed per kernel.
  std::string warnings;
  for (const auto& line : split_lines(log)) {
    if (contains_word(line, "warning")) warnings += line + "\n";
  }
  if (warnings.empty()) return;
  out += "\n### Compiler warnings\n\n```text\n";
  out += trim_log(warnings, options.warning_lines, options.compiler_log_bytes,
                  options.compiler_line_bytes);
  out += "```\n";
}

void render_kernels(const Evaluation& evaluation, std::string& out) {
  if (evaluation.kernels.empty()) return;
  out += "\n### Kernels (ptxas)\n\n";
  for (const auto& kernel : evaluation.kernels) {
    const std::string& name = kernel.display_name.empty() ? kernel.name : kernel.display_name;
    out += fmt::format("- {}: {} registers, {} B static shared memory", name, kernel.registers,
                       kernel.shared_bytes);
    if (kernel.spill_store_bytes > 0 || kernel.spill_load_bytes > 0) {
      out += fmt::format(", spills: {} B stored, {} B loaded", kernel.spill_store_bytes,
                         kernel.spill_load_bytes);
    }
    if (const auto& l = kernel.launched) {
      out += fmt::format(
          "; as launched: {} registers, {} B dynamic shared memory, grid {}x{}x{}, block {}x{}x{}",
          l->registers_per_thread, l->dynamic_shared_bytes, l->grid[0], l->grid[1], l->grid[2],
          l->block[0], l->block[1], l->block[2]);
    }
    for (const auto& [family, count] : kernel.executed_families) {
      out += fmt::format("; executed {} x{}", family, count);
      if (auto share = kernel.executed_flop_share.find(family);
          share != kernel.executed_flop_share.end())
        out += fmt::format(" ({:.1f}% of the task's FLOPs)", share->second * 100);
    }
    out += "\n";
  }
}

std::string family_line(const eval::FamilyEvidence& family) {
  std::string line = fmt::format("- {}: ", prompt::describe_family(family.family));
  if (family.static_count == 0) {
    line += "NOT in the SASS";
  } else {
    line += fmt::format("in the SASS ({} instructions)", family.static_count);
  }
  if (!family.executed_count) {
    line += "; execution not measured";
  } else if (*family.executed_count == 0) {
    line += "; did NOT execute";
  } else {
    line += fmt::format("; executed {} times", *family.executed_count);
    if (family.flop_share)
      line += fmt::format(", {:.1f}% of the task's FLOPs", *family.flop_share * 100);
    line += family.substantial ? " (substantial)" : " (NOT substantial: it must carry the work)";
  }
  return line + "\n";
}

void render_families(const Evaluation& evaluation, std::string& out) {
  std::string lines;
  for (const auto& family : evaluation.families) {
    if (family.requested) lines += family_line(family);
  }
  if (lines.empty()) return;
  out += "\n### Requested instructions\n\n" + lines;
}

// Both correctness rules (docs/correctness.md) and which one decided, where the judge measured
// against the high-precision reference.
std::string correctness_rules_line(const eval::OutputCheck& check) {
  if (!check.accuracy) {
    if (check.accuracy_unavailable.empty()) return "";
    return "    - as accurate as the library: not measured (" + check.accuracy_unavailable + ")\n";
  }
  const auto& figures = *check.accuracy;
  std::string line = fmt::format(
      "    - decided by the rule \"{}\": matches the library (the errors above, against the "
      "library's output): {}; as accurate as the library: {} ({})",
      task::to_string(check.rule), check.matches_library ? "yes" : "no",
      figures.passed ? "yes" : "no", eval::correctness::accuracy_summary(figures));
  if (!figures.passed) line += "; " + eval::correctness::accuracy_failure(figures);
  return line + "\n";
}

void render_output_checks(const eval::WorkloadResult& workload, std::string& out) {
  for (const auto& check : workload.outputs) {
    // A passed output is worth a line only where the two rules disagree.
    const bool rules_disagree = check.accuracy && check.accuracy->passed != check.matches_library;
    if (check.passed && !rules_disagree) continue;
    out += fmt::format(
        "  - output {}: max abs error {:.3g}, max rel error {:.3g}, {:.2f}% of "
        "elements within tolerance",
        check.name, check.max_abs_error, check.max_rel_error, check.matched_ratio * 100);
    if (check.first_bad_index >= 0)
      out += fmt::format(", first bad element at flat index {}", check.first_bad_index);
    if (check.nan_count > 0) out += fmt::format(", {} NaN", check.nan_count);
    if (check.inf_count > 0) out += fmt::format(", {} Inf", check.inf_count);
    out += "\n" + correctness_rules_line(check);
  }
}

void render_workloads(const Evaluation& evaluation, std::string& out) {
  if (evaluation.workloads.empty() || evaluation.verdict == Verdict::kNotRun) return;
  out += "\n### Workloads\n\n";
  int hidden = 0, hidden_failed = 0;
  for (const auto& workload : evaluation.workloads) {
    // Unseen workloads are counted, never named: their sizes stay hidden.
    if (workload.unseen) {
      ++hidden;
      hidden_failed += workload.status == Verdict::kPassed ? 0 : 1;
      continue;
    }
    out +=
        fmt::format("- {}{}: {}", workload.workload, workload.headline ? " (headline, timed)" : "",
                    eval::to_string(workload.status));
    if (!workload.message.empty()) out += " - " + workload.message;
    if (workload.candidate) {
      out += fmt::format("; kernel {:.4f} ms", workload.candidate->median_ms);
      if (workload.baseline)
        out += fmt::format(", baseline {:.4f} ms", workload.baseline->median_ms);
      if (workload.speedup) out += fmt::format(", speedup {:.2f}x", *workload.speedup);
      if (workload.tflops) out += fmt::format(", {:.1f} TFLOP/s", *workload.tflops);
      if (const auto& sol = workload.speed_of_light) {
        out += fmt::format(", {:.0f}% of the speed of light ({:.4f} ms bound)", sol->fraction * 100,
                           sol->bound_ms);
      }
    }
    out += "\n";
    render_output_checks(workload, out);
  }
  if (hidden > 0)
    out += fmt::format("- hidden workloads (sizes the task does not list): {} of {} correct{}\n",
                       hidden - hidden_failed, hidden,
                       hidden_failed == 0 ? "" : "; handle every size, not only the listed ones");
}

void render_not_run(const Evaluation& evaluation, std::string& out) {
  std::string stages, reasons;
  for (const auto& stage : evaluation.stages) {
    if (stage.status != StageStatus::kNotRun) continue;
    if (!stages.empty()) stages += ", ";
    stages += eval::to_string(stage.stage);
    if (reasons.empty() && !stage.message.empty()) reasons = stage.message;
  }
  if (stages.empty()) return;
  out += fmt::format("\n### Not run\n\nThese GPU stages were NOT run: {}{}. ", stages,
                     reasons.empty() ? "" : " (" + reasons + ")");
  out +=
      "Whether the kernel is correct, which instructions execute and how fast it is are "
      "unknown; only compilation and the static SASS check are evidence.\n";
}

void render_not_checked(const Evaluation& evaluation, std::string& out) {
  std::string lines;
  for (const auto& stage : evaluation.stages) {
    if (stage.status != StageStatus::kNotChecked) continue;
    lines += fmt::format("- {}: {}\n", eval::to_string(stage.stage),
                         stage.message.substr(0, stage.message.find('\n')));
  }
  if (lines.empty()) return;
  out += "\n### Not checked\n\nThese checks did not finish, so they neither passed nor failed:\n" +
         lines;
}

std::string requested_missing(const Evaluation& evaluation) {
  std::string names;
  for (const auto& family : evaluation.families) {
    if (!family.requested || family.substantial) continue;
    if (!names.empty()) names += ", ";
    names += family.family;
  }
  return names;
}

std::string next_step(const Evaluation& evaluation, const FeedbackOptions& options) {
  switch (evaluation.verdict) {
    case Verdict::kNoCode:
      return "Your reply had no fenced code block. Reply with the whole .cu file in one ```cuda "
             "block.";
    case Verdict::kForbidden:
      return "Remove the library use and write the computation yourself, then reply with the "
             "whole file.";
    case Verdict::kCompileError:
      return "Fix the compile errors above and reply with the whole corrected file.";
    case Verdict::kInstructionsAbsent: {
      if (evaluation.kernels.empty())
        return "Your file has no __global__ kernel: run() must launch CUDA kernels that do the "
               "computation on the GPU with the requested instructions. Reply with the whole "
               "file.";
      std::string absent;
      for (const auto& family : evaluation.families) {
        if (!family.requested || family.static_count > 0) continue;
        absent += absent.empty() ? family.family : ", " + family.family;
      }
      return fmt::format(
          "The machine code of your kernels has no {} instruction, so it cannot pass whatever "
          "it computes. Use the requested instructions for the main computation (on the path "
          "that runs) and reply with the whole file.",
          absent);
    }
    case Verdict::kNotRun: {
      std::string text =
          "Check the kernel for correctness against the task's math and reply "
          "with the whole file again (improved where you find a problem).";
      bool absent = false;
      for (const auto& family : evaluation.families) {
        absent = absent || (family.requested && family.static_count == 0);
      }
      if (absent) text = "The requested instructions missing from the SASS must be used. " + text;
      return text;
    }
    case Verdict::kSanitizerError:
    case Verdict::kRuntimeError:
    case Verdict::kTimeout:
    case Verdict::kIncorrectShape:
    case Verdict::kIncorrectNumerical:
    case Verdict::kInputsModified:
      return "Fix the error above and reply with the whole corrected file.";
    case Verdict::kInstructionsNotExecuted:
      return fmt::format(
          "The result is correct, but the requested instructions ({}) do not carry "
          "the work. Use them for the main computation and reply with the whole "
          "file.",
          requested_missing(evaluation));
    case Verdict::kPassed: {
      auto speedup = evaluation.headline_speedup();
      std::string where = speedup ? fmt::format("The headline speedup is {:.2f}x", *speedup)
                                  : std::string("The kernel is correct");
      if (options.target_speedup)
        where += fmt::format(" (target {:.2f}x)", *options.target_speedup);
      return where +
             ". Keep it correct and make it faster; reply with the whole improved file, "
             "or the same file if you cannot improve it.";
    }
    case Verdict::kInternalError:
      return "The evaluation itself failed (not a fault of your code). Reply with the whole file "
             "again.";
  }
  return "Reply with the whole file.";
}

}  // namespace

std::string trim_log(std::string_view log, std::size_t max_lines, std::size_t max_bytes,
                     std::size_t max_line_bytes) {
  auto lines = split_lines(log);
  std::string out;
  std::size_t kept = 0;
  for (; kept < lines.size() && kept < max_lines; ++kept) {
    std::string line = lines[kept];
    if (line.size() > max_line_bytes)
      line = std::string(util::utf8_prefix(line, max_line_bytes)) + " [...]";
    if (out.size() + line.size() + 1 > max_bytes) break;
    out += line + "\n";
  }
  if (kept < lines.size())
    out += fmt::format("[... {} more lines not shown]\n", lines.size() - kept);
  return out;
}

std::string render_feedback(const Evaluation& evaluation, const FeedbackOptions& options) {
  const auto& target = arch::info(evaluation.arch);
  std::string out =
      fmt::format("## Evaluation of turn {} of {} ({}, {}): {}\n\n", options.turn,
                  options.max_turns, target.name, target.sm, eval::to_string(evaluation.verdict));
  if (!evaluation.message.empty()) out += evaluation.message + "\n\n";
  if (!evaluation.stages.empty()) out += "Stages: " + stages_line(evaluation) + "\n";
  render_compiler(evaluation, options, out);
  render_kernels(evaluation, out);
  render_families(evaluation, out);
  render_workloads(evaluation, out);
  render_not_run(evaluation, out);
  render_not_checked(evaluation, out);
  out += "\n### Next step\n\n" + next_step(evaluation, options);
  int left = options.max_turns - options.turn;
  if (left > 0) {
    out += fmt::format(" You have {} more turn{}.\n", left, left == 1 ? "" : "s");
  } else {
    out += " This was the last turn.\n";
  }
  return out;
}

}  // namespace ptxbench::agent
