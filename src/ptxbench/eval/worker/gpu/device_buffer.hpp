// Device memory owned by one object: cudaMalloc on construction, cudaFree on destruction.
// Invariant: data() is null exactly when bytes() is 0 or the buffer was moved from.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) PTXBENCH_CUDA_CHECK(cudaMalloc(&data_, bytes_));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Out of device memory (or any allocation failure) as a value, for sizes a workload asks for.
  static util::Expected<DeviceBuffer> try_allocate(std::size_t bytes) {
    DeviceBuffer buffer;
    if (bytes == 0) return util::Expected<DeviceBuffer>(std::move(buffer));
    cudaError_t status = cudaMalloc(&buffer.data_, bytes);
    if (status != cudaSuccess) {
      cudaGetLastError();  // clear the (non-sticky) allocation error
      return util::make_error("cannot allocate " + std::to_string(bytes) +
                              " bytes on the GPU: " + cuda_error_text(status));
    }
    buffer.bytes_ = bytes;
    return util::Expected<DeviceBuffer>(std::move(buffer));
  }

  void* data() const { return data_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) PTXBENCH_CUDA_WARN(cudaFree(data_));
    data_ = nullptr;
    bytes_ = 0;
  }

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace ptxbench::eval::gpu
