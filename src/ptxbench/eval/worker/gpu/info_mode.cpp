#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_info.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"
#include "ptxbench/eval/worker/info_protocol.hpp"

namespace ptxbench::eval::gpu {

int run_info_mode() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    print_reply(worker::ReplyStatus::kUnsupported,
                status != cudaSuccess ? "no usable GPU: " + cuda_error_text(status) : "no GPU");
    return 0;
  }
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  DeviceInfo info = query_device_info();
  const worker::InfoReply reply{.device = info.device,
                                .name = info.name,
                                .uuid = info.uuid,
                                .cc_major = info.cc_major,
                                .cc_minor = info.cc_minor,
                                .sm_count = info.sm_count,
                                .l2_bytes = info.l2_bytes,
                                .memory_bytes = info.memory_bytes,
                                .free_memory_bytes = info.free_memory_bytes,
                                .max_sm_clock_mhz = info.max_sm_clock_mhz,
                                .fingerprint = info.fingerprint(),
                                .toolchain = info.as_toolchain()};
  print_reply(worker::ReplyStatus::kOk, "", worker::to_json(reply));
  return 0;
}

}  // namespace ptxbench::eval::gpu
