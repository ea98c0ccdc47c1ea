// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=PASSED
// Test fixture: an embedded fence block whose copy drifted from solutions/ptx/fence.cuh (the
// proxy fence was weakened by hand). solutions_copies_test must reject it.
// ptx-begin: fence
namespace ptx {

__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async;\n" ::: "memory");
}

}  // namespace ptx
// ptx-end: fence
