#include "ptxbench/fixit/retrieve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "ptxbench/extract/extract.hpp"
#include "ptxbench/fixit/export_rows.hpp"
#include "ptxbench/fixit/mine.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::fixit {
namespace {

template <class Rows>
std::map<std::string, const typename Rows::value_type*> by_mined_id(const Rows& rows) {
  std::map<std::string, const typename Rows::value_type*> out;
  for (const auto& row : rows) out[row.mined_id] = &row;
  return out;
}

bool same_nonempty(const std::string& a, const std::string& b) {
  return !a.empty() && a == b;
}

TaskRelation relation_of(const RetrievalQuery& query, const RetrievalDocument& document) {
  if (same_nonempty(query.task, document.task)) return TaskRelation::kSameTask;
  if (same_nonempty(query.op_type, document.op_type) ||
      same_nonempty(query.family, document.family))
    return TaskRelation::kSameFamily;
  return TaskRelation::kOther;
}

// The mean of the similarities the query can be measured by (its code, its feedback).
double similarity_of(const std::set<std::string>& query_code,
                     const std::set<std::string>& query_text,
                     const std::set<std::string>& document_code,
                     const std::set<std::string>& document_text) {
  double sum = 0;
  int parts = 0;
  if (!query_code.empty()) {
    sum += jaccard(query_code, document_code);
    ++parts;
  }
  if (!query_text.empty()) {
    sum += jaccard(query_text, document_text);
    ++parts;
  }
  return parts == 0 ? 0 : sum / parts;
}

// True when `a` ranks before `b`.
bool ranks_before(const RetrievalHit& a, const RetrievalHit& b) {
  auto key = [](const RetrievalHit& h) {
    return std::make_tuple(static_cast<int>(h.relation), h.same_arch, h.same_verdict, h.similarity);
  };
  if (key(a) != key(b)) return key(a) > key(b);
  return a.document->mined_id < b.document->mined_id;
}

}  // namespace

RetrievalQuery task_query(const task::Task& task, arch::Arch arch) {
  return {.task = task.name,
          .op_type = std::string(task::to_string(task.op_type)),
          .family = task.family,
          .heldout = task.split != "train",
          .arch = std::string(arch::to_string(arch))};
}

RetrievalQuery named_task_query(const std::vector<task::Task>& suite, const std::string& name,
                                arch::Arch arch) {
  if (const task::Task* task = task::find_task(suite, name)) return task_query(*task, arch);
  return {.task = name, .heldout = true, .arch = std::string(arch::to_string(arch))};
}

std::string_view to_string(TaskRelation relation) {
  switch (relation) {
    case TaskRelation::kSameTask:
      return "same task";
    case TaskRelation::kSameFamily:
      return "same family";
    case TaskRelation::kOther:
      break;
  }
  return "other task";
}

std::set<std::string> identifier_set(std::string_view text) {
  std::set<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 2) out.insert(word);
    word.clear();
  };
  for (char c : text) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (letter || (digit && !word.empty())) {
      word += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    } else {
      flush();
    }
  }
  flush();
  return out;
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 0;
  std::size_t shared = 0;
  for (const auto& word : a) shared += b.contains(word) ? 1 : 0;
  return static_cast<double>(shared) / static_cast<double>(a.size() + b.size() - shared);
}

RetrievalIndex::RetrievalIndex(std::vector<RetrievalDocument> documents)
    : documents_(std::move(documents)) {
  for (const auto& document : documents_) {
    code_identifiers_.push_back(identifier_set(document.failing_code));
    text_identifiers_.push_back(identifier_set(document.error_text + "\n" + document.feedback));
  }
}

std::vector<RetrievalHit> RetrievalIndex::search(const RetrievalQuery& query, std::size_t k) const {
  const auto query_code = identifier_set(query.code);
  const auto query_text = identifier_set(query.feedback);
  std::vector<RetrievalHit> hits;
  for (std::size_t d = 0; d < documents_.size(); ++d) {
    const RetrievalDocument& document = documents_[d];
    if (query.heldout && document.heldout) continue;  // no held-out answer for a held-out task
    RetrievalHit hit{.document = &document,
                     .relation = relation_of(query, document),
                     .same_arch = same_nonempty(query.arch, document.arch),
                     .same_verdict = same_nonempty(query.verdict, document.verdict),
                     .similarity = similarity_of(query_code, query_text, code_identifiers_[d],
                                                 text_identifiers_[d])};
    if (hit.relation == TaskRelation::kOther && !hit.same_verdict && hit.similarity <= 0)
      continue;  // nothing in common
    hits.push_back(hit);
  }
  std::sort(hits.begin(), hits.end(), ranks_before);
  if (hits.size() > k) hits.resize(k);
  return hits;
}

namespace {

std::vector<RetrievalDocument> documents_of(const FolderRows& rows,
                                            const std::vector<task::Task>& suite,
                                            bool include_unverified) {
  auto repair_of = by_mined_id(rows.repairs);
  auto verified_of = by_mined_id(rows.verified);
  auto explained_of = by_mined_id(rows.explained);
  std::vector<RetrievalDocument> out;
  for (const auto& row : rows.mined) {
    auto v = verified_of.find(row.id);
    auto r = repair_of.find(row.id);
    auto e = explained_of.find(row.id);
    if (v == verified_of.end() || r == repair_of.end() || e == explained_of.end()) continue;
    bool usable = v->second->status == VerifyStatus::kVerified ||
                  (include_unverified && v->second->status == VerifyStatus::kUnverified);
    if (!usable || !e->second->accepted()) continue;
    const task::Task* task = task::find_task(suite, row.task);
    out.push_back({.mined_id = row.id,
                   .task = row.task,
                   .op_type = task != nullptr ? std::string(task::to_string(task->op_type)) : "",
                   .family = task != nullptr ? task->family : "",
                   // Held out by the suite now or when the row was mined.
                   .heldout = split_of(suite, row.task) != "train" || row.split != "train",
                   .arch = std::string(arch::to_string(row.arch)),
                   .verdict = std::string(eval::to_string(verdict_kind(row))),
                   .error_text = row.error_text,
                   .feedback = row.feedback,
                   .failing_code = row.code,
                   .repaired_code = r->second->code,
                   .reasoning = e->second->reasoning});
  }
  return out;
}

}  // namespace

util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const FixitFolder& folder, const std::vector<task::Task>& suite, bool include_unverified) {
  auto rows = folder.read_all();
  if (!rows) return rows.error();
  return documents_of(*rows, suite, include_unverified);
}

util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const std::filesystem::path& folder, const std::vector<task::Task>& suite,
    bool include_unverified) {
  if (!std::filesystem::exists(folder / "mined.jsonl"))
    return util::make_error(folder.string() + ": not a Fixit folder (no mined.jsonl)");
  // Read without the folder's lock (each file is published whole): a run or a prompt retrieving
  // from a folder must not fail while a Fixit stage is writing it.
  auto rows = read_folder_rows(folder);
  if (!rows) return rows.error();
  return documents_of(*rows, suite, include_unverified);
}

std::string empty_index_note(const std::filesystem::path& folder,
                             const std::vector<task::Task>& suite, bool include_unverified) {
  std::string out = folder.string() + ": no ";
  out += include_unverified ? "explained repair" : "verified, explained repair";
  out += " to retrieve: the retrieval level adds nothing to the prompts";
  if (!include_unverified) {
    auto any = load_retrieval_documents(folder, suite, /*include_unverified=*/true);
    if (any && !any->empty())
      out += fmt::format(
          " ({} explained repair(s) are unverified: `ptxbench fixit verify --reevaluate` on a GPU "
          "verifies them; `--include-unverified` shows them anyway)",
          any->size());
  }
  return out;
}

namespace {

// A repair as the model sees it; the id in the heading lets later turns tell what was shown.
std::string render_hit(const RetrievalDocument& d, std::string_view number) {
  return fmt::format("\n### Repair{}{}: {} on {}, {} [{}]\n\n{}\n\n```cuda\n{}\n```\n",
                     number.empty() ? "" : " ", number, d.task, d.arch, d.verdict, d.mined_id,
                     d.reasoning, d.repaired_code);
}

bool shown_before(const agent::Trajectory& trajectory, const std::string& mined_id) {
  const std::string tag = "[" + mined_id + "]";
  return std::any_of(
      trajectory.messages.begin(), trajectory.messages.end(),
      [&](const agent::TrajectoryMessage& m) { return m.content.find(tag) != std::string::npos; });
}

}  // namespace

std::string render_retrieved(const std::vector<RetrievalHit>& hits) {
  if (hits.empty()) return "No verified repair of a similar failure is on record.";
  std::string out = fmt::format(
      "{} verified repair(s) of similar failures, each: the verdict a kernel got, the reasoning "
      "that found the bug, and the kernel that then passed.\n",
      hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i)
    out += render_hit(*hits[i].document, std::to_string(i + 1));
  return out;
}

prompt::ContextHook retrieval_hook(std::shared_ptr<const RetrievalIndex> index, std::size_t k) {
  return [index, k](const task::Task& task, arch::Arch arch) -> util::Expected<std::string> {
    return render_retrieved(index->search(task_query(task, arch), k));
  };
}

agent::FailureContextFn retrieval_feedback_hook(std::shared_ptr<const RetrievalIndex> index,
                                                std::size_t k) {
  return [index, k](const task::Task& task, arch::Arch arch, const agent::Trajectory& trajectory,
                    const std::string& reply, const eval::Evaluation& evaluation,
                    const std::string& feedback) -> std::string {
    if (!is_minable_failure(evaluation.verdict)) return "";
    RetrievalQuery query = task_query(task, arch);
    query.verdict = std::string(eval::to_string(evaluation.verdict));
    if (auto code = extract::extract_code(reply)) query.code = *code;
    query.feedback = feedback;
    auto hits = index->search(query, k);
    if (hits.empty()) return "";
    std::string fresh, seen;
    for (const auto& hit : hits) {
      if (shown_before(trajectory, hit.document->mined_id))
        seen += (seen.empty() ? "" : ", ") + ("[" + hit.document->mined_id + "]");
      else
        fresh += render_hit(*hit.document, "");
    }
    std::string out;
    if (!fresh.empty())
      out = fmt::format(
          "Verified repair(s) of failures like this one ({}): the reasoning that found the bug "
          "and the kernel that then passed.\n{}",
          query.verdict, fresh);
    if (!seen.empty())
      out +=
          fmt::format("{}The closest verified repairs of this kind of failure shown earlier: {}.",
                      out.empty() ? "" : "\n", seen);
    return out;
  };
}

}  // namespace ptxbench::fixit
