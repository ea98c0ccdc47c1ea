#include <cmath>
#include <stdexcept>

#include "numerical_variants.hpp"

namespace ptxbench::eval::correctness::test {
namespace {

using gpu::AttentionDims;

constexpr int kWarpsPerBlock = 8;
constexpr float kLog2e = 1.4426950408889634f;

__device__ inline float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;  // the same in every lane
}

__device__ inline float round_bf16(float x) {
  return __bfloat162float(__float2bfloat16_rn(x));
}

// A row of D values spread over a warp: lane l holds elements l, l + 32, ...
template <int D>
struct WarpRow {
  static constexpr int kPerLane = D / 32;
  float value[kPerLane];

  __device__ void load(const __nv_bfloat16* row, int lane) {
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) value[t] = __bfloat162float(row[lane + 32 * t]);
  }
  __device__ float dot(const __nv_bfloat16* row, int lane) const {
    float partial = 0.0f;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t)
      partial = fmaf(value[t], __bfloat162float(row[lane + 32 * t]), partial);
    return warp_sum(partial);
  }
};

struct RowPlace {
  std::int64_t q_head, kv_head, index;
  bool valid;
};

// The row this warp computes: a query row of a query head, or a key row of a kv head.
__device__ inline RowPlace warp_row(std::int64_t heads, std::int64_t length, const AttentionDims& d,
                                    bool rows_are_queries) {
  std::int64_t row = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  RowPlace p{};
  p.valid = row < heads * length;
  if (!p.valid) return p;
  std::int64_t head = row / length;
  p.index = row % length;
  if (rows_are_queries) {
    p.q_head = head;
    std::int64_t b = head / d.q_heads, h = head % d.q_heads;
    p.kv_head = b * d.kv_heads + h / (d.q_heads / d.kv_heads);
  } else {
    p.kv_head = head;
  }
  return p;
}

template <int D, ForwardVariant V>
__global__ void forward_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                               const __nv_bfloat16* v, __nv_bfloat16* o, float* lse,
                               AttentionDims dims) {
  RowPlace place = warp_row(dims.batch * dims.q_heads, dims.q_len, dims, true);
  if (!place.valid) return;
  const int lane = threadIdx.x % 32;
  const std::int64_t i = place.index;
  WarpRow<D> query;
  query.load(q + (place.q_head * dims.q_len + i) * D, lane);
  const __nv_bfloat16* k_head = k + place.kv_head * dims.kv_len * D;
  const __nv_bfloat16* v_head = v + place.kv_head * dims.kv_len * D;
  // Base-2 variants work on scores pre-multiplied by log2(e), as FlashAttention does.
  constexpr bool kBase2 =
      V == ForwardVariant::kProbabilitiesInFp32 || V == ForwardVariant::kLogSumExpInBase2;
  const float score_scale = kBase2 ? dims.scale * kLog2e : dims.scale;
  float running_max = -INFINITY, running_sum = 0.0f;
  float acc[WarpRow<D>::kPerLane] = {};
  std::int64_t keys = dims.causal && i + 1 < dims.kv_len ? i + 1 : dims.kv_len;
  for (std::int64_t j = 0; j < keys; ++j) {
    float s = score_scale * query.dot(k_head + j * D, lane);
    float new_max = fmaxf(running_max, s);
    float rescale = kBase2 ? exp2f(running_max - new_max) : expf(running_max - new_max);
    float p = kBase2 ? exp2f(s - new_max) : expf(s - new_max);
    running_sum = running_sum * rescale + p;
    running_max = new_max;
    float p_used = V == ForwardVariant::kProbabilitiesInBf16 ? round_bf16(p) : p;
#pragma unroll
    for (int t = 0; t < WarpRow<D>::kPerLane; ++t) {
      float scaled = V == ForwardVariant::kMissingRescale ? acc[t] : acc[t] * rescale;
      float sum = fmaf(p_used, __bfloat162float(v_head[j * D + lane + 32 * t]), scaled);
      acc[t] = V == ForwardVariant::kBf16Accumulation ? round_bf16(sum) : sum;
    }
  }
#pragma unroll
  for (int t = 0; t < WarpRow<D>::kPerLane; ++t) {
    o[(place.q_head * dims.q_len + i) * D + lane + 32 * t] =
        __float2bfloat16_rn(acc[t] / running_sum);
  }
  if (lane == 0) {
    float log_sum;
    if (V == ForwardVariant::kLogSumExpInBase2) {
      log_sum = running_max + log2f(running_sum);  // the bug: base 2, not converted back
    } else if (kBase2) {
      log_sum = (running_max + log2f(running_sum)) / kLog2e;
    } else {
      log_sum = running_max + logf(running_sum);
    }
    lse[place.q_head * dims.q_len + i] = log_sum;
  }
}

template <int D, BackwardVariant V>
__global__ void dq_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                          const __nv_bfloat16* o, const __nv_bfloat16* d_o, const float* lse,
                          __nv_bfloat16* dq, AttentionDims dims) {
  RowPlace place = warp_row(dims.batch * dims.q_heads, dims.q_len, dims, true);
  if (!place.valid) return;
  const int lane = threadIdx.x % 32;
  const std::int64_t i = place.index, row = place.q_head * dims.q_len + i;
  WarpRow<D> query, grad_out, out;
  query.load(q + row * D, lane);
  grad_out.load(d_o + row * D, lane);
  out.load(o + row * D, lane);
  float delta = 0.0f;
#pragma unroll
  for (int t = 0; t < WarpRow<D>::kPerLane; ++t) delta += grad_out.value[t] * out.value[t];
  delta = warp_sum(delta);
  const __nv_bfloat16* k_head = k + place.kv_head * dims.kv_len * D;
  const __nv_bfloat16* v_head = v + place.kv_head * dims.kv_len * D;
  float acc[WarpRow<D>::kPerLane] = {};
  std::int64_t keys = dims.causal && i + 1 < dims.kv_len ? i + 1 : dims.kv_len;
  for (std::int64_t j = keys - 1; j >= 0; --j) {
    float p = expf(dims.scale * query.dot(k_head + j * D, lane) - lse[row]);
    float ds = p * (grad_out.dot(v_head + j * D, lane) - delta);
#pragma unroll
    for (int t = 0; t < WarpRow<D>::kPerLane; ++t)
      acc[t] = fmaf(ds, __bfloat162float(k_head[j * D + lane + 32 * t]), acc[t]);
  }
#pragma unroll
  for (int t = 0; t < WarpRow<D>::kPerLane; ++t)
    dq[row * D + lane + 32 * t] = __float2bfloat16_rn(dims.scale * acc[t]);
}

template <int D, BackwardVariant V>
__global__ void dkdv_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                            const __nv_bfloat16* o, const __nv_bfloat16* d_o, const float* lse,
                            __nv_bfloat16* dk, __nv_bfloat16* dv, AttentionDims dims) {
  RowPlace place = warp_row(dims.batch * dims.kv_heads, dims.kv_len, dims, false);
  if (!place.valid) return;
  const int lane = threadIdx.x % 32;
  const std::int64_t j = place.index, key_row = place.kv_head * dims.kv_len + j;
  WarpRow<D> key, value;
  key.load(k + key_row * D, lane);
  value.load(v + key_row * D, lane);
  const std::int64_t b = place.kv_head / dims.kv_heads, hk = place.kv_head % dims.kv_heads;
  const std::int64_t group = dims.q_heads / dims.kv_heads;
  float acc_k[WarpRow<D>::kPerLane] = {}, acc_v[WarpRow<D>::kPerLane] = {};
  for (std::int64_t g = group - 1; g >= 0; --g) {
    const std::int64_t q_head = b * dims.q_heads + hk * group + g;
    const std::int64_t first = dims.causal ? j : 0;
    for (std::int64_t i = dims.q_len - 1; i >= first; --i) {
      const std::int64_t row = q_head * dims.q_len + i;
      WarpRow<D> query, grad_out;
      query.load(q + row * D, lane);
      grad_out.load(d_o + row * D, lane);
      float p = expf(dims.scale * key.dot(q + row * D, lane) - lse[row]);
      float delta = grad_out.dot(o + row * D, lane);
      float ds = p * (value.dot(d_o + row * D, lane) - delta);
#pragma unroll
      for (int t = 0; t < WarpRow<D>::kPerLane; ++t) {
        float next_v = fmaf(p, grad_out.value[t], acc_v[t]);
        float next_k = fmaf(ds, query.value[t], acc_k[t]);
        acc_v[t] = V == BackwardVariant::kBf16Accumulation ? round_bf16(next_v) : next_v;
        acc_k[t] = V == BackwardVariant::kBf16Accumulation ? round_bf16(next_k) : next_k;
      }
    }
  }
#pragma unroll
  for (int t = 0; t < WarpRow<D>::kPerLane; ++t) {
    dk[key_row * D + lane + 32 * t] = __float2bfloat16_rn(dims.scale * acc_k[t]);
    dv[key_row * D + lane + 32 * t] = __float2bfloat16_rn(acc_v[t]);
  }
}

template <GemmVariant V>
__global__ void gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
                            std::int64_t m, std::int64_t n, std::int64_t k) {
  std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (index >= m * n) return;
  std::int64_t row = index / n, col = index % n;
  float acc = 0.0f;
  for (std::int64_t kk = k - 1; kk >= 0; --kk) {
    float sum = fmaf(__bfloat162float(a[row * k + kk]), __bfloat162float(b[col * k + kk]), acc);
    acc = V == GemmVariant::kBf16Accumulation ? round_bf16(sum) : sum;
  }
  c[index] = __float2bfloat16_rn(acc);
}

unsigned warp_blocks(std::int64_t rows) {
  return static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

void check_launch() {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw std::runtime_error(cudaGetErrorString(status));
}

template <int D, ForwardVariant V>
void launch_forward(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                    __nv_bfloat16* o, float* lse, const AttentionDims& dims, cudaStream_t stream) {
  forward_kernel<D, V>
      <<<warp_blocks(dims.batch * dims.q_heads * dims.q_len), 32 * kWarpsPerBlock, 0, stream>>>(
          q, k, v, o, lse, dims);
  check_launch();
}

template <ForwardVariant V>
void forward_for_dim(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                     __nv_bfloat16* o, float* lse, const AttentionDims& dims, cudaStream_t stream) {
  switch (dims.head_dim) {
    case 64:
      return launch_forward<64, V>(q, k, v, o, lse, dims, stream);
    case 96:
      return launch_forward<96, V>(q, k, v, o, lse, dims, stream);
    case 128:
      return launch_forward<128, V>(q, k, v, o, lse, dims, stream);
    case 256:
      return launch_forward<256, V>(q, k, v, o, lse, dims, stream);
    default:
      throw std::invalid_argument("head dimension");
  }
}

template <int D, BackwardVariant V>
void launch_backward(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                     const __nv_bfloat16* o, const __nv_bfloat16* d_o, const float* lse,
                     __nv_bfloat16* dq, __nv_bfloat16* dk, __nv_bfloat16* dv,
                     const AttentionDims& dims, cudaStream_t stream) {
  dq_kernel<D, V>
      <<<warp_blocks(dims.batch * dims.q_heads * dims.q_len), 32 * kWarpsPerBlock, 0, stream>>>(
          q, k, v, o, d_o, lse, dq, dims);
  check_launch();
  dkdv_kernel<D, V>
      <<<warp_blocks(dims.batch * dims.kv_heads * dims.kv_len), 32 * kWarpsPerBlock, 0, stream>>>(
          q, k, v, o, d_o, lse, dk, dv, dims);
  check_launch();
}

template <BackwardVariant V>
void backward_for_dim(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const __nv_bfloat16* o, const __nv_bfloat16* d_o, const float* lse,
                      __nv_bfloat16* dq, __nv_bfloat16* dk, __nv_bfloat16* dv,
                      const AttentionDims& dims, cudaStream_t stream) {
  switch (dims.head_dim) {
    case 64:
      return launch_backward<64, V>(q, k, v, o, d_o, lse, dq, dk, dv, dims, stream);
    case 96:
      return launch_backward<96, V>(q, k, v, o, d_o, lse, dq, dk, dv, dims, stream);
    case 128:
      return launch_backward<128, V>(q, k, v, o, d_o, lse, dq, dk, dv, dims, stream);
    default:
      throw std::invalid_argument("head dimension");
  }
}

}  // namespace

const char* to_string(ForwardVariant variant) {
  switch (variant) {
    case ForwardVariant::kProbabilitiesInFp32:
      return "P in fp32 (exp2)";
    case ForwardVariant::kProbabilitiesInBf16:
      return "P rounded to bf16";
    case ForwardVariant::kMissingRescale:
      return "missing rescale of the running output";
    case ForwardVariant::kLogSumExpInBase2:
      return "LSE in log2";
    case ForwardVariant::kBf16Accumulation:
      return "output accumulated in bf16";
  }
  return "?";
}

const char* to_string(BackwardVariant variant) {
  return variant == BackwardVariant::kFp32 ? "fp32, reverse order" : "dK, dV accumulated in bf16";
}

const char* to_string(GemmVariant variant) {
  return variant == GemmVariant::kReversedOrder ? "fp32, reverse k order" : "accumulated in bf16";
}

void run_forward(ForwardVariant variant, const __nv_bfloat16* q, const __nv_bfloat16* k,
                 const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, const AttentionDims& dims,
                 cudaStream_t stream) {
  switch (variant) {
    case ForwardVariant::kProbabilitiesInFp32:
      return forward_for_dim<ForwardVariant::kProbabilitiesInFp32>(q, k, v, o, lse, dims, stream);
    case ForwardVariant::kProbabilitiesInBf16:
      return forward_for_dim<ForwardVariant::kProbabilitiesInBf16>(q, k, v, o, lse, dims, stream);
    case ForwardVariant::kMissingRescale:
      return forward_for_dim<ForwardVariant::kMissingRescale>(q, k, v, o, lse, dims, stream);
    case ForwardVariant::kLogSumExpInBase2:
      return forward_for_dim<ForwardVariant::kLogSumExpInBase2>(q, k, v, o, lse, dims, stream);
    case ForwardVariant::kBf16Accumulation:
      return forward_for_dim<ForwardVariant::kBf16Accumulation>(q, k, v, o, lse, dims, stream);
  }
}

void run_backward(BackwardVariant variant, const __nv_bfloat16* q, const __nv_bfloat16* k,
                  const __nv_bfloat16* v, const __nv_bfloat16* o, const __nv_bfloat16* d_o,
                  const float* lse, __nv_bfloat16* dq, __nv_bfloat16* dk, __nv_bfloat16* dv,
                  const AttentionDims& dims, cudaStream_t stream) {
  if (variant == BackwardVariant::kFp32) {
    backward_for_dim<BackwardVariant::kFp32>(q, k, v, o, d_o, lse, dq, dk, dv, dims, stream);
  } else {
    backward_for_dim<BackwardVariant::kBf16Accumulation>(q, k, v, o, d_o, lse, dq, dk, dv, dims,
                                                         stream);
  }
}

void run_gemm(GemmVariant variant, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
              std::int64_t m, std::int64_t n, std::int64_t k, cudaStream_t stream) {
  unsigned blocks = static_cast<unsigned>((m * n + 255) / 256);
  if (variant == GemmVariant::kReversedOrder) {
    gemm_kernel<GemmVariant::kReversedOrder><<<blocks, 256, 0, stream>>>(a, b, c, m, n, k);
  } else {
    gemm_kernel<GemmVariant::kBf16Accumulation><<<blocks, 256, 0, stream>>>(a, b, c, m, n, k);
  }
  check_launch();
}

}  // namespace ptxbench::eval::correctness::test
