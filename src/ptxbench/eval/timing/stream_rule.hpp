// The ABI's stream rule, judged on the timing worker's CUPTI trace: run() launches all its GPU
// work on the caller's stream (TVMFFIEnvGetStream). Work that a candidate call put on any other
// stream (a private stream, joined or not; the legacy default stream, where a synchronous
// cudaMemcpy or cudaMemset lands; the per-thread stream) makes the candidate FORBIDDEN. Work off
// the caller's stream is not ordered before the caller reads the outputs, so whether such a
// candidate passes correctness is a race; the rule makes the verdict deterministic. Memory
// operations are judged like kernels: an honest candidate copies and clears with the *Async
// calls on the caller's stream. Work launched from another thread between calls is attributed to
// the candidate's latest call and judged too. Baseline calls (cuBLASLt, cuDNN) are not judged.
// Pure: the trace's per-stream counts in, a reason out.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ptxbench::eval::worker {

// CUPTI's stream id of a record without a stream (CUPTI_INVALID_STREAM_ID): never the caller's.
inline constexpr std::uint32_t kNoStreamId = 0xFFFFFFFFu;

// The work one call put on one stream, as the trace attributed it.
struct StreamWork {
  std::uint32_t stream_id = 0;  // CUPTI's context-unique stream id
  int kernels = 0;
  int memory_operations = 0;    // memcpy + memset
  int background_launches = 0;  // of all these, launched off the harness thread between calls
  std::vector<std::string> kernel_names;  // distinct, first-seen order, as traced (mangled)
};

// What ran off the caller's stream over a whole timing run (the timing reply's "streams").
struct StreamSummary {
  std::uint32_t caller_stream_id = 0;
  std::vector<std::uint32_t> other_stream_ids;  // ascending
  int kernels = 0;
  int memory_operations = 0;
  int background_launches = 0;
  std::vector<std::string> kernel_names;  // distinct, first-seen order (mangled)
};

// Accumulates, over every traced call of one timing run, the candidate's work off the caller's
// stream.
class StreamRule {
 public:
  explicit StreamRule(std::uint32_t caller_stream_id) : caller_stream_id_(caller_stream_id) {}

  // One call's work by stream; a baseline call (`candidate` false) is not judged.
  void add_call(bool candidate, const std::vector<StreamWork>& streams);

  bool violated() const { return !other_stream_ids_.empty(); }
  // Empty when not violated; otherwise why, naming the streams and the kernels.
  std::string message() const;
  // For the reply: the caller's stream id and what ran elsewhere.
  StreamSummary summary() const;

 private:
  std::uint32_t caller_stream_id_;
  std::set<std::uint32_t> other_stream_ids_;
  StreamWork elsewhere_;  // totals over the other streams; stream_id unused
};

}  // namespace ptxbench::eval::worker
