#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ptxbench/eval/correctness/element_rule.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_buffer.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::gpu {
namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU with grid-stride loops, never more than the work needs.
int grid_for(std::int64_t elements) {
  int device = 0, sms = 0;
  PTXBENCH_CUDA_CHECK(cudaGetDevice(&device));
  PTXBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  std::int64_t needed = (elements + kThreads - 1) / kThreads;
  std::int64_t cap = static_cast<std::int64_t>(sms) * 8;
  return static_cast<int>(needed < 1 ? 1 : (needed < cap ? needed : cap));
}

// SplitMix64's finaliser: a bijective mix good enough to turn (seed, counter) into random bits.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__device__ inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t counter) {
  return mix64(seed ^ mix64(counter * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

// Uniform in (0, 1] from 24 bits.
__device__ inline float unit_open(std::uint64_t bits) {
  return (static_cast<float>(bits & 0xffffffu) + 1.0f) * (1.0f / 16777216.0f);
}

__device__ inline float standard_normal(std::uint64_t bits) {
  float u1 = unit_open(bits);
  float u2 = unit_open(bits >> 32);
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__device__ inline float sample(task::Distribution distribution, std::uint64_t seed,
                               std::uint64_t index) {
  std::uint64_t bits = random_bits(seed, index * 4);
  switch (distribution) {
    case task::Distribution::kUniform:
      return 2.0f * unit_open(bits) - 1.0f;
    case task::Distribution::kSpiky: {
      float value = standard_normal(bits);
      // Bernoulli(0.001): 1 in 1000 elements gets a N(0, 100^2) spike added.
      if ((random_bits(seed, index * 4 + 1) % 1000u) == 0) {
        value += 100.0f * standard_normal(random_bits(seed, index * 4 + 2));
      }
      return value;
    }
    case task::Distribution::kLarge:
      return 1024.0f * standard_normal(bits);
    case task::Distribution::kNearTies:
      return static_cast<float>(static_cast<int>(bits % 33u) - 16) * 0.125f;
    case task::Distribution::kEqualScores:  // the index is already the row's (fill_random)
    case task::Distribution::kNormal:
    default:
      return standard_normal(bits);
  }
}

// equal_scores: element i takes the value of its column in the first row of its block of
// `rows` x `cols`, so every row along the second-to-last axis is the same.
__device__ inline std::uint64_t sample_index(task::Distribution distribution, std::int64_t i,
                                             std::int64_t rows, std::int64_t cols) {
  if (distribution != task::Distribution::kEqualScores || rows <= 0 || cols <= 0)
    return static_cast<std::uint64_t>(i);
  return static_cast<std::uint64_t>(i / (rows * cols) * cols + i % cols);
}

template <class T>
__device__ inline T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}

template <class T>
__device__ inline double to_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
__device__ inline double to_double<float>(float v) {
  return static_cast<double>(v);
}
template <>
__device__ inline double to_double<std::int32_t>(std::int32_t v) {
  return static_cast<double>(v);
}
template <>
__device__ inline double to_double<std::int64_t>(std::int64_t v) {
  return static_cast<double>(v);
}

template <class T>
__global__ void fill_random_kernel(T* out, std::int64_t n, task::Distribution distribution,
                                   std::uint64_t seed, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = from_float<T>(sample(distribution, seed, sample_index(distribution, i, rows, cols)));
  }
}

template <class T>
__global__ void fill_random_int_kernel(T* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<T>(static_cast<std::int64_t>(random_bits(seed, i) % 201u) - 100);
  }
}

template <class Word>
__global__ void fill_word_kernel(Word* out, std::int64_t n, Word value) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = value;
  }
}

__device__ inline unsigned long long block_sum(unsigned long long value) {
  __shared__ unsigned long long partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  unsigned long long total = 0;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
  }
  return total;
}

// Sum over words of mix(word, index): parallel, and any change or move of a word changes it.
__global__ void hash_kernel(const unsigned char* data, std::size_t bytes,
                            unsigned long long* result) {
  std::size_t words = (bytes + 7) / 8;
  unsigned long long local = 0;
  for (std::size_t w = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; w < words;
       w += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t word = 0;
    std::size_t begin = w * 8;
    if (begin + 8 <= bytes && (reinterpret_cast<std::uintptr_t>(data) % 8) == 0) {
      word = reinterpret_cast<const std::uint64_t*>(data)[w];
    } else {
      for (std::size_t b = begin; b < bytes && b < begin + 8; ++b) {
        word |= std::uint64_t{data[b]} << (8 * (b - begin));
      }
    }
    local += mix64(word ^ mix64(w + 0x5851f42d4c957f2dULL));
  }
  unsigned long long total = block_sum(local);
  if (threadIdx.x == 0) atomicAdd(result, total);
}

struct DeviceCounts {
  unsigned long long mismatches;
  unsigned long long nans;
  unsigned long long infs;
  unsigned long long max_abs_bits;  // non-negative doubles order like their bit patterns
  unsigned long long max_rel_bits;
  unsigned long long first_bad;
};

template <class T>
__global__ void compare_kernel(const T* candidate, const T* reference, std::int64_t n, double atol,
                               double rtol, DeviceCounts* counts) {
  unsigned long long mismatches = 0, nans = 0, infs = 0;
  double max_abs = 0, max_rel = 0;
  unsigned long long first_bad = ~0ull;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    double x = to_double(candidate[i]);
    double y = to_double(reference[i]);
    worker::ElementOutcome outcome = worker::judge_element(x, y, atol, rtol);
    if (isfinite(x) && isfinite(y)) {
      worker::ElementErrors e = worker::element_errors(x, y);
      max_abs = fmax(max_abs, e.abs_error);
      max_rel = fmax(max_rel, e.rel_error);
    }
    if (outcome != worker::ElementOutcome::kMatch) {
      ++mismatches;
      if (outcome == worker::ElementOutcome::kNan) ++nans;
      if (outcome == worker::ElementOutcome::kInf) ++infs;
      if (static_cast<unsigned long long>(i) < first_bad) first_bad = i;
    }
  }
  // Warp-level reduction first keeps the atomics to one per warp.
  for (int offset = 16; offset > 0; offset /= 2) {
    mismatches += __shfl_down_sync(0xffffffffu, mismatches, offset);
    nans += __shfl_down_sync(0xffffffffu, nans, offset);
    infs += __shfl_down_sync(0xffffffffu, infs, offset);
    max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, offset));
    max_rel = fmax(max_rel, __shfl_down_sync(0xffffffffu, max_rel, offset));
    first_bad = min(first_bad, __shfl_down_sync(0xffffffffu, first_bad, offset));
  }
  if (threadIdx.x % 32 == 0) {
    if (mismatches) atomicAdd(&counts->mismatches, mismatches);
    if (nans) atomicAdd(&counts->nans, nans);
    if (infs) atomicAdd(&counts->infs, infs);
    atomicMax(&counts->max_abs_bits,
              static_cast<unsigned long long>(__double_as_longlong(max_abs)));
    atomicMax(&counts->max_rel_bits,
              static_cast<unsigned long long>(__double_as_longlong(max_rel)));
    atomicMin(&counts->first_bad, first_bad);
  }
}

template <class T>
void launch_fill_random(void* data, std::int64_t n, task::Distribution d, std::uint64_t seed,
                        cudaStream_t stream, std::int64_t rows, std::int64_t cols) {
  fill_random_kernel<T>
      <<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(data), n, d, seed, rows, cols);
}

template <class T>
worker::ComparisonTotals launch_compare(const void* candidate, const void* reference,
                                        std::int64_t n, double atol, double rtol,
                                        cudaStream_t stream) {
  DeviceBuffer device_counts(sizeof(DeviceCounts));
  DeviceCounts initial{0, 0, 0, 0, 0, ~0ull};
  PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(device_counts.data(), &initial, sizeof initial,
                                      cudaMemcpyHostToDevice, stream));
  compare_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(candidate),
                                                          static_cast<const T*>(reference), n, atol,
                                                          rtol, device_counts.as<DeviceCounts>());
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
  DeviceCounts host{};
  PTXBENCH_CUDA_CHECK(
      cudaMemcpyAsync(&host, device_counts.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  worker::ComparisonTotals out;
  out.elements = n;
  out.mismatches = static_cast<std::int64_t>(host.mismatches);
  out.nan_count = static_cast<std::int64_t>(host.nans);
  out.inf_count = static_cast<std::int64_t>(host.infs);
  std::int64_t abs_bits = static_cast<std::int64_t>(host.max_abs_bits);
  std::int64_t rel_bits = static_cast<std::int64_t>(host.max_rel_bits);
  std::memcpy(&out.max_abs_error, &abs_bits, sizeof(double));
  std::memcpy(&out.max_rel_error, &rel_bits, sizeof(double));
  out.first_bad_index = host.first_bad == ~0ull ? -1 : static_cast<std::int64_t>(host.first_bad);
  return out;
}

}  // namespace

void fill_random(void* data, task::DType dtype, std::int64_t elements,
                 task::Distribution distribution, std::uint64_t seed, cudaStream_t stream,
                 std::int64_t rows, std::int64_t cols) {
  if (elements == 0) return;
  switch (dtype) {
    case task::DType::kBFloat16:
      launch_fill_random<__nv_bfloat16>(data, elements, distribution, seed, stream, rows, cols);
      break;
    case task::DType::kFloat16:
      launch_fill_random<__half>(data, elements, distribution, seed, stream, rows, cols);
      break;
    case task::DType::kFloat32:
      launch_fill_random<float>(data, elements, distribution, seed, stream, rows, cols);
      break;
    case task::DType::kFloat8E4M3:
      launch_fill_random<__nv_fp8_e4m3>(data, elements, distribution, seed, stream, rows, cols);
      break;
    case task::DType::kFloat8E5M2:
      launch_fill_random<__nv_fp8_e5m2>(data, elements, distribution, seed, stream, rows, cols);
      break;
    case task::DType::kInt32:
      fill_random_int_kernel<<<grid_for(elements), kThreads, 0, stream>>>(
          static_cast<std::int32_t*>(data), elements, seed);
      break;
    case task::DType::kInt64:
      fill_random_int_kernel<<<grid_for(elements), kThreads, 0, stream>>>(
          static_cast<std::int64_t*>(data), elements, seed);
      break;
  }
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

void fill_poison(void* data, task::DType dtype, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  int grid = grid_for(n);
  switch (dtype) {
    case task::DType::kBFloat16:
      fill_word_kernel<std::uint16_t>
          <<<grid, kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), n, 0x7fc0);
      break;
    case task::DType::kFloat16:
      fill_word_kernel<std::uint16_t>
          <<<grid, kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), n, 0x7e00);
      break;
    case task::DType::kFloat32:
      fill_word_kernel<std::uint32_t>
          <<<grid, kThreads, 0, stream>>>(static_cast<std::uint32_t*>(data), n, 0x7fc00000u);
      break;
    case task::DType::kFloat8E4M3:
    case task::DType::kFloat8E5M2:
      fill_word_kernel<std::uint8_t>
          <<<grid, kThreads, 0, stream>>>(static_cast<std::uint8_t*>(data), n, 0x7f);
      break;
    case task::DType::kInt32:
      fill_word_kernel<std::uint32_t>
          <<<grid, kThreads, 0, stream>>>(static_cast<std::uint32_t*>(data), n, 0x7fffffffu);
      break;
    case task::DType::kInt64:
      fill_word_kernel<std::uint64_t><<<grid, kThreads, 0, stream>>>(
          static_cast<std::uint64_t*>(data), n, 0x7fffffffffffffffull);
      break;
  }
  PTXBENCH_CUDA_CHECK(cudaGetLastError());
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer sum(sizeof(unsigned long long));
  PTXBENCH_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sum.bytes(), stream));
  if (bytes > 0) {
    hash_kernel<<<grid_for(static_cast<std::int64_t>((bytes + 7) / 8)), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(data), bytes, sum.as<unsigned long long>());
    PTXBENCH_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long host = 0;
  PTXBENCH_CUDA_CHECK(
      cudaMemcpyAsync(&host, sum.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return mix64(host ^ bytes);
}

worker::ComparisonTotals compare_tensors(const void* candidate, const void* reference,
                                         task::DType dtype, std::int64_t elements, double atol,
                                         double rtol, cudaStream_t stream) {
  if (elements == 0) return worker::ComparisonTotals{};
  switch (dtype) {
    case task::DType::kBFloat16:
      return launch_compare<__nv_bfloat16>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kFloat16:
      return launch_compare<__half>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kFloat32:
      return launch_compare<float>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kFloat8E4M3:
      return launch_compare<__nv_fp8_e4m3>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kFloat8E5M2:
      return launch_compare<__nv_fp8_e5m2>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kInt32:
      return launch_compare<std::int32_t>(candidate, reference, elements, atol, rtol, stream);
    case task::DType::kInt64:
      return launch_compare<std::int64_t>(candidate, reference, elements, atol, rtol, stream);
  }
  PTXBENCH_CHECK(false, "unknown dtype");
  return worker::ComparisonTotals{};
}

}  // namespace ptxbench::eval::gpu
