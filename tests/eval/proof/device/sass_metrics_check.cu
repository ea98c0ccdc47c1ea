// Device check of SassMetricsSession without the rest of ptxbench: runs one scenario of small
// kernels under SASS metrics (the session observes the first kernel function launched after
// arm()) and prints what CUPTI reported, one line per record, for run_device_check.sh.
//
//   sass_metrics_check <scenario> [cubin-file ...]
// scenarios: wgmma (TMA+wgmma GEMM, launched 3x), ffma, untaken (wgmma behind a false flag),
//            single (one wgmma beside an FFMA loop), seq (ffma, wgmma, ffma, wgmma), plain (seq
//            without any CUPTI session: for ncu), dso (an FFMA kernel in the shared object named
//            by $SASS_CHECK_DSO, opened after the session exists)
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hopper_tile.cuh"
#include "ptxbench/eval/proof/gpu/sass_metrics.hpp"

namespace ptxbench::util {
[[noreturn]] void throw_check_failure(const char* file, int line, const std::string& what) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what);
}
// The overload PTXBENCH_CHECK calls (util/check.hpp).
[[noreturn]] void throw_check_failure(const char* file, int line, const char* condition,
                                      std::string_view message) {
  throw_check_failure(file, line, std::string(condition) + ": " + std::string(message));
}
}  // namespace ptxbench::util

using hopper_tile::SharedTile;

// extern "C": a readable name in the records.
extern "C" __global__ void __launch_bounds__(128)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, float* c, int n, int k) {
  __shared__ SharedTile s;
  hopper_tile::tile_tma_wgmma(s, &map_a, &map_b, c, n, k);
}

namespace {

__global__ void gemm_ffma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                          int k) {
  hopper_tile::element_ffma(a, b, c, m, n, k);
}

// Tensor-core path present in the binary, but the flag is always 0 at run time.
__global__ void __launch_bounds__(128)
    gemm_untaken_wgmma(const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b, const __nv_bfloat16* a,
                       const __nv_bfloat16* b, float* c, int m, int n, int k,
                       int use_tensor_cores) {
  __shared__ SharedTile s;
  if (use_tensor_cores) {
    hopper_tile::tile_tma_wgmma(s, &map_a, &map_b, c, n, k);
    return;
  }
  for (int t = threadIdx.x; t < hopper_tile::kTileM * hopper_tile::kTileN; t += blockDim.x) {
    const int row = blockIdx.y * hopper_tile::kTileM + t / hopper_tile::kTileN;
    const int col = blockIdx.x * hopper_tile::kTileN + t % hopper_tile::kTileN;
    float sum = 0.f;
    for (int i = 0; i < k; ++i) {
      sum = fmaf(__bfloat162float(a[static_cast<int64_t>(row) * k + i]),
                 __bfloat162float(b[static_cast<int64_t>(col) * k + i]), sum);
    }
    c[static_cast<int64_t>(row) * n + col] = sum;
  }
}

// The whole product by FFMA, plus one wgmma per CTA on a zeroed tile whose result is dropped.
__global__ void __launch_bounds__(128)
    gemm_ffma_one_wgmma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                        int k, float* sink) {
  __shared__ SharedTile s;
  for (int t = threadIdx.x; t < hopper_tile::kTileM * hopper_tile::kTileK; t += blockDim.x) {
    s.a[t] = __float2bfloat16(0.f);
    s.b[t] = __float2bfloat16(0.f);
  }
  __syncthreads();
  float d[32] = {};
  hopper_tile::wgmma_fence();
  hopper_tile::wgmma_m64n64k16(d, hopper_tile::wgmma_descriptor(s.a),
                               hopper_tile::wgmma_descriptor(s.b), false);
  hopper_tile::wgmma_commit();
  hopper_tile::wgmma_wait_all();
  if (d[0] != 0.f) sink[threadIdx.x] = d[0];
  for (int t = threadIdx.x; t < hopper_tile::kTileM * hopper_tile::kTileN; t += blockDim.x) {
    const int row = blockIdx.y * hopper_tile::kTileM + t / hopper_tile::kTileN;
    const int col = blockIdx.x * hopper_tile::kTileN + t % hopper_tile::kTileN;
    float sum = 0.f;
    for (int i = 0; i < k; ++i) {
      sum = fmaf(__bfloat162float(a[static_cast<int64_t>(row) * k + i]),
                 __bfloat162float(b[static_cast<int64_t>(col) * k + i]), sum);
    }
    c[static_cast<int64_t>(row) * n + col] = sum;
  }
}

void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
    std::exit(2);
  }
}

CUtensorMap make_map(const __nv_bfloat16* base, int rows, int cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(__nv_bfloat16)};
  const cuuint32_t box[2] = {hopper_tile::kTileK, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(base), dims, strides,
      box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(result));
    std::exit(2);
  }
  return map;
}

struct Problem {
  int m = 128, n = 128, k = 256;
  std::vector<__nv_bfloat16> a, b;
  __nv_bfloat16* da = nullptr;
  __nv_bfloat16* db = nullptr;
  float* dc = nullptr;
  float* sink = nullptr;
  CUtensorMap map_a{}, map_b{};

  Problem() {
    a.resize(static_cast<size_t>(m) * k);
    b.resize(static_cast<size_t>(n) * k);
    unsigned state = 12345;
    auto next = [&state] {
      state = state * 1664525u + 1013904223u;
      return static_cast<float>((state >> 8) & 0xFFFF) / 65536.f - 0.5f;
    };
    for (auto& x : a) x = __float2bfloat16(next());
    for (auto& x : b) x = __float2bfloat16(next());
    check_cuda(cudaMalloc(&da, a.size() * sizeof(a[0])), "malloc a");
    check_cuda(cudaMalloc(&db, b.size() * sizeof(b[0])), "malloc b");
    check_cuda(cudaMalloc(&dc, static_cast<size_t>(m) * n * sizeof(float)), "malloc c");
    check_cuda(cudaMalloc(&sink, 128 * sizeof(float)), "malloc sink");
    check_cuda(cudaMemcpy(da, a.data(), a.size() * sizeof(a[0]), cudaMemcpyHostToDevice), "copy a");
    check_cuda(cudaMemcpy(db, b.data(), b.size() * sizeof(b[0]), cudaMemcpyHostToDevice), "copy b");
    map_a = make_map(da, m, k);
    map_b = make_map(db, n, k);
  }

  void poison() {
    check_cuda(cudaMemset(dc, 0xFF, static_cast<size_t>(m) * n * sizeof(float)), "poison");
  }

  // Max abs error of C against a CPU product.
  double error() const {
    std::vector<float> c(static_cast<size_t>(m) * n);
    check_cuda(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost),
               "copy c");
    double worst = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int x = 0; x < k; ++x) {
          sum += static_cast<double>(__bfloat162float(a[static_cast<size_t>(i) * k + x])) *
                 __bfloat162float(b[static_cast<size_t>(j) * k + x]);
        }
        const double got = c[static_cast<size_t>(i) * n + j];
        worst = std::isnan(got) ? INFINITY : std::max(worst, std::fabs(got - sum));
      }
    }
    return worst;
  }

  void launch_wgmma() { gemm_tma_wgmma<<<dim3(n / 64, m / 64), 128>>>(map_a, map_b, dc, n, k); }
  void launch_ffma() { gemm_ffma<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(da, db, dc, m, n, k); }
  void launch_untaken() {
    gemm_untaken_wgmma<<<dim3(n / 64, m / 64), 128>>>(map_a, map_b, da, db, dc, m, n, k, 0);
  }
  void launch_single() {
    gemm_ffma_one_wgmma<<<dim3(n / 64, m / 64), 128>>>(da, db, dc, m, n, k, sink);
  }
};

std::vector<std::uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <scenario> [cubin ...]\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  check_cuda(cudaFree(nullptr), "context");
  CUcontext context = nullptr;
  cuCtxGetCurrent(&context);
  std::printf("kernel_names wgmma=%s\n", "gemm_tma_wgmma");

  // Everything is prepared before the session: GPU work between its config and arm() (even a
  // cudaMemset) leaves the collection window empty.
  Problem problem;
  problem.poison();
  check_cuda(cudaDeviceSynchronize(), "setup");
  std::unique_ptr<ptxbench::eval::gpu::SassMetricsSession> session;
  if (scenario != "plain") {
    session = std::make_unique<ptxbench::eval::gpu::SassMetricsSession>(
        context, ptxbench::eval::gpu::SassMetricsConfig{});
    session->arm();
  }

  if (scenario == "wgmma") {
    for (int i = 0; i < 3; ++i) problem.launch_wgmma();
  } else if (scenario == "ffma") {
    problem.launch_ffma();
  } else if (scenario == "untaken") {
    problem.launch_untaken();
  } else if (scenario == "single") {
    problem.launch_single();
  } else if (scenario == "dso") {
    // Opened after the session: registering its fatbin is host work, its module loads lazily.
    void* library = dlopen(std::getenv("SASS_CHECK_DSO"), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      std::fprintf(stderr, "dlopen: %s\n", dlerror());
      return 2;
    }
    using Launch = int (*)(const __nv_bfloat16*, const __nv_bfloat16*, float*, int, int, int);
    auto launch = reinterpret_cast<Launch>(dlsym(library, "dso_launch"));
    std::printf("dso_launch %d\n",
                launch(problem.da, problem.db, problem.dc, problem.m, problem.n, problem.k));
  } else if (scenario == "seq" || scenario == "plain") {
    problem.launch_ffma();
    problem.launch_wgmma();
    problem.launch_ffma();
    problem.launch_wgmma();
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  check_cuda(cudaDeviceSynchronize(), "run");
  std::printf("max_abs_error %.6g\n", problem.error());
  if (!session) return 0;

  const auto result = session->collect();
  std::printf("observed %s launches %d graph_launches %d dropped %llu\n",
              result.observed_function.c_str(), result.observed_launches, result.graph_launches,
              static_cast<unsigned long long>(result.dropped_records));
  for (const auto& name : result.launched_functions) std::printf("launched %s\n", name.c_str());
  for (const auto& module : session->loaded_modules()) {
    std::printf("module id=%u crc=%llu crc32=%u size=%zu\n", module.module_id,
                static_cast<unsigned long long>(module.crc),
                static_cast<unsigned>(module.crc & 0xFFFFFFFFu), module.cubin.size());
  }
  for (int i = 2; i < argc; ++i) {
    const auto bytes = read_file(argv[i]);
    if (bytes.empty()) continue;
    const auto crc = ptxbench::eval::gpu::cubin_crc(bytes);
    bool same = false;
    for (const auto& module : session->loaded_modules()) same = same || module.cubin == bytes;
    std::printf("file %s crc=%llu crc32=%u size=%zu equals_loaded_module=%d\n", argv[i],
                static_cast<unsigned long long>(crc), static_cast<unsigned>(crc & 0xFFFFFFFFu),
                bytes.size(), static_cast<int>(same));
  }
  std::printf("metrics");
  for (const auto& name : result.metric_names) std::printf(" %s", name.c_str());
  std::printf("\nrecords %zu\n", result.records.size());
  for (const auto& record : result.records) {
    std::printf("rec crc=%u fn=%s pc=0x%x counts=", record.cubin_crc, record.function_name.c_str(),
                record.pc_offset);
    for (size_t m = 0; m < record.counts.size(); ++m) {
      std::printf("%s%llu", m ? "," : "", static_cast<unsigned long long>(record.counts[m]));
    }
    std::printf("\n");
  }
  return 0;
}
