// Stage 7, retrieve: the k verified repairs most similar to a query (task, verdict kind, error
// text), by BM25 over those fields, rendered for the system prompt of the `retrieval` context
// level so a model can be helped without training.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/prompt/prompt.hpp"

namespace ptxbench::fixit {

struct RetrievalDocument {
  std::string mined_id;
  std::string task;
  std::string arch;
  std::string verdict;
  std::string error_text;
  std::string failing_code;
  std::string repaired_code;
  std::string reasoning;
};

struct RetrievalHit {
  const RetrievalDocument* document = nullptr;
  double score = 0;
};

// Lower-case word pieces: "gemm_n7168_k5120" gives gemm_n7168_k5120, gemm, n7168, k5120.
std::vector<std::string> tokenize(std::string_view text);

class RetrievalIndex {
 public:
  explicit RetrievalIndex(std::vector<RetrievalDocument> documents);
  // Best first; ties in index order. Documents that share no term with the query are left out.
  std::vector<RetrievalHit> search(std::string_view query, std::size_t k) const;
  std::size_t size() const { return documents_.size(); }

 private:
  std::vector<RetrievalDocument> documents_;
  std::vector<std::map<std::string, int>> term_counts_;
  std::vector<int> lengths_;
  std::map<std::string, int> document_frequency_;
  double average_length_ = 0;
};

// The verified repairs of a folder (with `include_unverified`, also unverified ones) that have
// an accepted explanation, or none.
util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(const FixitFolder& folder,
                                                                        bool include_unverified);
// The same from a folder path; takes the folder's lock while it reads, so it fails while a
// Fixit stage works on the folder.
util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const std::filesystem::path& folder, bool include_unverified);

// The query of a first turn: the task's name, op type and family, and the arch.
std::string task_query(const task::Task& task, arch::Arch arch);

std::string render_retrieved(const std::vector<RetrievalHit>& hits);

// The `retrieval` level's hook over an index that outlives it.
prompt::ContextHook retrieval_hook(std::shared_ptr<const RetrievalIndex> index, std::size_t k);

}  // namespace ptxbench::fixit
