// Stage 7, retrieve: the k verified repairs most like a failure, rendered for the system prompt
// of the `retrieval` context level so a model can be helped without training. Rows are ranked,
// deterministically, by (docs/fixit.md, "retrieve"):
//   1. the same task, then the same op type or family, then any other task;
//   2. the same arch;
//   3. the same failing verdict kind;
//   4. the similarity of the failing code and of the feedback (Jaccard over identifier sets);
//   5. the mined row id.
// A query for a held-out task never gets a row of a held-out task, so retrieval cannot carry a
// held-out answer into a run that measures generalisation.
#pragma once
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

struct RetrievalDocument {
  std::string mined_id;
  std::string task;
  std::string op_type;  // of the task in the suite; empty when the suite lacks it
  std::string family;
  bool heldout = true;  // the task is held out (or missing from the suite)
  std::string arch;
  std::string verdict;
  std::string error_text;  // the failing verdict's messages
  std::string feedback;    // the feedback the failing turn got
  std::string failing_code;
  std::string repaired_code;
  std::string reasoning;
};

// What is being helped: a task (a first turn), or a failure of it (verdict, code, feedback).
struct RetrievalQuery {
  std::string task;
  std::string op_type;
  std::string family;
  bool heldout = false;
  std::string arch;
  std::string verdict;   // empty: no failure yet
  std::string code;      // the failing code, or empty
  std::string feedback;  // its feedback or error text, or empty
};

// The query of a task's first turn.
RetrievalQuery task_query(const task::Task& task, arch::Arch arch);
// The query of a task named by a user: its first turn's when the suite has the task; else one
// of the name and the arch only, held out (no held-out row can answer it).
RetrievalQuery named_task_query(const std::vector<task::Task>& suite, const std::string& name,
                                arch::Arch arch);

enum class TaskRelation { kOther = 0, kSameFamily = 1, kSameTask = 2 };
std::string_view to_string(TaskRelation relation);  // "same task", "same family", "other task"

struct RetrievalHit {
  const RetrievalDocument* document = nullptr;
  TaskRelation relation = TaskRelation::kOther;
  bool same_arch = false;
  bool same_verdict = false;
  double similarity = 0;  // in [0, 1]
};

// Identifiers of code or text ([A-Za-z_][A-Za-z0-9_]*, two characters or more), lower-cased;
// "wgmma.mma_async.sync" gives wgmma, mma_async, sync.
std::set<std::string> identifier_set(std::string_view text);
// |a ∩ b| / |a ∪ b|; 0 when both are empty.
double jaccard(const std::set<std::string>& a, const std::set<std::string>& b);

class RetrievalIndex {
 public:
  explicit RetrievalIndex(std::vector<RetrievalDocument> documents);
  // Best first (the order above). Left out: rows of held-out tasks for a held-out query, and
  // rows that share nothing with the query (not the task, op type, family or verdict kind,
  // and no identifier).
  std::vector<RetrievalHit> search(const RetrievalQuery& query, std::size_t k) const;
  std::size_t size() const { return documents_.size(); }

 private:
  std::vector<RetrievalDocument> documents_;
  std::vector<std::set<std::string>> code_identifiers_;
  std::vector<std::set<std::string>> text_identifiers_;
};

// The verified repairs of a folder (with `include_unverified`, also unverified ones) that have
// an accepted explanation, with their tasks' op type, family and split from `suite`.
util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const FixitFolder& folder, const std::vector<task::Task>& suite, bool include_unverified);
// The same from a folder path; takes the folder's lock while it reads, so it fails while a
// Fixit stage works on the folder.
util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const std::filesystem::path& folder, const std::vector<task::Task>& suite,
    bool include_unverified);

std::string render_retrieved(const std::vector<RetrievalHit>& hits);

// The `retrieval` level's system-prompt text for a task's first turn.
// Why a Fixit folder gives the retrieval level nothing to retrieve: how many explained repairs
// are only unverified (the flag that shows them, or the GPU step that verifies them) or not
// explained yet. Said by every command that builds a retrieval index that turns out empty.
std::string empty_index_note(const std::filesystem::path& folder,
                             const std::vector<task::Task>& suite, bool include_unverified);

prompt::ContextHook retrieval_hook(std::shared_ptr<const RetrievalIndex> index, std::size_t k);

// The `retrieval` level's text after a failing turn's feedback: of the k repairs most like this
// failure (its verdict kind, extracted code and feedback), those the conversation has not shown
// yet, or a line naming the ones it has. Nothing for a turn that is not a failure a repair can
// start from (PASSED, NO_CODE, NOT_RUN, ...).
agent::FailureContextFn retrieval_feedback_hook(std::shared_ptr<const RetrievalIndex> index,
                                                std::size_t k);

}  // namespace ptxbench::fixit
