#include "ptxbench/fixit/verify.hpp"

#include <fmt/format.h>

#include <map>

#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::fixit {

VerifiedRow judge(const std::string& mined_id, const eval::Evaluation& evaluation) {
  VerifiedRow row{.mined_id = mined_id, .evaluation = evaluation};
  if (auto gpu = evaluation.toolchain.find("gpu"); gpu != evaluation.toolchain.end())
    row.gpu = gpu->second;
  if (evaluation.verdict == eval::Verdict::kNotRun) {
    row.status = VerifyStatus::kUnverified;
    row.reason = "GPU stages not run here" +
                 (evaluation.message.empty() ? std::string() : ": " + evaluation.message);
    return row;
  }
  if (evaluation.verdict != eval::Verdict::kPassed) {
    row.status = VerifyStatus::kRejected;
    row.reason = fmt::format("{}: {}", eval::to_string(evaluation.verdict), evaluation.message);
    return row;
  }
  // PASSED already means this; checked again from the evidence, so a record edited by hand or
  // written by an older ptxbench cannot pass without measured executions.
  for (const auto& family : evaluation.families) {
    if (!family.requested) continue;
    if (!family.executed_count || !family.substantial) {
      row.status = VerifyStatus::kRejected;
      row.reason =
          fmt::format("requested family {} not measured as executed substantially", family.family);
      return row;
    }
  }
  row.status = VerifyStatus::kVerified;
  row.reason = "PASSED; requested families executed substantially";
  return row;
}

std::vector<VerifiedRow> verify_rows(const std::vector<RepairRow>& repairs,
                                     const std::vector<MinedRow>& mined,
                                     const std::vector<task::Task>& suite,
                                     const VerifyOptions& options) {
  std::map<std::string, const MinedRow*> by_id;
  for (const auto& row : mined) by_id[row.id] = &row;
  std::vector<VerifiedRow> out;
  for (const auto& repair : repairs) {
    if (repair.status == RepairStatus::kNotRepaired || repair.code.empty()) {
      VerifiedRow row = judge(repair.mined_id, repair.evaluation);
      row.status = VerifyStatus::kRejected;
      row.reason = fmt::format("not repaired in {} turn(s): {}", repair.turns,
                               eval::to_string(repair.evaluation.verdict));
      row.teacher = repair.teacher;
      out.push_back(std::move(row));
      continue;
    }
    eval::Evaluation evaluation = repair.evaluation;
    bool again = options.reevaluate_all || evaluation.verdict == eval::Verdict::kNotRun;
    auto source = by_id.find(repair.mined_id);
    if (again && options.evaluate != nullptr && source != by_id.end()) {
      if (const task::Task* task = task::find_task(suite, source->second->task)) {
        evaluation = (*options.evaluate)(*task, source->second->arch,
                                         {.text = repair.code,
                                          .is_markdown = false,
                                          .source_name = repair.trajectory + " (verify)"});
      }
    }
    out.push_back(judge(repair.mined_id, evaluation));
    out.back().teacher = repair.teacher;
  }
  return out;
}

}  // namespace ptxbench::fixit
