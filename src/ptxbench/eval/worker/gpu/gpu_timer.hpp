// CUDA events as RAII objects, and a start/stop timer made of two of them.
#pragma once
#include <cuda_runtime.h>

#include <utility>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"

namespace ptxbench::eval::gpu {

// Invariant: holds a created event until destroyed or moved from.
class CudaEvent {
 public:
  CudaEvent() { PTXBENCH_CUDA_CHECK(cudaEventCreate(&event_)); }
  CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() {
    if (event_ != nullptr) PTXBENCH_CUDA_WARN(cudaEventDestroy(event_));
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { PTXBENCH_CUDA_CHECK(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_ = nullptr;
};

class EventTimer {
 public:
  void start(cudaStream_t stream) { start_.record(stream); }
  void stop(cudaStream_t stream) { stop_.record(stream); }
  // Waits for the stop event; milliseconds between the two.
  double elapsed_ms() const {
    PTXBENCH_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    PTXBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms;
  }
  double stop_ms(cudaStream_t stream) {
    stop(stream);
    return elapsed_ms();
  }

 private:
  CudaEvent start_;
  CudaEvent stop_;
};

// A blocking (non-default-flag) stream: work on the legacy default stream orders with it.
class CudaStream {
 public:
  CudaStream() { PTXBENCH_CUDA_CHECK(cudaStreamCreate(&stream_)); }
  CudaStream(CudaStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept {
    std::swap(stream_, o.stream_);
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() {
    if (stream_ != nullptr) PTXBENCH_CUDA_WARN(cudaStreamDestroy(stream_));
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace ptxbench::eval::gpu
