// Test candidate with a syntax error (a missing semicolon): must give COMPILE_ERROR carrying
// nvcc's message.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x
  if (i < n) x[i] *= 2.f;
}

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  scale<<<1, 32>>>(static_cast<float*>(a.data_ptr()), static_cast<int>(a.numel()));
  (void)b;
  (void)c;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
