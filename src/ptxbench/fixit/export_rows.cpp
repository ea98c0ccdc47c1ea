#include "ptxbench/fixit/export_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/fixit/run_trajectories.hpp"
#include "ptxbench/fixit/verify.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

template <class Row>
std::map<std::string, const Row*> index_by_mined_id(const std::vector<Row>* rows) {
  std::map<std::string, const Row*> out;
  if (rows == nullptr) return out;
  for (const auto& row : *rows) out[row.mined_id] = &row;
  return out;
}

// The conversation up to and including the reply of `turn`: system, task, then every earlier
// reply with the feedback the model got on it, loss on the last reply only. Empty when the turn
// has no reply.
std::vector<SftMessage> conversation_through(const agent::Trajectory& trajectory, int turn) {
  const agent::TrajectoryMessage* reply = reply_of_turn(trajectory, turn);
  if (reply == nullptr) return {};
  OpeningPrompts prompts = opening_prompts(trajectory);
  std::vector<SftMessage> out = {{"system", prompts.system, false}, {"user", prompts.task, false}};
  for (const auto& message : trajectory.messages) {
    int of_turn = message.turn.value_or(0);
    if (of_turn == 0 || of_turn >= turn) continue;
    // Earlier turns' replies as they were sent back to the model: content only.
    if (message.role == "assistant" || message.role == "user")
      out.push_back({message.role, message.content, false});
  }
  out.push_back({"assistant", reply->content, true, reply->reasoning_content.value_or("")});
  return out;
}

std::string fenced(const std::string& code) {
  return "```cuda\n" + code + (code.ends_with('\n') ? "" : "\n") + "```";
}

}  // namespace

std::string split_of(const std::vector<task::Task>& suite, const std::string& task) {
  const task::Task* found = task::find_task(suite, task);
  return found != nullptr && found->split == "train" ? "train" : "heldout";
}

ExportedSet export_fixit_rows(const ExportInputs& inputs, const std::vector<task::Task>& suite,
                              const ExportOptions& options) {
  ExportedSet out;
  auto repairs = index_by_mined_id(inputs.repairs);
  auto verified = index_by_mined_id(inputs.verified);
  auto explained = index_by_mined_id(inputs.explained);
  std::set<std::string> wanted;
  if (inputs.selection != nullptr)
    wanted.insert(inputs.selection->ids.begin(), inputs.selection->ids.end());
  std::string recipe = inputs.selection != nullptr ? inputs.selection->recipe.name : "";
  for (const auto& row : *inputs.mined) {
    if (inputs.selection != nullptr && !wanted.contains(row.id)) continue;
    auto repair = repairs.find(row.id);
    auto verification = verified.find(row.id);
    auto explanation = explained.find(row.id);
    auto leave = [&](std::string why) { out.left_out.push_back(row.id + ": " + why); };
    if (repair == repairs.end()) {
      leave("not repaired yet");
      continue;
    }
    if (verification == verified.end()) {
      leave("not verified yet");
      continue;
    }
    const VerifiedRow& v = *verification->second;
    if (v.status == VerifyStatus::kRejected) {
      leave("rejected: " + v.reason);
      continue;
    }
    if (v.status == VerifyStatus::kUnverified && !options.include_unverified) {
      leave("unverified (" + v.reason + "); export with --include-unverified to keep it");
      continue;
    }
    if (explanation == explained.end() || !explanation->second->accepted()) {
      leave("no accepted explanation");
      continue;
    }
    const RepairRow& r = *repair->second;
    const ExplainedRow& e = *explanation->second;
    SftRow sft{.id = "fixit-" + row.id,
               .kind = "fixit",
               .split = split_of(suite, row.task),
               .verified = v.status == VerifyStatus::kVerified};
    sft.messages = {{"system", row.system_prompt, false},
                    {"user", row.task_prompt, false},
                    {"assistant", row.reply, false},
                    {"user", row.feedback, false},
                    {"assistant", fenced(r.code), true, e.reasoning}};
    sft.provenance = {.run = row.source.run,
                      .trajectory = row.source.trajectory,
                      .turn = row.source.turn,
                      .task = row.task,
                      .arch = std::string(arch::to_string(row.arch)),
                      .context = std::string(prompt::to_string(row.context)),
                      .verdict = std::string(eval::to_string(verdict_kind(row))),
                      .teacher = r.teacher,
                      .evaluation_source_hash = v.evaluation.source_hash,
                      .mined_id = row.id,
                      .repair_trajectory = r.trajectory,
                      .repair_turn = r.chosen_turn,
                      .explainer = e.explainer,
                      .length_bin = e.length_bin,
                      .recipe = recipe,
                      .verification = std::string(to_string(v.status)),
                      .gpu = v.gpu};
    out.fixit.push_back(std::move(sft));
  }
  return out;
}

util::Expected<KernelgenSet> export_kernelgen_rows(const std::vector<fs::path>& runs,
                                                   const std::vector<task::Task>& suite,
                                                   const ExportOptions& options) {
  KernelgenSet out;
  std::map<std::string, std::string> first_with_source;  // task/arch/source hash -> row id
  for (const auto& run : runs) {
    auto read = read_run(run);
    if (!read) return read.error();
    std::set<std::string> declared_broken;
    for (const auto& [id, verdict] : read->declared)
      if (verdict != eval::Verdict::kPassed) declared_broken.insert(id);
    for (const auto& trajectory : read->trajectories) {
      const auto& info = trajectory.info;
      for (const auto& turn : trajectory.turns) {
        VerifiedRow judged = judge(info.id, turn.evaluation);
        bool unverified_ok = options.include_unverified &&
                             judged.status == VerifyStatus::kUnverified &&
                             !declared_broken.contains(info.id);
        if (judged.status != VerifyStatus::kVerified && !unverified_ok) continue;
        auto messages = conversation_through(trajectory, turn.turn);
        if (messages.empty()) continue;
        std::string id = fmt::format("kernelgen-{}-t{}", info.id, turn.turn);
        // The judged source; a turn without one is keyed by its reply, never merged with others.
        std::string source = !turn.evaluation.source_hash.empty()
                                 ? turn.evaluation.source_hash
                                 : "reply:" + util::hash_hex(messages.back().content);
        std::string source_key =
            fmt::format("{}/{}/{}", info.task, arch::to_string(info.arch), source);
        if (auto [it, fresh] = first_with_source.emplace(source_key, id); !fresh) {
          out.left_out.push_back(id + ": the same kernel source as " + it->second);
          continue;
        }
        SftRow row{.id = std::move(id),
                   .kind = "kernelgen",
                   .split = split_of(suite, info.task),
                   .verified = judged.status == VerifyStatus::kVerified,
                   .messages = std::move(messages)};
        row.provenance = {.run = run.string(),
                          .trajectory = info.id,
                          .turn = turn.turn,
                          .task = info.task,
                          .arch = std::string(arch::to_string(info.arch)),
                          .context = std::string(prompt::to_string(info.context_level)),
                          .verdict = std::string(eval::to_string(turn.evaluation.verdict)),
                          .teacher = info.model,
                          .evaluation_source_hash = turn.evaluation.source_hash,
                          .verification = std::string(to_string(judged.status)),
                          .gpu = judged.gpu};
        out.rows.push_back(std::move(row));
      }
    }
  }
  return out;
}

}  // namespace ptxbench::fixit
