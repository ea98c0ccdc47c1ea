#include "ptxbench/eval/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "ptxbench/eval/timing/timed_workloads.hpp"

namespace ptxbench::eval {
namespace {

constexpr std::size_t kColumns = 6;
using Row = std::array<std::string, kColumns>;

std::string families_cell(const Evaluation& e) {
  std::vector<std::string> parts;
  for (const auto& f : e.families) {
    if (!f.requested) continue;
    std::string part = fmt::format("{} {}", f.family, f.static_count);
    if (f.executed_count) part += fmt::format(" (ran {})", *f.executed_count);
    parts.push_back(part);
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string resources_cell(const Evaluation& e) {
  if (e.kernels.empty()) return "-";
  // As launched where the timing stage saw the launch (dynamic shared memory, setmaxnreg),
  // else ptxas' static figures.
  int registers = 0, shared = 0, spills = 0;
  for (const auto& k : e.kernels) {
    const auto& l = k.launched;
    registers = std::max(registers, l ? l->registers_per_thread : k.registers);
    shared =
        std::max(shared, l ? l->static_shared_bytes + l->dynamic_shared_bytes : k.shared_bytes);
    spills += k.spill_store_bytes + k.spill_load_bytes;
  }
  return fmt::format("{} / {} B / {} B", registers, shared, spills);
}

std::string result_cell(const Evaluation& e) {
  if (auto speedup = e.headline_speedup()) {
    for (const auto& w : e.workloads) {
      if (!w.headline || !w.candidate) continue;
      std::string cell =
          fmt::format("{:.2f}x vs baseline ({:.3f} ms", *speedup, w.candidate->median_ms);
      if (w.speed_of_light)
        cell += fmt::format(", {:.0f}% of speed of light", w.speed_of_light->fraction * 100);
      return cell + ")";
    }
    return fmt::format("{:.2f}x vs baseline", *speedup);
  }
  if (e.verdict == Verdict::kNotRun) return "GPU stages not run";
  if (e.correct()) return "correct, not timed";
  return "-";
}

// "sanitize: not checked: racecheck (timed out ...) did not finish" for each stage that ran but
// did not finish its check; empty when none.
std::string not_checked_note(const Evaluation& e) {
  std::string note;
  for (const auto& s : e.stages) {
    if (s.status != StageStatus::kNotChecked) continue;
    if (!note.empty()) note += "; ";
    note += fmt::format("{}: {}", to_string(s.stage), s.message.substr(0, s.message.find('\n')));
  }
  return note;
}

std::string candidate_name(const Evaluation& e) {
  return e.source_name.empty() ? std::string("-") : e.source_name;
}

// When any evaluation timed more than its headline: each such evaluation's speedups per
// workload, then the geometric mean over every timed workload shown.
std::string timed_workloads_section(const std::vector<Evaluation>& evaluations) {
  const bool any_several =
      std::any_of(evaluations.begin(), evaluations.end(),
                  [](const Evaluation& e) { return timed_count(e.workloads) > 1; });
  if (!any_several) return "";
  std::vector<std::pair<std::string, std::string>> lines;
  std::vector<WorkloadResult> timed;
  std::size_t label_width = 0;
  for (const auto& e : evaluations) {
    std::vector<std::string> parts;
    for (const auto& w : e.workloads) {
      if (!w.speedup) continue;
      parts.push_back(fmt::format("{} {:.3f}x", w.workload, *w.speedup));
      timed.push_back(w);
    }
    if (parts.empty()) continue;
    std::string label = fmt::format("{} on {}", candidate_name(e), e.task);
    label_width = std::max(label_width, label.size());
    lines.emplace_back(std::move(label), fmt::format("{}", fmt::join(parts, ", ")));
  }
  std::string out = "\nspeedup vs baseline per timed workload:\n";
  for (const auto& [label, speedups] : lines)
    out += fmt::format("  {:<{}}  {}\n", label, label_width, speedups);
  out += fmt::format("geometric mean over {} timed workloads: {:.3f}x\n", timed.size(),
                     geometric_mean_speedup(timed).value_or(0));
  return out;
}

}  // namespace

std::string render_summary(const std::vector<Evaluation>& evaluations) {
  std::vector<Row> rows{{"candidate", "verdict", "requested families (static count)",
                         "regs / smem / spills", "result", "task"}};
  for (const auto& e : evaluations) {
    rows.push_back({candidate_name(e), std::string(to_string(e.verdict)), families_cell(e),
                    resources_cell(e), result_cell(e),
                    fmt::format("{} ({})", e.task, arch::to_string(e.arch))});
  }
  std::array<std::size_t, kColumns> width{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      line += c + 1 < kColumns ? fmt::format("{:<{}}  ", row[c], width[c]) : row[c];
    }
    out += line + "\n";
  }
  out += timed_workloads_section(evaluations);
  // With several tasks a file appears once per task: its reasons name the task too.
  const bool several_tasks =
      std::any_of(evaluations.begin(), evaluations.end(),
                  [&](const Evaluation& e) { return e.task != evaluations.front().task; });
  bool any_reason = false;
  for (const auto& e : evaluations) {
    std::string reason = e.verified() ? "" : e.message;
    if (const auto note = not_checked_note(e); !note.empty())
      reason += (reason.empty() ? "" : "; ") + note;
    if (reason.empty()) continue;
    if (!any_reason) out += "\n";
    any_reason = true;
    out += several_tasks ? fmt::format("{} on {}: {}\n", candidate_name(e), e.task, reason)
                         : fmt::format("{}: {}\n", candidate_name(e), reason);
  }
  return out;
}

std::string render_verdict_line(const Evaluation& e) {
  std::string line = fmt::format("{} on {} ({}): {}  {}", candidate_name(e), e.task,
                                 arch::to_string(e.arch), to_string(e.verdict), result_cell(e));
  if (!e.verified() && !e.message.empty()) line += "  " + e.message;
  if (const auto note = not_checked_note(e); !note.empty()) line += "  [" + note + "]";
  return line;
}

}  // namespace ptxbench::eval
