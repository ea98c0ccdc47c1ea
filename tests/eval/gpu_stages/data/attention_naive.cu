// Correct, simple attention candidates for the harness's own tests (small shapes only).
// Q, K, V, O, dO, dQ, dK, dV are bf16 [B, H, S, D] contiguous; LSE is fp32 [B, H, S], natural
// log of the softmax denominator of the scaled scores. Build with -DATTENTION_BACKWARD for the
// backward ABI run(Q, K, V, O, dO, LSE, dQ, dK, dV), else the forward run(Q, K, V, O, LSE);
// -DATTENTION_CAUSAL masks keys after the query. scale = 1/sqrt(D). -DCALLS_CUDNN (backward
// only) also runs a cuDNN kernel inside run() (cudnnAddTensor on scratch, the library opened
// with dlopen): library use the harness must still judge FORBIDDEN.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cmath>
#ifdef CALLS_CUDNN
#include <dlfcn.h>
#endif

namespace {

#ifdef ATTENTION_CAUSAL
constexpr bool kCausal = true;
#else
constexpr bool kCausal = false;
#endif

struct Dims {
  int bh, s, d;
  float scale;
};

__device__ float dot_rows(const __nv_bfloat16* x, const __nv_bfloat16* y, int d) {
  float acc = 0.f;
  for (int i = 0; i < d; ++i) acc += __bfloat162float(x[i]) * __bfloat162float(y[i]);
  return acc;
}

#ifndef ATTENTION_BACKWARD
// One thread per (head, query row): max, log-sum-exp, then O.
__global__ void forward(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                        __nv_bfloat16* o, float* lse, Dims dims) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= dims.bh * dims.s) return;
  int head = row / dims.s, i = row % dims.s;
  long long base = static_cast<long long>(head) * dims.s * dims.d;
  const __nv_bfloat16* qi = q + base + static_cast<long long>(i) * dims.d;
  int keys = kCausal ? i + 1 : dims.s;
  float max_score = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    max_score =
        fmaxf(max_score,
              dims.scale * dot_rows(qi, k + base + static_cast<long long>(j) * dims.d, dims.d));
  }
  float sum = 0.f;
  for (int j = 0; j < keys; ++j) {
    sum += expf(dims.scale * dot_rows(qi, k + base + static_cast<long long>(j) * dims.d, dims.d) -
                max_score);
  }
  float log_sum = max_score + logf(sum);
  lse[row] = log_sum;
  for (int c = 0; c < dims.d; ++c) {
    float acc = 0.f;
    for (int j = 0; j < keys; ++j) {
      float p =
          expf(dims.scale * dot_rows(qi, k + base + static_cast<long long>(j) * dims.d, dims.d) -
               log_sum);
      acc += p * __bfloat162float(v[base + static_cast<long long>(j) * dims.d + c]);
    }
    o[base + static_cast<long long>(i) * dims.d + c] = __float2bfloat16_rn(acc);
  }
}

#endif

#ifdef ATTENTION_BACKWARD
// dS and P for every (head, i, j): P = exp(scale q_i.k_j - LSE_i), dS = P (dO_i.v_j - delta_i).
__global__ void backward_scores(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                const __nv_bfloat16* v, const __nv_bfloat16* o,
                                const __nv_bfloat16* d_o, const float* lse, float* p_out,
                                float* ds_out, Dims dims) {
  long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  long long total = static_cast<long long>(dims.bh) * dims.s * dims.s;
  if (idx >= total) return;
  int head = static_cast<int>(idx / (static_cast<long long>(dims.s) * dims.s));
  int i = static_cast<int>((idx / dims.s) % dims.s), j = static_cast<int>(idx % dims.s);
  long long base = static_cast<long long>(head) * dims.s * dims.d;
  if (kCausal && j > i) {
    p_out[idx] = 0.f;
    ds_out[idx] = 0.f;
    return;
  }
  const __nv_bfloat16* qi = q + base + static_cast<long long>(i) * dims.d;
  const __nv_bfloat16* doi = d_o + base + static_cast<long long>(i) * dims.d;
  float p = expf(dims.scale * dot_rows(qi, k + base + static_cast<long long>(j) * dims.d, dims.d) -
                 lse[static_cast<long long>(head) * dims.s + i]);
  float dp = dot_rows(doi, v + base + static_cast<long long>(j) * dims.d, dims.d);
  float delta = dot_rows(doi, o + base + static_cast<long long>(i) * dims.d, dims.d);
  p_out[idx] = p;
  ds_out[idx] = p * (dp - delta);
}

// One thread per (head, row, column) of dQ, dK and dV.
__global__ void backward_gradients(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* d_o, const float* p, const float* ds,
                                   __nv_bfloat16* dq, __nv_bfloat16* dk, __nv_bfloat16* dv,
                                   Dims dims) {
  long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= static_cast<long long>(dims.bh) * dims.s * dims.d) return;
  int head = static_cast<int>(idx / (static_cast<long long>(dims.s) * dims.d));
  int r = static_cast<int>((idx / dims.d) % dims.s), c = static_cast<int>(idx % dims.d);
  long long base = static_cast<long long>(head) * dims.s * dims.d;
  const float* p_head = p + static_cast<long long>(head) * dims.s * dims.s;
  const float* ds_head = ds + static_cast<long long>(head) * dims.s * dims.s;
  float acc_q = 0.f, acc_k = 0.f, acc_v = 0.f;
  for (int t = 0; t < dims.s; ++t) {
    acc_q += ds_head[static_cast<long long>(r) * dims.s + t] *
             __bfloat162float(k[base + static_cast<long long>(t) * dims.d + c]);
    acc_k += ds_head[static_cast<long long>(t) * dims.s + r] *
             __bfloat162float(q[base + static_cast<long long>(t) * dims.d + c]);
    acc_v += p_head[static_cast<long long>(t) * dims.s + r] *
             __bfloat162float(d_o[base + static_cast<long long>(t) * dims.d + c]);
  }
  dq[idx] = __float2bfloat16_rn(dims.scale * acc_q);
  dk[idx] = __float2bfloat16_rn(dims.scale * acc_k);
  dv[idx] = __float2bfloat16_rn(acc_v);
}

#endif

Dims dims_of(const tvm::ffi::TensorView& q) {
  int d = static_cast<int>(q.size(3));
  return Dims{static_cast<int>(q.size(0) * q.size(1)), static_cast<int>(q.size(2)), d,
              1.0f / std::sqrt(static_cast<float>(d))};
}

template <class T>
T* ptr(const tvm::ffi::TensorView& t) {
  return static_cast<T*>(t.data_ptr());
}

cudaStream_t stream_of(const tvm::ffi::TensorView& t) {
  return static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, t.device().device_id));
}

}  // namespace

#ifdef CALLS_CUDNN
// cudnnAddTensor(x[count..2 count) += x[0..count)) on scratch floats through the C API, declared
// here: opaque handles and CUDNN_TENSOR_NCHW = CUDNN_DATA_FLOAT = 0.
void add_with_cudnn(float* x, int count, cudaStream_t stream) {
  void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) TVM_FFI_THROW(RuntimeError) << "no libcudnn.so.9: " << dlerror();
  using Create = int (*)(void**);
  using SetStream = int (*)(void*, cudaStream_t);
  using SetTensor = int (*)(void*, int, int, int, int, int, int);
  using Add = int (*)(void*, const void*, void*, const void*, const void*, void*, void*);
  auto create = reinterpret_cast<Create>(dlsym(library, "cudnnCreate"));
  auto set_stream = reinterpret_cast<SetStream>(dlsym(library, "cudnnSetStream"));
  auto create_tensor = reinterpret_cast<Create>(dlsym(library, "cudnnCreateTensorDescriptor"));
  auto set_tensor = reinterpret_cast<SetTensor>(dlsym(library, "cudnnSetTensor4dDescriptor"));
  auto add = reinterpret_cast<Add>(dlsym(library, "cudnnAddTensor"));
  if (!create || !set_stream || !create_tensor || !set_tensor || !add)
    TVM_FFI_THROW(RuntimeError) << "cuDNN symbols missing";
  static void* handle = nullptr;
  static void* tensor = nullptr;
  if (handle == nullptr && (create(&handle) != 0 || create_tensor(&tensor) != 0))
    TVM_FFI_THROW(RuntimeError) << "cudnnCreate failed";
  set_stream(handle, stream);
  set_tensor(tensor, 0, 0, 1, 1, 1, count);
  const float one = 1.f;
  if (add(handle, &one, tensor, x, &one, tensor, x + count) != 0)
    TVM_FFI_THROW(RuntimeError) << "cudnnAddTensor failed";
}
#endif

#ifndef ATTENTION_BACKWARD
void run(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
         tvm::ffi::TensorView o, tvm::ffi::TensorView lse) {
  Dims dims = dims_of(q);
  int rows = dims.bh * dims.s;
  forward<<<(rows + 127) / 128, 128, 0, stream_of(q)>>>(
      ptr<const __nv_bfloat16>(q), ptr<const __nv_bfloat16>(k), ptr<const __nv_bfloat16>(v),
      ptr<__nv_bfloat16>(o), ptr<float>(lse), dims);
}
#else
void run(tvm::ffi::TensorView q, tvm::ffi::TensorView k, tvm::ffi::TensorView v,
         tvm::ffi::TensorView o, tvm::ffi::TensorView d_o, tvm::ffi::TensorView lse,
         tvm::ffi::TensorView dq, tvm::ffi::TensorView dk, tvm::ffi::TensorView dv) {
  Dims dims = dims_of(q);
  cudaStream_t stream = stream_of(q);
  long long scores = static_cast<long long>(dims.bh) * dims.s * dims.s;
  float* scratch = nullptr;
  cudaError_t status = cudaMallocAsync(&scratch, 2 * scores * sizeof(float), stream);
  if (status != cudaSuccess) TVM_FFI_THROW(RuntimeError) << cudaGetErrorString(status);
  backward_scores<<<static_cast<unsigned>((scores + 255) / 256), 256, 0, stream>>>(
      ptr<const __nv_bfloat16>(q), ptr<const __nv_bfloat16>(k), ptr<const __nv_bfloat16>(v),
      ptr<const __nv_bfloat16>(o), ptr<const __nv_bfloat16>(d_o), ptr<const float>(lse), scratch,
      scratch + scores, dims);
  long long elements = static_cast<long long>(dims.bh) * dims.s * dims.d;
  backward_gradients<<<static_cast<unsigned>((elements + 255) / 256), 256, 0, stream>>>(
      ptr<const __nv_bfloat16>(q), ptr<const __nv_bfloat16>(k), ptr<const __nv_bfloat16>(d_o),
      scratch, scratch + scores, ptr<__nv_bfloat16>(dq), ptr<__nv_bfloat16>(dk),
      ptr<__nv_bfloat16>(dv), dims);
#ifdef CALLS_CUDNN
  add_with_cudnn(scratch, static_cast<int>(scores), stream);
#endif
  cudaFreeAsync(scratch, stream);
}
#endif

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
