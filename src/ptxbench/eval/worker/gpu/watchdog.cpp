#include "ptxbench/eval/worker/gpu/watchdog.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {

Watchdog::Watchdog(std::chrono::milliseconds deadline, std::string what) {
  watcher_ = std::thread([this, deadline, what = std::move(what)] {
    std::unique_lock lock(mutex_);
    if (done_.wait_for(lock, deadline, [this] { return disarmed_; })) return;
    print_reply(worker::ReplyStatus::kTimeout,
                fmt::format("{} did not finish within {:.1f} s", what, deadline.count() / 1000.0));
    std::_Exit(0);
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  done_.notify_all();
  watcher_.join();
}

std::string synchronize_device() {
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  return status == cudaSuccess ? std::string() : cuda_error_text(status);
}

}  // namespace ptxbench::eval::gpu
