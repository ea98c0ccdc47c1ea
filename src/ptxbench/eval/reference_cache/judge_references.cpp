#include "ptxbench/eval/reference_cache/judge_references.hpp"

namespace ptxbench::eval::reference_cache {

ReferenceShape shape_of(const worker::WorkerJob& job) {
  ReferenceShape shape;
  for (const auto& output : job.outputs) {
    shape.library_bytes.push_back(output.bytes());
    shape.reference_bytes.push_back(static_cast<std::size_t>(output.elements()) * sizeof(float));
  }
  return shape;
}

JudgeReferences::JudgeReferences(const worker::WorkerJob& job)
    : request_(job.reference_cache), workload_(job.workload), shape_(shape_of(job)) {
  std::uint64_t bytes = 0;
  for (auto b : shape_.library_bytes) bytes += b;
  for (auto b : shape_.reference_bytes) bytes += b;
  fits_ = bytes <= kMaxEntryBytes;
}

ReferenceKey JudgeReferences::key(std::uint64_t trial_seed) const {
  return ReferenceKey{
      .task = request_.task, .workload = workload_, .trial_seed = trial_seed, .gpu = request_.gpu};
}

std::optional<ReferenceEntry> JudgeReferences::find(std::uint64_t trial_seed) {
  if (!enabled()) return std::nullopt;
  auto entry = load_reference(request_.dir, key(trial_seed), shape_);
  ++(entry ? counts_.hits : counts_.misses);
  return entry;
}

void JudgeReferences::offer(std::uint64_t trial_seed, const ReferenceEntry& entry) const {
  if (!enabled()) return;
  // Only whole entries: a library output of the wrong size is never kept.
  if (entry.library.size() != shape_.library_bytes.size()) return;
  for (std::size_t i = 0; i < entry.library.size(); ++i) {
    if (entry.library[i].size() != shape_.library_bytes[i]) return;
  }
  store_reference(request_.dir, key(trial_seed), entry);
}

}  // namespace ptxbench::eval::reference_cache
