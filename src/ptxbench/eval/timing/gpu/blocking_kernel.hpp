// nvbench's blocking kernel: a kernel that spins on a flag in host-mapped memory holds the
// stream while the host enqueues the L2 flush, the events and the timed call behind it, so
// launch overhead stays out of the measurement. If the timed call synchronises (the host then
// waits on the spinning kernel), the spin gives up after a timeout and says so; the caller
// then stops using it.
// Invariant: flag_ and timed_out_ point into one mapped host allocation owned by this object.
#pragma once
#include <cuda_runtime.h>

#include <chrono>

namespace ptxbench::eval::gpu {

class BlockingKernel {
 public:
  explicit BlockingKernel(std::chrono::milliseconds timeout = std::chrono::milliseconds(500));
  BlockingKernel(const BlockingKernel&) = delete;
  BlockingKernel& operator=(const BlockingKernel&) = delete;
  ~BlockingKernel();

  void block(cudaStream_t stream);  // enqueues the spinning kernel
  void release();                   // lets it finish
  // After the stream was synchronised: whether the last spin ended by timeout.
  bool timed_out() const;

 private:
  volatile int* host_ = nullptr;  // [0]: release flag, [1]: timed-out flag
  int* device_ = nullptr;
  std::chrono::milliseconds timeout_;
};

}  // namespace ptxbench::eval::gpu
