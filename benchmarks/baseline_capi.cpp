// libptxbench_baselines_capi.so: ptxbench's baselines (make_baseline: cuBLASLt GEMM with its
// algorithm search, cuDNN SDPA forward+LSE and backward) behind a small C ABI, so that
// benchmarks/interleaved_baselines.py can time them call by call against PyTorch in one
// process, on PyTorch's tensors and stream. The jobs are those of baseline_jobs.hpp and the
// algorithm choice is read from (or written to) the same on-disk cache as the
// timing stage's. No exception crosses the boundary: every entry returns a status and, on
// failure, writes a message into the caller's buffer.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include <cudnn_frontend_version.h>

#include "baseline_jobs.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"

#define PTXB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using ptxbench::eval::gpu::Baseline;
using ptxbench::eval::gpu::DeviceTensor;
using ptxbench::eval::worker::TensorDesc;
using ptxbench::eval::worker::WorkerJob;

constexpr int kOk = 0;
constexpr int kError = 1;

// Copies as much of `text` as fits, always terminated; returns the full length.
std::size_t copy_text(const std::string& text, char* buffer, std::size_t size) {
  if (buffer != nullptr && size > 0) {
    std::size_t n = std::min(text.size(), size - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

// Runs `body`, turning an exception into kError and its message.
template <class Body>
int guarded(char* message, std::size_t message_size, Body&& body) {
  try {
    body();
    copy_text("", message, message_size);
    return kOk;
  } catch (const std::exception& e) {
    copy_text(e.what(), message, message_size);
  } catch (...) {
    copy_text("unknown exception", message, message_size);
  }
  return kError;
}

cudaStream_t as_stream(void* stream) {
  return static_cast<cudaStream_t>(stream);
}

}  // namespace

// One baseline for one job's shapes, with views of the caller's tensors (re-pointed whenever
// the caller passes other addresses).
struct ptxb_baseline {
  WorkerJob job;
  std::unique_ptr<Baseline> baseline;
  std::vector<DeviceTensor> inputs;
  std::vector<DeviceTensor> outputs;
};

namespace {

void point_views(std::vector<DeviceTensor>& views, const std::vector<TensorDesc>& descs,
                 void* const* pointers, int count, const char* what) {
  if (count < 0 || static_cast<std::size_t>(count) != descs.size()) {
    throw std::invalid_argument(std::string("expected ") + std::to_string(descs.size()) + " " +
                                what + " pointers, got " + std::to_string(count));
  }
  if (views.size() != descs.size()) views.clear();
  for (std::size_t i = 0; i < descs.size(); ++i) {
    if (pointers == nullptr || pointers[i] == nullptr) {
      throw std::invalid_argument(std::string(what) + " " + descs[i].name + " is a null pointer");
    }
    if (i < views.size()) {
      if (views[i].data() != pointers[i]) views[i] = DeviceTensor::view(descs[i], pointers[i]);
    } else {
      views.push_back(DeviceTensor::view(descs[i], pointers[i]));
    }
  }
}

int create(WorkerJob job, void* stream, ptxb_baseline** out, char* message,
           std::size_t message_size) {
  return guarded(message, message_size, [&] {
    if (out == nullptr) throw std::invalid_argument("null output handle");
    *out = nullptr;
    auto made = ptxbench::eval::gpu::make_baseline(job, as_stream(stream));
    if (!made) throw std::runtime_error(made.error().message);
    auto handle = std::make_unique<ptxb_baseline>();
    handle->job = std::move(job);
    handle->baseline = std::move(made.value());
    *out = handle.release();
  });
}

}  // namespace

// bf16 C[M, N] = A[M, K] · B[N, K]ᵀ; inputs A, B; output C.
PTXB_EXPORT int ptxb_baseline_create_gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                          void* stream, ptxb_baseline** out, char* message,
                                          std::size_t message_size) {
  return create(ptxbench::bench::gemm_job(m, n, k), stream, out, message, message_size);
}

// bf16 attention on [B, H, S, D], scale 1/sqrt(D). Forward (backward == 0): inputs Q, K, V;
// outputs O, LSE (fp32 [B, H, S]). Backward: inputs Q, K, V, O, dO, LSE; outputs dQ, dK, dV.
PTXB_EXPORT int ptxb_baseline_create_attention(int backward, std::int64_t batch, std::int64_t heads,
                                               std::int64_t seq_len, std::int64_t head_dim,
                                               int causal, void* stream, ptxb_baseline** out,
                                               char* message, std::size_t message_size) {
  return create(
      ptxbench::bench::attention_job(backward != 0, batch, heads, seq_len, head_dim, causal != 0),
      stream, out, message, message_size);
}

// How many device pointers run() takes.
PTXB_EXPORT int ptxb_baseline_arity(const ptxb_baseline* handle, int* inputs, int* outputs) {
  if (handle == nullptr || inputs == nullptr || outputs == nullptr) return kError;
  *inputs = static_cast<int>(handle->job.inputs.size());
  *outputs = static_cast<int>(handle->job.outputs.size());
  return kOk;
}

// Queues one call on `stream` (asynchronous, like the timing stage's call).
PTXB_EXPORT int ptxb_baseline_run(ptxb_baseline* handle, void* const* inputs, int input_count,
                                  void* const* outputs, int output_count, void* stream,
                                  char* message, std::size_t message_size) {
  return guarded(message, message_size, [&] {
    if (handle == nullptr) throw std::invalid_argument("null baseline");
    point_views(handle->inputs, handle->job.inputs, inputs, input_count, "input");
    point_views(handle->outputs, handle->job.outputs, outputs, output_count, "output");
    handle->baseline->run(handle->inputs, handle->outputs, as_stream(stream));
  });
}

// Fills the inputs the operator derives (attention backward: O and LSE from the forward on the
// same Q, K, V), as the timing stage does before a backward trial. Queued on `stream`.
PTXB_EXPORT int ptxb_baseline_derive_inputs(ptxb_baseline* handle, void* const* inputs,
                                            int input_count, void* stream, char* message,
                                            std::size_t message_size) {
  return guarded(message, message_size, [&] {
    if (handle == nullptr) throw std::invalid_argument("null baseline");
    point_views(handle->inputs, handle->job.inputs, inputs, input_count, "input");
    handle->baseline->derive_inputs(handle->inputs, as_stream(stream));
  });
}

// The baseline's one-line description (library, algorithm/engine, how it was chosen); returns
// its full length, so a caller whose buffer was too small can ask again.
PTXB_EXPORT std::size_t ptxb_baseline_describe(const ptxb_baseline* handle, char* text,
                                               std::size_t size) {
  if (handle == nullptr) return copy_text("", text, size);
  try {
    return copy_text(handle->baseline->describe(), text, size);
  } catch (...) {
    return copy_text("(description unavailable)", text, size);
  }
}

PTXB_EXPORT void ptxb_baseline_destroy(ptxb_baseline* handle) {
  delete handle;
}

// JSON: the versions of the libraries this process resolved for the baselines (cuBLASLt, cuDNN,
// CUDA runtime), the cudnn-frontend headers compiled in, and the algorithm cache folder.
PTXB_EXPORT std::size_t ptxb_library_versions(char* json, std::size_t size) {
  try {
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    nlohmann::json j{{"cublaslt", cublasLtGetVersion()},
                     {"cudnn", cudnnGetVersion()},
                     {"cuda_runtime", runtime},
                     {"cudnn_frontend", CUDNN_FRONTEND_VERSION},
                     {"baseline_cache_dir", ptxbench::eval::default_baseline_cache_dir().string()}};
    return copy_text(j.dump(), json, size);
  } catch (...) {
    return copy_text("{}", json, size);
  }
}
