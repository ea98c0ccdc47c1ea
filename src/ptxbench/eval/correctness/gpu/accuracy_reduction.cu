#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <vector>

#include "ptxbench/eval/correctness/gpu/accuracy_reduction.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::correctness::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// One block's share of AccuracyTotals (first_lost is a global index; ~0 for none).
struct BlockTotals {
  unsigned long long compared, candidate_non_finite, candidate_lost, library_lost, first_lost;
  double candidate_max, candidate_sum, candidate_squares;
  double library_max, library_sum, library_squares;
  double reference_max, reference_sum, reference_squares;
};

__device__ inline double widen(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ inline double widen(__half v) {
  return __half2float(v);
}
__device__ inline double widen(float v) {
  return v;
}

template <class T>
__device__ inline T shuffle_down(T value, int offset) {
  return __shfl_down_sync(0xffffffffu, value, offset);
}

__device__ inline void combine(BlockTotals& into, const BlockTotals& other) {
  into.compared += other.compared;
  into.candidate_non_finite += other.candidate_non_finite;
  into.candidate_lost += other.candidate_lost;
  into.library_lost += other.library_lost;
  into.first_lost = min(into.first_lost, other.first_lost);
  into.candidate_max = fmax(into.candidate_max, other.candidate_max);
  into.candidate_sum += other.candidate_sum;
  into.candidate_squares += other.candidate_squares;
  into.library_max = fmax(into.library_max, other.library_max);
  into.library_sum += other.library_sum;
  into.library_squares += other.library_squares;
  into.reference_max = fmax(into.reference_max, other.reference_max);
  into.reference_sum += other.reference_sum;
  into.reference_squares += other.reference_squares;
}

__device__ inline BlockTotals warp_shuffle_down(const BlockTotals& t, int offset) {
  BlockTotals s;
  s.compared = shuffle_down(t.compared, offset);
  s.candidate_non_finite = shuffle_down(t.candidate_non_finite, offset);
  s.candidate_lost = shuffle_down(t.candidate_lost, offset);
  s.library_lost = shuffle_down(t.library_lost, offset);
  s.first_lost = shuffle_down(t.first_lost, offset);
  s.candidate_max = shuffle_down(t.candidate_max, offset);
  s.candidate_sum = shuffle_down(t.candidate_sum, offset);
  s.candidate_squares = shuffle_down(t.candidate_squares, offset);
  s.library_max = shuffle_down(t.library_max, offset);
  s.library_sum = shuffle_down(t.library_sum, offset);
  s.library_squares = shuffle_down(t.library_squares, offset);
  s.reference_max = shuffle_down(t.reference_max, offset);
  s.reference_sum = shuffle_down(t.reference_sum, offset);
  s.reference_squares = shuffle_down(t.reference_squares, offset);
  return s;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    accuracy_kernel(const T* candidate, const T* library, const float* reference, std::int64_t n,
                    ElementBudget budget, BlockTotals* blocks) {
  BlockTotals t{};
  t.first_lost = ~0ull;
  for (std::int64_t i = blockIdx.x * std::int64_t{kThreads} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * kThreads) {
    ElementAccuracy e = classify_element(widen(candidate[i]), widen(library[i]),
                                         static_cast<double>(reference[i]), budget);
    if (!e.compared) continue;
    ++t.compared;
    t.library_max = fmax(t.library_max, e.library_error);
    t.library_sum += e.library_error;
    t.library_squares += e.library_error * e.library_error;
    t.reference_max = fmax(t.reference_max, e.reference_magnitude);
    t.reference_sum += e.reference_magnitude;
    t.reference_squares += e.reference_magnitude * e.reference_magnitude;
    if (!e.candidate_finite) {
      ++t.candidate_non_finite;
      continue;
    }
    t.candidate_max = fmax(t.candidate_max, e.candidate_error);
    t.candidate_sum += e.candidate_error;
    t.candidate_squares += e.candidate_error * e.candidate_error;
    if (e.library_lost) ++t.library_lost;
    if (e.candidate_lost) {
      ++t.candidate_lost;
      t.first_lost = min(t.first_lost, static_cast<unsigned long long>(i));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) combine(t, warp_shuffle_down(t, offset));
  __shared__ BlockTotals warps[kWarps];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    BlockTotals total = warps[0];
    for (int w = 1; w < kWarps; ++w) combine(total, warps[w]);
    blocks[blockIdx.x] = total;
  }
}

int block_count(std::int64_t elements) {
  int device = 0, sms = 0;
  PTXBENCH_CUDA_CHECK(cudaGetDevice(&device));
  PTXBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  std::int64_t needed = (elements + kThreads - 1) / kThreads;
  std::int64_t cap = static_cast<std::int64_t>(sms) * 8;
  return static_cast<int>(needed < 1 ? 1 : (needed < cap ? needed : cap));
}

AccuracyTotals host_totals(const std::vector<BlockTotals>& blocks, std::int64_t elements) {
  AccuracyTotals out;
  out.elements = elements;
  unsigned long long first_lost = ~0ull;
  for (const BlockTotals& b : blocks) {
    out.compared += static_cast<std::int64_t>(b.compared);
    out.candidate_non_finite += static_cast<std::int64_t>(b.candidate_non_finite);
    out.candidate_duels_lost += static_cast<std::int64_t>(b.candidate_lost);
    out.library_duels_lost += static_cast<std::int64_t>(b.library_lost);
    first_lost = std::min(first_lost, b.first_lost);
    out.candidate.merge({b.candidate_max, b.candidate_sum, b.candidate_squares});
    out.library.merge({b.library_max, b.library_sum, b.library_squares});
    out.reference.merge({b.reference_max, b.reference_sum, b.reference_squares});
  }
  out.first_lost_index = first_lost == ~0ull ? -1 : static_cast<std::int64_t>(first_lost);
  return out;
}

template <class T>
AccuracyTotals launch(const void* candidate, const void* library, const float* reference,
                      std::int64_t n, const ElementBudget& budget, cudaStream_t stream) {
  int grid = block_count(n);
  eval::gpu::DeviceBuffer device_blocks(sizeof(BlockTotals) * static_cast<std::size_t>(grid));
  accuracy_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(candidate),
                                                    static_cast<const T*>(library), reference, n,
                                                    budget, device_blocks.as<BlockTotals>());
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
  std::vector<BlockTotals> blocks(static_cast<std::size_t>(grid));
  PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(blocks.data(), device_blocks.data(), device_blocks.bytes(),
                                      cudaMemcpyDeviceToHost, stream));
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host_totals(blocks, n);
}

}  // namespace

bool accuracy_reduction_supports(task::DType dtype) {
  return dtype == task::DType::kBFloat16 || dtype == task::DType::kFloat16 ||
         dtype == task::DType::kFloat32;
}

AccuracyTotals reduce_accuracy(const void* candidate, const void* library, const float* reference,
                               task::DType dtype, std::int64_t elements,
                               const ElementBudget& budget, cudaStream_t stream) {
  if (elements == 0) return AccuracyTotals{};
  switch (dtype) {
    case task::DType::kBFloat16:
      return launch<__nv_bfloat16>(candidate, library, reference, elements, budget, stream);
    case task::DType::kFloat16:
      return launch<__half>(candidate, library, reference, elements, budget, stream);
    case task::DType::kFloat32:
      return launch<float>(candidate, library, reference, elements, budget, stream);
    default:
      PTXBENCH_CHECK(false, "no accuracy reduction for this dtype");
  }
  return AccuracyTotals{};
}

}  // namespace ptxbench::eval::correctness::gpu
