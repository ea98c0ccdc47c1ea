#include "ptxbench/eval/worker/gpu/device_info.hpp"

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <fmt/format.h>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/nvml_clocks.hpp"

namespace ptxbench::eval::gpu {
namespace {

std::string uuid_text(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    out += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

}  // namespace

worker::InfoReply query_device_info() {
  worker::InfoReply info;
  PTXBENCH_CUDA_CHECK(cudaGetDevice(&info.device));
  cudaDeviceProp prop{};
  PTXBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.device));
  info.name = prop.name;
  info.uuid = uuid_text(prop.uuid);
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  int clock_khz = 0;
  PTXBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.device));
  info.max_sm_clock_mhz = clock_khz / 1000;
  std::size_t free_bytes = 0, total_bytes = 0;
  PTXBENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  info.free_memory_bytes = static_cast<std::int64_t>(free_bytes);
  int cuda_driver_version = 0, cuda_runtime_version = 0;
  PTXBENCH_CUDA_CHECK(cudaDriverGetVersion(&cuda_driver_version));
  PTXBENCH_CUDA_CHECK(cudaRuntimeGetVersion(&cuda_runtime_version));
  const std::size_t cublaslt_version = cublasLtGetVersion();
  const std::size_t cudnn_version = cudnnGetVersion();
  NvmlDevice nvml(info.device);
  // "580.159.04" (NVML), else the CUDA driver API version.
  const std::string driver = nvml.driver_version().value_or(std::to_string(cuda_driver_version));
  info.fingerprint = fmt::format("{}|sm_{}{}|{}sms|driver {}|cuda {}|cublasLt {}|cudnn {}",
                                 info.name, info.cc_major, info.cc_minor, info.sm_count, driver,
                                 cuda_driver_version, cublaslt_version, cudnn_version);
  info.toolchain = {{"gpu", info.name},
                    {"gpu_uuid", info.uuid},
                    {"compute_capability", fmt::format("{}.{}", info.cc_major, info.cc_minor)},
                    {"driver", driver},
                    {"cuda_driver", std::to_string(cuda_driver_version)},
                    {"cuda_runtime", std::to_string(cuda_runtime_version)},
                    {"cublasLt", std::to_string(cublaslt_version)},
                    {"cudnn", std::to_string(cudnn_version)}};
  return info;
}

}  // namespace ptxbench::eval::gpu
