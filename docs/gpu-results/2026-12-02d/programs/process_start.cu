// What every GPU-stage process pays before its first useful launch: the CUDA context, cuBLASLt
// and cuDNN handles (benchmarks/device/tool-facts.sh).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <chrono>
#include <cstdio>

using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int main() {
  auto t = Clock::now();
  cudaFree(nullptr);
  std::printf("context_ms %.1f\n", ms_since(t));
  t = Clock::now();
  cublasLtHandle_t lt = nullptr;
  cublasLtCreate(&lt);
  std::printf("cublaslt_create_ms %.1f\n", ms_since(t));
  t = Clock::now();
  void* cudnn = dlopen("libcudnn.so.9", RTLD_NOW);
  using Create = int (*)(void**);
  void* handle = nullptr;
  if (cudnn != nullptr) {
    auto create = reinterpret_cast<Create>(dlsym(cudnn, "cudnnCreate"));
    if (create != nullptr) create(&handle);
  }
  std::printf("cudnn_create_ms %.1f (%s)\n", ms_since(t), cudnn ? "loaded" : dlerror());
  t = Clock::now();
  void* buffer = nullptr;
  cudaMalloc(&buffer, 1ull << 30);
  cudaMemset(buffer, 0, 1ull << 30);
  cudaDeviceSynchronize();
  std::printf("alloc_and_clear_1GiB_ms %.1f\n", ms_since(t));
  return 0;
}
