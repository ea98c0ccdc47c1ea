#include "ptxbench/fixit/retrieve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ptxbench/fixit/fixit_folder.hpp"

namespace ptxbench::fixit {
namespace {

constexpr double kK1 = 1.2;  // BM25 term-frequency saturation
constexpr double kB = 0.75;  // BM25 length normalisation

std::string document_text(const RetrievalDocument& d) {
  return d.task + " " + d.arch + " " + d.verdict + " " + d.error_text;
}

template <class Rows>
std::map<std::string, const typename Rows::value_type*> by_mined_id(const Rows& rows) {
  std::map<std::string, const typename Rows::value_type*> out;
  for (const auto& row : rows) out[row.mined_id] = &row;
  return out;
}

}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    out.push_back(word);
    if (word.find('_') != std::string::npos) {
      std::size_t start = 0;
      for (std::size_t i = 0; i <= word.size(); ++i) {
        if (i == word.size() || word[i] == '_') {
          if (i > start) out.push_back(word.substr(start, i - start));
          start = i + 1;
        }
      }
    }
    word.clear();
  };
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_')
      word += static_cast<char>(std::tolower(u));
    else
      flush();
  }
  flush();
  return out;
}

RetrievalIndex::RetrievalIndex(std::vector<RetrievalDocument> documents)
    : documents_(std::move(documents)) {
  long total = 0;
  for (const auto& document : documents_) {
    std::map<std::string, int> counts;
    auto tokens = tokenize(document_text(document));
    for (const auto& token : tokens) ++counts[token];
    for (const auto& [term, count] : counts) ++document_frequency_[term];
    lengths_.push_back(static_cast<int>(tokens.size()));
    total += static_cast<long>(tokens.size());
    term_counts_.push_back(std::move(counts));
  }
  average_length_ =
      documents_.empty() ? 0 : static_cast<double>(total) / static_cast<double>(documents_.size());
}

std::vector<RetrievalHit> RetrievalIndex::search(std::string_view query, std::size_t k) const {
  auto terms = tokenize(query);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  const double n = static_cast<double>(documents_.size());
  std::vector<RetrievalHit> hits;
  for (std::size_t d = 0; d < documents_.size(); ++d) {
    double score = 0;
    for (const auto& term : terms) {
      auto tf = term_counts_[d].find(term);
      if (tf == term_counts_[d].end()) continue;
      double df = document_frequency_.at(term);
      double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
      double f = tf->second;
      double norm = kK1 * (1 - kB + kB * lengths_[d] / std::max(average_length_, 1.0));
      score += idf * f * (kK1 + 1) / (f + norm);
    }
    if (score > 0) hits.push_back({&documents_[d], score});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const RetrievalHit& a, const RetrievalHit& b) { return a.score > b.score; });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(const FixitFolder& folder,
                                                                        bool include_unverified) {
  auto mined = folder.read_mined();
  if (!mined) return mined.error();
  auto repairs = folder.read_repairs();
  if (!repairs) return repairs.error();
  auto verified = folder.read_verified();
  if (!verified) return verified.error();
  auto explained = folder.read_explained();
  if (!explained) return explained.error();
  auto repair_of = by_mined_id(*repairs);
  auto verified_of = by_mined_id(*verified);
  auto explained_of = by_mined_id(*explained);
  std::vector<RetrievalDocument> out;
  for (const auto& row : *mined) {
    auto v = verified_of.find(row.id);
    auto r = repair_of.find(row.id);
    auto e = explained_of.find(row.id);
    if (v == verified_of.end() || r == repair_of.end() || e == explained_of.end()) continue;
    bool usable = v->second->status == VerifyStatus::kVerified ||
                  (include_unverified && v->second->status == VerifyStatus::kUnverified);
    if (!usable || !e->second->accepted()) continue;
    out.push_back({.mined_id = row.id,
                   .task = row.task,
                   .arch = std::string(arch::to_string(row.arch)),
                   .verdict = std::string(eval::to_string(verdict_kind(row))),
                   .error_text = row.error_text,
                   .failing_code = row.code,
                   .repaired_code = r->second->code,
                   .reasoning = e->second->reasoning});
  }
  return out;
}

util::Expected<std::vector<RetrievalDocument>> load_retrieval_documents(
    const std::filesystem::path& folder, bool include_unverified) {
  if (!std::filesystem::exists(folder / "mined.jsonl"))
    return util::make_error(folder.string() + ": not a Fixit folder (no mined.jsonl)");
  auto opened = FixitFolder::open(folder);
  if (!opened) return opened.error();
  return load_retrieval_documents(*opened, include_unverified);
}

std::string task_query(const task::Task& task, arch::Arch arch) {
  return fmt::format("{} {} {} {}", task.name, task.op_type, task.family, arch::to_string(arch));
}

std::string render_retrieved(const std::vector<RetrievalHit>& hits) {
  if (hits.empty()) return "No verified repair of a similar failure is on record.";
  std::string out = fmt::format(
      "{} verified repair(s) of similar failures, each: the verdict a kernel got, the reasoning "
      "that found the bug, and the kernel that then passed.\n",
      hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const RetrievalDocument& d = *hits[i].document;
    out += fmt::format("\n### Repair {}: {} on {}, {}\n\n{}\n\n```cuda\n{}\n```\n", i + 1, d.task,
                       d.arch, d.verdict, d.reasoning, d.repaired_code);
  }
  return out;
}

prompt::ContextHook retrieval_hook(std::shared_ptr<const RetrievalIndex> index, std::size_t k) {
  return [index, k](const task::Task& task, arch::Arch arch) -> util::Expected<std::string> {
    return render_retrieved(index->search(task_query(task, arch), k));
  };
}

}  // namespace ptxbench::fixit
