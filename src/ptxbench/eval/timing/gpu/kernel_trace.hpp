// Every piece of GPU work (kernels, copies, memsets) launched during numbered "windows" of host
// time, on any stream and from any thread, through CUPTI activity tracing. The timing loop
// opens one window per timed call; the span from the first start to the last end of the work
// attributed to a window is that call's time, so work hidden on a private stream is counted.
// Attribution is by the launching API call's correlation id, recorded in a CUPTI callback:
// launches inside a candidate window (from any thread) belong to it, and so do the harness
// thread's inside a baseline window; launches from other threads outside candidate windows
// (work a candidate left running in the background, between calls or while the baseline runs)
// belong to the most recent candidate window. Each window's work is also split by CUPTI stream
// id, for the ABI's stream rule (timing/stream_rule.hpp).
//
// CUPTI delivers activity buffers to plain C callbacks without a user pointer, so the live
// trace is reachable through one process-wide pointer. Invariant: at most one KernelTrace per
// process; never in a process that uses CUPTI SASS metrics (the two silently conflict).
#pragma once
#include <cupti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ptxbench/eval/timing/stream_rule.hpp"

namespace ptxbench::eval::gpu {

// One kernel launch as the activity record gives it: the resources it ran with.
struct KernelLaunch {
  std::string name;
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> block{0, 0, 0};
  std::array<int, 3> cluster{0, 0, 0};
  // Bytes of an access policy window that marks lines persisting in L2 (launch attribute or
  // the stream's); 0: none.
  std::uint64_t persisting_window_bytes = 0;
};

struct WindowActivity {
  bool candidate = false;  // the candidate's call, not the baseline's
  std::int64_t first_start_ns = 0;
  std::int64_t last_end_ns = 0;
  int kernels = 0;
  int memory_operations = 0;                // memcpy + memset
  std::vector<std::string> kernel_names;    // distinct, first-seen order
  std::vector<worker::StreamWork> streams;  // the same work by stream, first-seen order
  std::vector<KernelLaunch> launches;       // every kernel launch, in record order

  double span_ms() const { return static_cast<double>(last_end_ns - first_start_ns) * 1e-6; }
};

class KernelTrace {
 public:
  KernelTrace();
  KernelTrace(const KernelTrace&) = delete;
  KernelTrace& operator=(const KernelTrace&) = delete;
  ~KernelTrace();

  // Windows are numbered by the caller, increasing; `candidate` marks whose call it is.
  void begin_window(int window, bool candidate);
  void end_window();
  // Flushes CUPTI's buffers and returns the work of every window completed so far, removing it.
  std::map<int, WindowActivity> collect();
  // CUPTI's id of `stream`, the one its activity records carry.
  std::uint32_t stream_id(CUstream stream) const;

 private:
  struct Record {
    std::uint32_t correlation = 0;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::uint32_t stream_id = 0;
    bool is_kernel = false;
    KernelLaunch launch;  // name and resources of a kernel
  };
  static void CUPTIAPI on_api(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data);
  static void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, size_t* size,
                                           size_t* max_records);
  static void CUPTIAPI on_buffer_completed(CUcontext context, std::uint32_t stream,
                                           std::uint8_t* buffer, size_t size, size_t valid);
  void take_buffer(std::uint8_t* buffer, size_t valid);
  int window_for_background_launch() const;

  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::thread::id harness_thread_;
  std::atomic<int> current_window_{-1};
  std::atomic<bool> current_window_is_candidate_{false};
  std::mutex mutex_;  // guards everything below
  std::map<int, bool> window_is_candidate_;
  std::unordered_map<std::uint32_t, int> window_of_correlation_;
  std::vector<Record> records_;
};

}  // namespace ptxbench::eval::gpu
