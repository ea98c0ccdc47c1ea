#include "ptxbench/eval/timing/gpu/kernel_trace.hpp"

#include <cupti_activity.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::gpu {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlignment = 8;
constexpr int kBackgroundWindow =
    -2;  // marks a launch outside every window, off the harness thread

std::atomic<KernelTrace*> active_trace{nullptr};

void cupti_check(CUptiResult result, const char* call) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  PTXBENCH_CHECK(false, std::string(call) + ": " + (text ? text : "CUPTI error"));
}

constexpr CUpti_ActivityKind kTracedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

void add_name(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

KernelTrace::KernelTrace() : harness_thread_(std::this_thread::get_id()) {
  KernelTrace* expected = nullptr;
  PTXBENCH_CHECK(active_trace.compare_exchange_strong(expected, this),
                 "only one KernelTrace per process");
  cupti_check(cuptiSubscribe(&subscriber_, &KernelTrace::on_api, this), "cuptiSubscribe");
  cupti_check(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain");
  cupti_check(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain");
  cupti_check(cuptiActivityRegisterCallbacks(&KernelTrace::on_buffer_requested,
                                             &KernelTrace::on_buffer_completed),
              "cuptiActivityRegisterCallbacks");
  for (auto kind : kTracedKinds) cupti_check(cuptiActivityEnable(kind), "cuptiActivityEnable");
}

KernelTrace::~KernelTrace() {
  cuptiActivityFlushAll(1);
  for (auto kind : kTracedKinds) cuptiActivityDisable(kind);
  cuptiUnsubscribe(subscriber_);
  active_trace.store(nullptr);
}

void KernelTrace::begin_window(int window, bool candidate) {
  {
    std::lock_guard lock(mutex_);
    window_is_candidate_[window] = candidate;
  }
  current_window_is_candidate_.store(candidate);  // before the window opens: on_api reads it after
  current_window_.store(window);
}

void KernelTrace::end_window() {
  current_window_.store(-1);
}

void CUPTIAPI KernelTrace::on_api(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId /*id*/,
                                  const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  auto* self = static_cast<KernelTrace*>(user);
  int window = self->current_window_.load();
  bool harness_thread = std::this_thread::get_id() == self->harness_thread_;
  if (window < 0 && harness_thread) return;  // the harness's own work
  // Off the harness thread and outside the candidate's call (between calls, or while the
  // baseline runs: cuBLASLt and cuDNN launch from the calling thread): the candidate's
  // background work.
  if (!harness_thread && (window < 0 || !self->current_window_is_candidate_.load()))
    window = kBackgroundWindow;
  std::lock_guard lock(self->mutex_);
  self->window_of_correlation_[info->correlationId] = window;
}

void CUPTIAPI KernelTrace::on_buffer_requested(std::uint8_t** buffer, size_t* size,
                                               size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI KernelTrace::on_buffer_completed(CUcontext /*context*/, std::uint32_t /*stream*/,
                                               std::uint8_t* buffer, size_t /*size*/,
                                               size_t valid) {
  if (KernelTrace* trace = active_trace.load()) trace->take_buffer(buffer, valid);
  std::free(buffer);
}

namespace {

KernelLaunch launch_of(const CUpti_ActivityKernel10& k) {
  KernelLaunch launch{.name = k.name ? k.name : "",
                      .registers_per_thread = k.registersPerThread,
                      .static_shared_bytes = k.staticSharedMemory,
                      .dynamic_shared_bytes = k.dynamicSharedMemory,
                      .grid = {k.gridX, k.gridY, k.gridZ},
                      .block = {k.blockX, k.blockY, k.blockZ},
                      .cluster = {static_cast<int>(k.clusterX), static_cast<int>(k.clusterY),
                                  static_cast<int>(k.clusterZ)}};
  const CUaccessPolicyWindow* window = k.pAccessPolicyWindow;
  if (window != nullptr && window->num_bytes > 0 && window->hitRatio > 0 &&
      window->hitProp == CU_ACCESS_PROPERTY_PERSISTING)
    launch.persisting_window_bytes = window->num_bytes;
  return launch;
}

}  // namespace

void KernelTrace::take_buffer(std::uint8_t* buffer, size_t valid) {
  std::lock_guard lock(mutex_);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    Record r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r = Record{k->correlationId,
                   static_cast<std::int64_t>(k->start),
                   static_cast<std::int64_t>(k->end),
                   k->streamId,
                   true,
                   launch_of(*k)};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        r = Record{m->correlationId,
                   static_cast<std::int64_t>(m->start),
                   static_cast<std::int64_t>(m->end),
                   m->streamId,
                   false,
                   {}};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r = Record{m->correlationId,
                   static_cast<std::int64_t>(m->start),
                   static_cast<std::int64_t>(m->end),
                   m->streamId,
                   false,
                   {}};
        break;
      }
      default:
        continue;
    }
    records_.push_back(std::move(r));
  }
}

int KernelTrace::window_for_background_launch() const {
  // The candidate's most recent call: the one whose time the background work disturbs.
  for (auto it = window_is_candidate_.rbegin(); it != window_is_candidate_.rend(); ++it) {
    if (it->second) return it->first;
  }
  return -1;
}

std::uint32_t KernelTrace::stream_id(CUstream stream) const {
  std::uint32_t id = 0;
  cupti_check(cuptiGetStreamIdEx(nullptr, stream, /*perThreadStream=*/0, &id),
              "cuptiGetStreamIdEx");
  return id;
}

std::map<int, WindowActivity> KernelTrace::collect() {
  cuptiActivityFlushAll(1);
  std::lock_guard lock(mutex_);
  std::map<int, WindowActivity> out;
  for (auto& r : records_) {
    auto found = window_of_correlation_.find(r.correlation);
    if (found == window_of_correlation_.end()) continue;  // the harness's own work
    bool background = found->second == kBackgroundWindow;
    int window = background ? window_for_background_launch() : found->second;
    if (window < 0) continue;
    WindowActivity& w = out[window];
    w.candidate = window_is_candidate_[window];
    auto stream = std::find_if(w.streams.begin(), w.streams.end(),
                               [&](const auto& s) { return s.stream_id == r.stream_id; });
    if (stream == w.streams.end())
      stream = w.streams.insert(w.streams.end(), worker::StreamWork{.stream_id = r.stream_id});
    if (background) ++stream->background_launches;
    bool first = w.kernels == 0 && w.memory_operations == 0;
    w.first_start_ns = first ? r.start_ns : std::min(w.first_start_ns, r.start_ns);
    w.last_end_ns = first ? r.end_ns : std::max(w.last_end_ns, r.end_ns);
    if (r.is_kernel) {
      ++w.kernels;
      ++stream->kernels;
      add_name(w.kernel_names, r.launch.name);
      add_name(stream->kernel_names, r.launch.name);
      w.launches.push_back(r.launch);
    } else {
      ++w.memory_operations;
      ++stream->memory_operations;
    }
  }
  records_.clear();
  return out;
}

}  // namespace ptxbench::eval::gpu
