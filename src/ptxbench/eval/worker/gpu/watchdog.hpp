// A deadline for one step of a worker (a candidate's call and the wait for its kernels). When
// the step overruns, the watchdog prints the worker's TIMEOUT reply and ends the process at
// once: a hung kernel cannot be interrupted from the host, and ending the process is what
// frees the GPU (the parent's process deadline stays the backstop).
// Invariant: the watcher thread runs exactly while the object lives.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ptxbench::eval::gpu {

class Watchdog {
 public:
  Watchdog(std::chrono::milliseconds deadline, std::string what);
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog();  // disarms

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool disarmed_ = false;
  std::thread watcher_;
};

// Waits for all work of the device (every stream). Returns the CUDA error text, or "" when
// the work finished cleanly.
std::string synchronize_device();

}  // namespace ptxbench::eval::gpu
