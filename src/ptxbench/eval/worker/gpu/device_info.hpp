// What the worker's GPU and libraries are: for `available()`, for the record (toolchain map)
// and as the part of every baseline cache key that says "this machine, these libraries".
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace ptxbench::eval::gpu {

struct DeviceInfo {
  int device = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t free_memory_bytes = 0;
  int max_sm_clock_mhz = 0;     // cudaDevAttrClockRate
  std::string driver;           // "580.159.04" (NVML), else the CUDA driver API version
  int cuda_driver_version = 0;  // 13000
  int cuda_runtime_version = 0;
  std::size_t cublaslt_version = 0;
  std::size_t cudnn_version = 0;

  // Everything that determines a baseline's algorithm choice, as one string.
  std::string fingerprint() const;
  std::map<std::string, std::string> as_toolchain() const;
};

// Queries the current CUDA device (creates the context).
DeviceInfo query_device_info();

}  // namespace ptxbench::eval::gpu
