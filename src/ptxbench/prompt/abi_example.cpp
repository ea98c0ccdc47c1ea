#include "ptxbench/prompt/abi_example.hpp"

namespace ptxbench::prompt {
namespace {
constexpr std::string_view kAbiExample = R"cuda(#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

using tvm::ffi::TensorView;

// out[i] = a[i] + b[i] over every element (bf16 in and out, fp32 arithmetic).
__global__ void add_kernel(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                           __nv_bfloat16* __restrict__ out, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));
}

// Destination passing: the inputs in task order, then the preallocated outputs. Returns nothing.
void run(TensorView a, TensorView b, TensorView out) {
  if (a.numel() != out.numel() || b.numel() != out.numel()) {
    TVM_FFI_THROW(ValueError) << "a, b and out must have the same number of elements";
  }
  const int64_t n = out.numel();
  DLDevice device = out.device();
  // Launch on the caller's stream: the harness synchronises and times that stream.
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(device.device_type, device.device_id));
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  add_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(a.data_ptr()),
                                              static_cast<const __nv_bfloat16*>(b.data_ptr()),
                                              static_cast<__nv_bfloat16*>(out.data_ptr()), n);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
}

// Exports the symbol __tvm_ffi_run, which the harness loads and calls.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
)cuda";
}  // namespace

std::string_view abi_example() {
  return kAbiExample;
}

}  // namespace ptxbench::prompt
