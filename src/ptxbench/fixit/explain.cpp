#include "ptxbench/fixit/explain.hpp"

#include <fmt/format.h>

#include <map>

namespace ptxbench::fixit {

std::string explain_call_id(const MinedRow& row) {
  return "explain__" + row.id;
}

model::Conversation explain_request(const MinedRow& row, const RepairRow& repair,
                                    const LengthBin& bin) {
  std::string system =
      "You write the reasoning of a GPU kernel engineer who is debugging their own kernel. Write "
      "in the first person, as the thinking that comes before the corrected code: what the "
      "evaluator's feedback shows, why the kernel was wrong, which explanations you considered "
      "and ruled out, and the numbers that decide it (tile sizes, byte counts, barrier phases, "
      "error magnitudes). Write as someone finding the fix, never as someone who was shown it. "
      "Plain prose only: no code blocks, no tags, no headings.";
  std::string user = fmt::format(
      "Task: {} on {}.\n\n## The kernel that failed\n\n{}\n\n## The evaluator's "
      "feedback\n\n{}\n\n## The corrected kernel (for you only; do not quote "
      "it)\n\n```cuda\n{}\n```"
      "\n\nWrite the reasoning in {} to {} words.",
      row.task, arch::to_string(row.arch), failed_attempt(row), row.feedback, repair.code,
      bin.min_words, bin.max_words);
  return {{.role = "system", .content = system}, {.role = "user", .content = user}};
}

ExplainedRow explain_row(const MinedRow& row, const RepairRow& repair, const Teacher& explainer,
                         const ExplainOptions& options) {
  ExplainedRow out{.mined_id = row.id,
                   .teacher = repair.teacher,
                   .explainer = explainer.name,
                   .length_bin = options.limits.bin.name};
  model::Conversation conversation = explain_request(row, repair, options.limits.bin);
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    out.attempts = attempt;
    model::CallContext context{.trajectory_id = explain_call_id(row),
                               .task = row.task,
                               .arch = std::string(arch::to_string(row.arch)),
                               .context_level = std::string(prompt::to_string(row.context)),
                               .turn = attempt};
    model::CallResult result = explainer.provider->complete(conversation, context);
    if (!result.ok()) {
      out.rejections.push_back("provider: " + result.error().message);
      break;  // a replay that has run out, or a provider that failed after its retries
    }
    const std::string& text = result.reply().content;
    auto why = rejection_reason(text, repair.code, options.limits);
    if (!why) {
      out.reasoning = text;
      return out;
    }
    out.rejections.push_back(*why);
    conversation.push_back({.role = "assistant", .content = text});
    conversation.push_back(
        {.role = "user",
         .content = fmt::format("That explanation cannot be used: {}. Write it again.", *why)});
  }
  return out;
}

std::vector<ExplainedRow> explain_rows(const std::vector<MinedRow>& mined,
                                       const std::vector<RepairRow>& repairs,
                                       const std::vector<ExplainedRow>& before,
                                       const Teacher& explainer, const ExplainOptions& options,
                                       const std::function<void(std::string_view)>& say) {
  std::map<std::string, const MinedRow*> by_id;
  for (const auto& row : mined) by_id[row.id] = &row;
  std::map<std::string, const ExplainedRow*> kept;
  for (const auto& row : before) {
    if (row.accepted() && row.explainer == explainer.name &&
        row.length_bin == options.limits.bin.name)
      kept[row.mined_id] = &row;
  }
  std::vector<ExplainedRow> out;
  for (const auto& repair : repairs) {
    if (repair.code.empty() || repair.status == RepairStatus::kNotRepaired) continue;
    auto source = by_id.find(repair.mined_id);
    if (source == by_id.end()) continue;
    if (auto it = kept.find(repair.mined_id); it != kept.end()) {
      out.push_back(*it->second);
      continue;
    }
    out.push_back(explain_row(*source->second, repair, explainer, options));
    if (say) {
      const ExplainedRow& row = out.back();
      say(row.accepted()
              ? fmt::format("explain {}: accepted after {} attempt(s), {} words", row.mined_id,
                            row.attempts, count_words(row.reasoning))
              : fmt::format("explain {}: rejected ({})", row.mined_id,
                            row.rejections.empty() ? "no reply" : row.rejections.back()));
    }
  }
  return out;
}

}  // namespace ptxbench::fixit
