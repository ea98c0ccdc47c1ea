#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_info.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

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
  print_reply(worker::ReplyStatus::kOk, "", worker::to_json(query_device_info()));
  return 0;
}

}  // namespace ptxbench::eval::gpu
