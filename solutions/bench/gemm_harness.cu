// Standalone check-and-time harness for single-file GEMM candidates (C = A·Bᵀ, bf16, row-major),
// for use until `ptxbench eval` runs on the GPU. It loads one candidate .so built exactly as the
// compile stage builds it, calls its TVM-FFI `run` through the C ABI, and compares it with
// cuBLASLt (bf16 TN, best of the heuristic's algorithms, timed here) on every workload:
//   correctness: 3 trials, alternating between two buffer sets (different addresses, different
//     random data), outputs poisoned with NaN before every call, every element checked with the
//     PTXBench rule (bad when |x-y| > atol and |x-y|/(|y|+1e-8) > rtol, atol = rtol = 1e-2);
//   timing: candidate and cuBLASLt interleaved, L2 flushed (memset of twice its size) before
//     every sample, CUDA events, median of the samples.
// Usage: gemm_harness [--check-only] [--samples N] [--shapes N:K,...] [--ms M,...] label=file.so
// Prints one row per workload and geometric means of cuBLASLt time / candidate time.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                \
  do {                                                                  \
    cudaError_t status_ = (call);                                       \
    if (status_ != cudaSuccess) {                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(status_));                        \
      std::exit(2);                                                     \
    }                                                                   \
  } while (0)
#define CHECK_CUBLAS(call)                                                            \
  do {                                                                                \
    cublasStatus_t status_ = (call);                                                  \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "%s:%d %s: cublas status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(status_));                                        \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

using bf16 = __nv_bfloat16;
using SafeCall = int (*)(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);

struct Shape {
  int64_t n, k;
};

// The gemm_n{N}_k{K} family of tasks/gemm/ (N, K) and its workload M values.
const std::vector<Shape> kDefaultShapes = {
    {7168, 5120},  {128, 2048},   {256, 7168},   {2048, 4096},  {2048, 5376},  {4096, 4096},
    {4096, 5376},  {4096, 14336}, {5120, 2048},  {5120, 5120},  {5120, 17408}, {5376, 4096},
    {5376, 21504}, {6144, 4096},  {21504, 5376}, {28672, 4096}, {34816, 5120}};
const std::vector<int64_t> kDefaultMs = {70, 232, 972, 2379, 8192, 8828};

__global__ void fill_random(bf16* data, int64_t count, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ seed ^ static_cast<uint32_t>(i >> 32);
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    data[i] = __float2bfloat16(static_cast<float>(h) * (2.0f / 4294967296.0f) - 1.0f);
  }
}

struct CompareCounts {
  unsigned long long bad;
  unsigned long long nan_or_inf;
  unsigned int max_abs_error_bits;  // a non-negative float's bits order like the float
  unsigned long long first_bad;
};

__global__ void compare(const bf16* got, const bf16* want, int64_t count, CompareCounts* out) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const float x = __bfloat162float(got[i]);
    const float y = __bfloat162float(want[i]);
    const float diff = fabsf(x - y);
    const bool finite = isfinite(x);
    if (!finite) atomicAdd(&out->nan_or_inf, 1ull);
    if (!finite || (diff > 1e-2f && diff / (fabsf(y) + 1e-8f) > 1e-2f)) {
      atomicAdd(&out->bad, 1ull);
      atomicMin(&out->first_bad, static_cast<unsigned long long>(i));
    }
    if (finite) atomicMax(&out->max_abs_error_bits, __float_as_uint(diff));
  }
}

struct Candidate {
  std::string label;
  SafeCall run = nullptr;
};

// Calls run(A, B, C) through the TVM-FFI C ABI; returns the error text, empty on success.
std::string call_candidate(const Candidate& cand, bf16* a, bf16* b, bf16* c, int64_t m, int64_t n,
                           int64_t k) {
  int64_t shape_a[2] = {m, k}, shape_b[2] = {n, k}, shape_c[2] = {m, n};
  const DLDataType dtype{kDLBfloat, 16, 1};
  const DLDevice device{kDLCUDA, 0};
  DLTensor tensors[3] = {{a, device, 2, dtype, shape_a, nullptr, 0},
                         {b, device, 2, dtype, shape_b, nullptr, 0},
                         {c, device, 2, dtype, shape_c, nullptr, 0}};
  TVMFFIAny args[3];
  for (int i = 0; i < 3; ++i) {
    std::memset(&args[i], 0, sizeof(TVMFFIAny));
    args[i].type_index = kTVMFFIDLTensorPtr;
    args[i].v_ptr = &tensors[i];
  }
  TVMFFIAny result;
  std::memset(&result, 0, sizeof(result));
  if (cand.run(nullptr, args, 3, &result) == 0) return {};
  TVMFFIObjectHandle error = nullptr;
  TVMFFIErrorMoveFromRaised(&error);
  if (error == nullptr) return "run() failed without an error object";
  const auto* cell = reinterpret_cast<const TVMFFIErrorCell*>(reinterpret_cast<const char*>(error) +
                                                              sizeof(TVMFFIObject));
  std::string text(cell->kind.data, cell->kind.size);
  text += ": ";
  text.append(cell->message.data, cell->message.size);
  TVMFFIObjectDecRef(error);
  return text;
}

// cuBLASLt bf16 GEMM in the row-major C = A·Bᵀ convention: column-major Cᵀ[N,M] = B·Aᵀ, i.e.
// op(B) = T on the K x N column-major view of B, op(A) = N on the K x M view of A.
class CublasGemm {
 public:
  CublasGemm(cublasLtHandle_t handle, void* workspace, size_t workspace_bytes, int64_t m, int64_t n,
             int64_t k)
      : handle_(handle), workspace_(workspace), workspace_bytes_(workspace_bytes) {
    CHECK_CUBLAS(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
    CHECK_CUBLAS(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof(trans)));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans,
                                                sizeof(no_trans)));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_b_, CUDA_R_16BF, k, n, k));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_16BF, k, m, k));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&layout_c_, CUDA_R_16BF, n, m, n));
  }
  ~CublasGemm() {
    cublasLtMatrixLayoutDestroy(layout_c_);
    cublasLtMatrixLayoutDestroy(layout_a_);
    cublasLtMatrixLayoutDestroy(layout_b_);
    cublasLtMatmulDescDestroy(op_);
  }
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // Times each heuristic algorithm (warm L2, median of 3) and keeps the fastest.
  void choose_algorithm(const bf16* a, const bf16* b, bf16* c, cudaStream_t stream) {
    cublasLtMatmulPreference_t pref;
    CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref,
                                                      CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes_, sizeof(workspace_bytes_)));
    cublasLtMatmulHeuristicResult_t results[8];
    int found = 0;
    CHECK_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle_, op_, layout_b_, layout_a_, layout_c_,
                                                layout_c_, pref, 8, results, &found));
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt found no algorithm\n");
      std::exit(2);
    }
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    float best = 1e30f;
    for (int i = 0; i < found; ++i) {
      algo_ = results[i].algo;
      std::vector<float> times;
      for (int rep = 0; rep < 4; ++rep) {
        CHECK_CUDA(cudaEventRecord(start, stream));
        if (!launch(a, b, c, stream)) break;
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (rep > 0) times.push_back(ms);
      }
      if (times.size() < 3) continue;
      std::sort(times.begin(), times.end());
      if (times[1] < best) {
        best = times[1];
        best_index_ = i;
      }
    }
    algo_ = results[best_index_].algo;
    algorithms_tried_ = found;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }

  bool launch(const bf16* a, const bf16* b, bf16* c, cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasLtMatmul(handle_, op_, &alpha, b, layout_b_, a, layout_a_, &beta, c, layout_c_, c,
                          layout_c_, &algo_, workspace_, workspace_bytes_,
                          stream) == CUBLAS_STATUS_SUCCESS;
  }

 private:
  cublasLtHandle_t handle_;
  void* workspace_;
  size_t workspace_bytes_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  int best_index_ = 0;
  int algorithms_tried_ = 0;
};

struct Options {
  bool check_only = false;
  int samples = 20;
  std::vector<Shape> shapes = kDefaultShapes;
  std::vector<int64_t> ms = kDefaultMs;
  Candidate candidate;
  std::string path;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check-only") {
      options.check_only = true;
    } else if (arg == "--samples" && i + 1 < argc) {
      options.samples = std::atoi(argv[++i]);
    } else if (arg == "--shapes" && i + 1 < argc) {
      options.shapes.clear();
      for (const auto& item : split(argv[++i], ',')) {
        const auto nk = split(item, ':');
        if (nk.size() != 2) {
          std::fprintf(stderr, "bad shape %s (want N:K)\n", item.c_str());
          std::exit(2);
        }
        options.shapes.push_back({std::atoll(nk[0].c_str()), std::atoll(nk[1].c_str())});
      }
    } else if (arg == "--ms" && i + 1 < argc) {
      options.ms.clear();
      for (const auto& item : split(argv[++i], ',')) options.ms.push_back(std::atoll(item.c_str()));
    } else if (arg.find('=') != std::string::npos && arg[0] != '-') {
      options.candidate.label = arg.substr(0, arg.find('='));
      options.path = arg.substr(arg.find('=') + 1);
    } else {
      std::fprintf(stderr,
                   "usage: gemm_harness [--check-only] [--samples N] [--shapes N:K,...] "
                   "[--ms M,...] label=candidate.so\n");
      std::exit(2);
    }
  }
  if (options.path.empty()) {
    std::fprintf(stderr, "no candidate given\n");
    std::exit(2);
  }
  return options;
}

float median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse_options(argc, argv);
  void* library = dlopen(options.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen %s: %s\n", options.path.c_str(), dlerror());
    return 2;
  }
  options.candidate.run = reinterpret_cast<SafeCall>(dlsym(library, "__tvm_ffi_run"));
  if (options.candidate.run == nullptr) {
    std::fprintf(stderr, "%s exports no __tvm_ffi_run\n", options.path.c_str());
    return 2;
  }

  CHECK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  std::printf("# device %s, %d SMs, L2 %d MB, driver API %d, candidate %s (%s)\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, driver,
              options.candidate.label.c_str(), options.path.c_str());

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if (TVMFFIEnvSetStream(kDLCUDA, 0, stream, nullptr) != 0) {
    std::fprintf(stderr, "TVMFFIEnvSetStream failed\n");
    return 2;
  }
  cublasLtHandle_t handle;
  CHECK_CUBLAS(cublasLtCreate(&handle));
  const size_t workspace_bytes = size_t{64} << 20;
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  const size_t flush_bytes = size_t{2} * prop.l2CacheSize;
  void* flush = nullptr;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  CompareCounts* device_counts = nullptr;
  CHECK_CUDA(cudaMalloc(&device_counts, sizeof(CompareCounts)));
  CompareCounts host_counts{};
  CompareCounts* counts = &host_counts;
  cudaEvent_t events[4];
  for (auto& e : events) CHECK_CUDA(cudaEventCreate(&e));

  std::printf("%-18s %6s %6s %6s  %9s %9s  %8s %8s  %6s  %s\n", "shape", "M", "N", "K", "cand_ms",
              "cublas_ms", "cand_TF", "cublas_TF", "ratio", "check");
  double log_ratio_large = 0, log_ratio_all = 0;
  int count_large = 0, count_all = 0, failures = 0;
  uint32_t seed = 1;
  for (const Shape& shape : options.shapes) {
    for (const int64_t m : options.ms) {
      const int64_t n = shape.n, k = shape.k;
      bf16 *a[2], *b[2], *c[2], *ref[2];
      for (int set = 0; set < 2; ++set) {
        CHECK_CUDA(cudaMalloc(&a[set], m * k * sizeof(bf16)));
        CHECK_CUDA(cudaMalloc(&b[set], n * k * sizeof(bf16)));
        CHECK_CUDA(cudaMalloc(&c[set], m * n * sizeof(bf16)));
        CHECK_CUDA(cudaMalloc(&ref[set], m * n * sizeof(bf16)));
        fill_random<<<1024, 256, 0, stream>>>(a[set], m * k, seed++ * 0x1234567u);
        fill_random<<<1024, 256, 0, stream>>>(b[set], n * k, seed++ * 0x7654321u);
      }
      CHECK_CUDA(cudaGetLastError());
      CublasGemm cublas(handle, workspace, workspace_bytes, m, n, k);
      cublas.choose_algorithm(a[0], b[0], ref[0], stream);
      for (int set = 0; set < 2; ++set) {
        if (!cublas.launch(a[set], b[set], ref[set], stream)) {
          std::fprintf(stderr, "cuBLASLt reference failed\n");
          return 2;
        }
      }

      // Correctness: three trials, alternating buffer sets, NaN-poisoned outputs.
      std::string verdict = "ok";
      for (int trial = 0; trial < 3 && verdict == "ok"; ++trial) {
        const int set = trial % 2;
        CHECK_CUDA(cudaMemsetAsync(c[set], 0xFF, m * n * sizeof(bf16), stream));
        const std::string error =
            call_candidate(options.candidate, a[set], b[set], c[set], m, n, k);
        if (!error.empty()) {
          verdict = "run() error: " + error;
          break;
        }
        const cudaError_t status = cudaStreamSynchronize(stream);
        if (status != cudaSuccess) {
          std::printf("%-18s %6ld: CUDA error %s (context lost, stopping)\n", "", long(m),
                      cudaGetErrorString(status));
          return 3;
        }
        host_counts = CompareCounts{0, 0, 0, ~0ull};
        CHECK_CUDA(cudaMemcpyAsync(device_counts, &host_counts, sizeof(CompareCounts),
                                   cudaMemcpyHostToDevice, stream));
        compare<<<1024, 256, 0, stream>>>(c[set], ref[set], m * n, device_counts);
        CHECK_CUDA(cudaMemcpyAsync(&host_counts, device_counts, sizeof(CompareCounts),
                                   cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        if (counts->bad != 0) {
          float max_error;
          std::memcpy(&max_error, &counts->max_abs_error_bits, sizeof(float));
          char text[256];
          std::snprintf(text, sizeof(text),
                        "WRONG trial %d: %llu bad (%llu NaN/Inf), first at row %lld col %lld, "
                        "max |err| %.3g",
                        trial, counts->bad, counts->nan_or_inf,
                        static_cast<long long>(counts->first_bad / n),
                        static_cast<long long>(counts->first_bad % n), max_error);
          verdict = text;
        }
      }

      float cand_ms = NAN, cublas_ms = NAN;
      if (verdict == "ok" && !options.check_only) {
        std::vector<float> cand_times, cublas_times;
        for (int sample = 0; sample < options.samples + 2; ++sample) {
          const int set = sample % 2;
          CHECK_CUDA(cudaMemsetAsync(flush, sample & 0xFF, flush_bytes, stream));
          CHECK_CUDA(cudaEventRecord(events[0], stream));
          call_candidate(options.candidate, a[set], b[set], c[set], m, n, k);
          CHECK_CUDA(cudaEventRecord(events[1], stream));
          CHECK_CUDA(cudaMemsetAsync(flush, (sample + 1) & 0xFF, flush_bytes, stream));
          CHECK_CUDA(cudaEventRecord(events[2], stream));
          cublas.launch(a[set], b[set], c[set], stream);
          CHECK_CUDA(cudaEventRecord(events[3], stream));
          CHECK_CUDA(cudaEventSynchronize(events[3]));
          float t0 = 0, t1 = 0;
          CHECK_CUDA(cudaEventElapsedTime(&t0, events[0], events[1]));
          CHECK_CUDA(cudaEventElapsedTime(&t1, events[2], events[3]));
          if (sample >= 2) {  // the first two are warm-up
            cand_times.push_back(t0);
            cublas_times.push_back(t1);
          }
        }
        cand_ms = median(cand_times);
        cublas_ms = median(cublas_times);
      }
      const double flop = 2.0 * m * n * k;
      const double ratio = cublas_ms / cand_ms;
      char name[32];
      std::snprintf(name, sizeof(name), "gemm_n%ld_k%ld", long(n), long(k));
      std::printf("%-18s %6ld %6ld %6ld  %9.4f %9.4f  %8.1f %8.1f  %6.3f  %s\n", name, long(m),
                  long(n), long(k), cand_ms, cublas_ms, flop / cand_ms * 1e-9,
                  flop / cublas_ms * 1e-9, ratio, verdict.c_str());
      std::fflush(stdout);
      if (verdict != "ok") ++failures;
      if (std::isfinite(ratio)) {
        log_ratio_all += std::log(ratio);
        ++count_all;
        if (m >= 8192) {
          log_ratio_large += std::log(ratio);
          ++count_large;
        }
      }
      for (int set = 0; set < 2; ++set) {
        cudaFree(a[set]);
        cudaFree(b[set]);
        cudaFree(c[set]);
        cudaFree(ref[set]);
      }
    }
  }
  if (count_all > 0) {
    std::printf(
        "# %s: geomean cuBLASLt/candidate time: M>=8192 %.3f (%d workloads), all %.3f (%d)\n",
        options.candidate.label.c_str(),
        count_large ? std::exp(log_ratio_large / count_large) : NAN, count_large,
        std::exp(log_ratio_all / count_all), count_all);
  }
  std::printf("# %s: %d workload(s) failed the check\n", options.candidate.label.c_str(), failures);
  return failures == 0 ? 0 : 1;
}
