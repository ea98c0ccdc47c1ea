// Test candidate: a run() with no device code at all, as weak models write it: it copies the
// inputs to the host and multiplies there. It compiles to no kernel, so the static stage decides
// it (INSTRUCTIONS_ABSENT, "no device code") on any machine.
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <vector>

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  const auto bytes = [](tvm::ffi::TensorView t) {
    std::size_t n = 2;
    for (int i = 0; i < t.ndim(); ++i) n *= static_cast<std::size_t>(t.size(i));
    return n;
  };
  std::vector<std::uint16_t> host(bytes(a) / 2);
  cudaMemcpy(host.data(), a.data_ptr(), bytes(a), cudaMemcpyDeviceToHost);
  (void)b;
  cudaMemcpy(c.data_ptr(), host.data(), std::min(bytes(a), bytes(c)), cudaMemcpyHostToDevice);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
