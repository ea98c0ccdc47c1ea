#include "ptxbench/eval/correctness/gpu/cudnn_sdpa.hpp"

#include <cudnn.h>
#include <fmt/format.h>

#include <cudnn_frontend.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "ptxbench/eval/correctness/gpu/fastest_choice.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/worker/gpu/cuda_check.hpp"
#include "ptxbench/eval/worker/gpu/device_info.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval::gpu {
namespace {

namespace fe = cudnn_frontend;
using UidMap = std::unordered_map<std::int64_t, void*>;

// Plans the heuristic proposes beyond this are not built: each build can take a while.
constexpr std::int64_t kMaxPlansTried = 3;
constexpr int kSearchRounds = 7;
// Another choice must beat the library's first by more than run-to-run noise under sustained
// load (measured: medians of one GEMM moved by 5% between runs on a power-capped H200).
constexpr double kKeepHeuristicWithin = 0.03;

enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kdO, kdQ, kdK, kdV, kSeqLenQ, kSeqLenKv };

void fe_check(fe::error_t status, const char* what) {
  PTXBENCH_CHECK(status.is_good(), std::string(what) + ": " + status.get_message());
}

// Invariant: holds a created cuDNN handle until destroyed.
class CudnnHandle {
 public:
  CudnnHandle() {
    cudnnStatus_t status = cudnnCreate(&handle_);
    PTXBENCH_CHECK(status == CUDNN_STATUS_SUCCESS,
                   std::string("cudnnCreate: ") + cudnnGetErrorString(status));
  }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  ~CudnnHandle() { cudnnDestroy(handle_); }
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

std::vector<std::int64_t> bhsd_strides(std::int64_t h, std::int64_t s, std::int64_t d) {
  return {h * s * d, s * d, d, 1};
}

std::shared_ptr<fe::graph::Tensor_attributes> bhsd_tensor(fe::graph::Graph& graph, const char* name,
                                                          Uid uid, std::int64_t b, std::int64_t h,
                                                          std::int64_t s, std::int64_t d) {
  return graph.tensor(fe::graph::Tensor_attributes()
                          .set_name(name)
                          .set_uid(uid)
                          .set_dim({b, h, s, d})
                          .set_stride(bhsd_strides(h, s, d)));
}

std::shared_ptr<fe::graph::Graph> new_graph() {
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return graph;
}

std::shared_ptr<fe::graph::Graph> forward_graph(const AttentionShape& s) {
  auto graph = new_graph();
  auto q = bhsd_tensor(*graph, "Q", kQ, s.batch, s.q_heads, s.q_len, s.head_dim);
  auto k = bhsd_tensor(*graph, "K", kK, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto v = bhsd_tensor(*graph, "V", kV, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("sdpa_forward")
                     .set_generate_stats(true)
                     .set_attn_scale(static_cast<float>(s.scale))
                     .set_causal_mask(s.causal);
  auto [o, stats] = graph->sdpa(q, k, v, options);
  o->set_output(true)
      .set_uid(kO)
      .set_dim({s.batch, s.q_heads, s.q_len, s.head_dim})
      .set_stride(bhsd_strides(s.q_heads, s.q_len, s.head_dim));
  stats->set_output(true)
      .set_uid(kStats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({s.batch, s.q_heads, s.q_len, 1})
      .set_stride({s.q_heads * s.q_len, s.q_len, 1, 1});
  return graph;
}

// Decode: one query per sequence (Q, O [B, H, D] seen as [B, H, 1, D]) over K, V [B, Hkv, S, D]
// of which sequence b has its first KV_LEN[b] positions: cuDNN's padding mask, with per-sequence
// lengths as [B, 1, 1, 1] int32 tensors (all query lengths 1).
std::shared_ptr<fe::graph::Graph> decode_graph(const AttentionShape& s) {
  auto graph = new_graph();
  const std::vector<std::int64_t> row_strides{s.q_heads * s.head_dim, s.head_dim, s.head_dim, 1};
  auto q = graph->tensor(fe::graph::Tensor_attributes()
                             .set_name("Q")
                             .set_uid(kQ)
                             .set_dim({s.batch, s.q_heads, 1, s.head_dim})
                             .set_stride(row_strides));
  auto k = bhsd_tensor(*graph, "K", kK, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto v = bhsd_tensor(*graph, "V", kV, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto lengths = [&](const char* name, Uid uid) {
    return graph->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim({s.batch, 1, 1, 1})
                             .set_stride({1, 1, 1, 1})
                             .set_data_type(fe::DataType_t::INT32));
  };
  auto options = fe::graph::SDPA_attributes()
                     .set_name("sdpa_decode")
                     .set_generate_stats(true)
                     .set_attn_scale(static_cast<float>(s.scale))
                     .set_padding_mask(true)
                     .set_seq_len_q(lengths("seq_len_q", kSeqLenQ))
                     .set_seq_len_kv(lengths("seq_len_kv", kSeqLenKv));
  auto [o, stats] = graph->sdpa(q, k, v, options);
  o->set_output(true)
      .set_uid(kO)
      .set_dim({s.batch, s.q_heads, 1, s.head_dim})
      .set_stride(row_strides);
  stats->set_output(true)
      .set_uid(kStats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({s.batch, s.q_heads, 1, 1})
      .set_stride({s.q_heads, 1, 1, 1});
  return graph;
}

std::shared_ptr<fe::graph::Graph> backward_graph(const AttentionShape& s) {
  auto graph = new_graph();
  auto q = bhsd_tensor(*graph, "Q", kQ, s.batch, s.q_heads, s.q_len, s.head_dim);
  auto k = bhsd_tensor(*graph, "K", kK, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto v = bhsd_tensor(*graph, "V", kV, s.batch, s.kv_heads, s.kv_len, s.head_dim);
  auto o = bhsd_tensor(*graph, "O", kO, s.batch, s.q_heads, s.q_len, s.head_dim);
  auto d_o = bhsd_tensor(*graph, "dO", kdO, s.batch, s.q_heads, s.q_len, s.head_dim);
  auto stats = graph->tensor(fe::graph::Tensor_attributes()
                                 .set_name("Stats")
                                 .set_uid(kStats)
                                 .set_dim({s.batch, s.q_heads, s.q_len, 1})
                                 .set_stride({s.q_heads * s.q_len, s.q_len, 1, 1})
                                 .set_data_type(fe::DataType_t::FLOAT));
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("sdpa_backward")
                     .set_attn_scale(static_cast<float>(s.scale))
                     .set_causal_mask(s.causal);
  auto [dq, dk, dv] = graph->sdpa_backward(q, k, v, o, d_o, stats, options);
  dq->set_output(true)
      .set_uid(kdQ)
      .set_dim({s.batch, s.q_heads, s.q_len, s.head_dim})
      .set_stride(bhsd_strides(s.q_heads, s.q_len, s.head_dim));
  dk->set_output(true)
      .set_uid(kdK)
      .set_dim({s.batch, s.kv_heads, s.kv_len, s.head_dim})
      .set_stride(bhsd_strides(s.kv_heads, s.kv_len, s.head_dim));
  dv->set_output(true)
      .set_uid(kdV)
      .set_dim({s.batch, s.kv_heads, s.kv_len, s.head_dim})
      .set_stride(bhsd_strides(s.kv_heads, s.kv_len, s.head_dim));
  return graph;
}

// A built graph with one chosen execution plan and its workspace.
class SdpaPlan {
 public:
  // Builds `graph`; picks the plan cached under `key`, else times up to kMaxPlansTried plans on
  // the `scratch` tensors with a cold L2 and caches the fastest.
  SdpaPlan(std::shared_ptr<fe::graph::Graph> graph, cudnnHandle_t handle, const std::string& key,
           const std::filesystem::path& cache_dir, UidMap& scratch, cudaStream_t stream)
      : graph_(std::move(graph)), handle_(handle) {
    fe_check(graph_->validate(), "validate");
    fe_check(graph_->build_operation_graph(handle_), "build_operation_graph");
    fe_check(graph_->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    fe_check(graph_->check_support(handle_), "check_support");
    std::filesystem::path cache_file;
    if (!cache_dir.empty()) cache_file = cache_dir / ("cudnn-" + util::hash_hex(key) + ".json");
    if (!cache_file.empty() && use_cached(cache_file, key)) return;
    search(scratch, stream);
    if (!cache_file.empty()) {
      nlohmann::json j{{"key", key}, {"plan", plan_name_}, {"ms", best_ms_}, {"tried", tried_}};
      util::write_cache_file(cache_file, j.dump(2) + "\n");
    }
  }

  void execute(UidMap& pointers, cudaStream_t stream) { run_plan(plan_index_, pointers, stream); }

  std::string describe() const {
    return fmt::format("cuDNN SDPA plan {} ({}, {:.4f} ms)", plan_name_,
                       tried_ > 0 ? fmt::format("best of {} timed", tried_) : "cached", best_ms_);
  }

 private:
  bool use_cached(const std::filesystem::path& cache_file, const std::string& key) {
    auto text = util::read_file(cache_file);
    if (!text) return false;
    auto j = nlohmann::json::parse(text.value(), nullptr, false);
    if (j.is_discarded() || j.value("key", "") != key) return false;
    std::string wanted = j.value("plan", "");
    for (std::int64_t i = 0; i < graph_->get_execution_plan_count(); ++i) {
      std::string name;
      if (graph_->get_plan_name_at_index(i, name).is_good() && name == wanted &&
          graph_->build_plan_at_index(handle_, i).is_good()) {
        select(i, name);
        best_ms_ = j.value("ms", 0.0);
        return true;
      }
    }
    return false;
  }

  void select(std::int64_t index, const std::string& name) {
    plan_index_ = index;
    plan_name_ = name;
    std::int64_t bytes = 0;
    fe_check(graph_->get_workspace_size_plan_at_index(index, bytes), "workspace size");
    workspace_ = DeviceBuffer(static_cast<std::size_t>(bytes));
  }

  void run_plan(std::int64_t index, UidMap& pointers, cudaStream_t stream) {
    cudnnStatus_t status = cudnnSetStream(handle_, stream);
    PTXBENCH_CHECK(status == CUDNN_STATUS_SUCCESS, cudnnGetErrorString(status));
    fe_check(graph_->execute_plan_at_index(handle_, pointers, workspace_.data(), index), "execute");
  }

  // Builds up to kMaxPlansTried of the heuristic's plans and keeps the fastest (choose_fastest).
  void search(UidMap& scratch, cudaStream_t stream) {
    std::vector<std::int64_t> built;
    std::vector<std::string> names;
    std::int64_t workspace_bytes = 0;
    std::int64_t count = std::min(graph_->get_execution_plan_count(), kMaxPlansTried);
    for (std::int64_t i = 0; i < count; ++i) {
      std::string name;
      std::int64_t bytes = 0;
      if (!graph_->get_plan_name_at_index(i, name).is_good()) continue;
      if (!graph_->build_plan_at_index(handle_, i).is_good()) continue;
      if (!graph_->get_workspace_size_plan_at_index(i, bytes).is_good()) continue;
      built.push_back(i);
      names.push_back(name);
      workspace_bytes = std::max(workspace_bytes, bytes);
    }
    PTXBENCH_CHECK(!built.empty(), "cuDNN built none of the SDPA plans its heuristic proposed");
    workspace_ = DeviceBuffer(static_cast<std::size_t>(workspace_bytes));
    FastestChoice choice = choose_fastest(
        built.size(), [&](std::size_t k, cudaStream_t s) { run_plan(built[k], scratch, s); },
        kSearchRounds, kKeepHeuristicWithin, stream);
    tried_ = static_cast<int>(built.size());
    best_ms_ = choice.median_ms[choice.index];
    select(built[choice.index], names[choice.index]);
  }

  std::shared_ptr<fe::graph::Graph> graph_;
  cudnnHandle_t handle_;
  std::int64_t plan_index_ = 0;
  std::string plan_name_;
  DeviceBuffer workspace_;
  double best_ms_ = 0;
  int tried_ = 0;
};

std::string cache_key(const char* direction, const AttentionShape& s) {
  return fmt::format("{}|cudnn.sdpa_{}|B={} Hq={} Hkv={} Sq={} Skv={} D={} causal={} scale={:.9g}",
                     query_device_info().fingerprint, direction, s.batch, s.q_heads, s.kv_heads,
                     s.q_len, s.kv_len, s.head_dim, s.causal, s.scale);
}

// Random bf16 scratch tensors for plan timing (never zeros: they run faster than real data).
class ScratchTensors {
 public:
  void add(Uid uid, std::int64_t elements, task::DType dtype, cudaStream_t stream) {
    buffers_.emplace_back(static_cast<std::size_t>(elements) * task::size_bytes(dtype));
    fill_random(buffers_.back().data(), dtype, elements, task::Distribution::kNormal,
                static_cast<std::uint64_t>(uid), stream);
    pointers_[uid] = buffers_.back().data();
  }
  UidMap& pointers() { return pointers_; }

 private:
  std::vector<DeviceBuffer> buffers_;
  UidMap pointers_;
};

class CudnnSdpa final : public Baseline {
 public:
  CudnnSdpa(const AttentionShape& shape, bool backward, const std::filesystem::path& cache_dir,
            cudaStream_t stream)
      : shape_(shape), backward_(backward) {
    std::int64_t q = shape.batch * shape.q_heads * shape.q_len * shape.head_dim;
    std::int64_t kv = shape.batch * shape.kv_heads * shape.kv_len * shape.head_dim;
    std::int64_t rows = shape.batch * shape.q_heads * shape.q_len;
    ScratchTensors scratch;
    scratch.add(kQ, q, task::DType::kBFloat16, stream);
    scratch.add(kK, kv, task::DType::kBFloat16, stream);
    scratch.add(kV, kv, task::DType::kBFloat16, stream);
    scratch.add(kO, q, task::DType::kBFloat16, stream);
    scratch.add(kStats, rows, task::DType::kFloat32, stream);
    forward_ =
        std::make_unique<SdpaPlan>(forward_graph(shape), handle_.get(), cache_key("fwd", shape),
                                   cache_dir, scratch.pointers(), stream);
    if (backward_) {
      forward_->execute(scratch.pointers(), stream);  // consistent O and Stats for the timing
      scratch.add(kdO, q, task::DType::kBFloat16, stream);
      scratch.add(kdQ, q, task::DType::kBFloat16, stream);
      scratch.add(kdK, kv, task::DType::kBFloat16, stream);
      scratch.add(kdV, kv, task::DType::kBFloat16, stream);
      backward_plan_ =
          std::make_unique<SdpaPlan>(backward_graph(shape), handle_.get(), cache_key("bwd", shape),
                                     cache_dir, scratch.pointers(), stream);
    }
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::string describe() const override {
    return backward_ ? backward_plan_->describe() : forward_->describe();
  }

  // Forward: inputs Q, K, V; outputs O, LSE. Backward: inputs Q, K, V, O, dO, LSE; outputs
  // dQ, dK, dV.
  void run(std::span<DeviceTensor> in, std::span<DeviceTensor> out, cudaStream_t stream) override {
    if (!backward_) {
      UidMap p{{kQ, in[0].data()},
               {kK, in[1].data()},
               {kV, in[2].data()},
               {kO, out[0].data()},
               {kStats, out[1].data()}};
      forward_->execute(p, stream);
      return;
    }
    UidMap p{{kQ, in[0].data()},   {kK, in[1].data()},   {kV, in[2].data()},
             {kO, in[3].data()},   {kdO, in[4].data()},  {kStats, in[5].data()},
             {kdQ, out[0].data()}, {kdK, out[1].data()}, {kdV, out[2].data()}};
    backward_plan_->execute(p, stream);
  }

  void derive_inputs(std::span<DeviceTensor> in, cudaStream_t stream) override {
    if (!backward_) return;
    UidMap p{{kQ, in[0].data()},
             {kK, in[1].data()},
             {kV, in[2].data()},
             {kO, in[3].data()},
             {kStats, in[5].data()}};
    forward_->execute(p, stream);
  }

 private:
  AttentionShape shape_;
  bool backward_;
  CudnnHandle handle_;
  std::unique_ptr<SdpaPlan> forward_;
  std::unique_ptr<SdpaPlan> backward_plan_;
};

// Decode: inputs Q, K, V, KV_LEN (the valid lengths, already made from their draw:
// DeviceTensors::draw_inputs); outputs O, LSE. The query lengths are a buffer of ones it owns.
class CudnnSdpaDecode final : public Baseline {
 public:
  CudnnSdpaDecode(const AttentionShape& shape, const std::filesystem::path& cache_dir,
                  cudaStream_t stream)
      : shape_(shape),
        query_lengths_(static_cast<std::size_t>(shape.batch) * sizeof(std::int32_t)) {
    const std::vector<std::int32_t> ones(static_cast<std::size_t>(shape.batch), 1);
    PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(query_lengths_.data(), ones.data(), query_lengths_.bytes(),
                                        cudaMemcpyHostToDevice, stream));
    std::int64_t q = shape.batch * shape.q_heads * shape.head_dim;
    std::int64_t kv = shape.batch * shape.kv_heads * shape.kv_len * shape.head_dim;
    ScratchTensors scratch;
    scratch.add(kQ, q, task::DType::kBFloat16, stream);
    scratch.add(kK, kv, task::DType::kBFloat16, stream);
    scratch.add(kV, kv, task::DType::kBFloat16, stream);
    scratch.add(kO, q, task::DType::kBFloat16, stream);
    scratch.add(kStats, shape.batch * shape.q_heads, task::DType::kFloat32, stream);
    // Plans are timed on full caches: every sequence at the capacity.
    full_lengths_ = DeviceBuffer(query_lengths_.bytes());
    const std::vector<std::int32_t> full(static_cast<std::size_t>(shape.batch),
                                         static_cast<std::int32_t>(shape.kv_len));
    PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(full_lengths_.data(), full.data(), full_lengths_.bytes(),
                                        cudaMemcpyHostToDevice, stream));
    scratch.pointers()[kSeqLenQ] = query_lengths_.data();
    scratch.pointers()[kSeqLenKv] = full_lengths_.data();
    plan_ =
        std::make_unique<SdpaPlan>(decode_graph(shape), handle_.get(), cache_key("decode", shape),
                                   cache_dir, scratch.pointers(), stream);
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::string describe() const override { return plan_->describe() + ", padding mask"; }

  void run(std::span<DeviceTensor> in, std::span<DeviceTensor> out, cudaStream_t stream) override {
    UidMap p{{kQ, in[0].data()},
             {kK, in[1].data()},
             {kV, in[2].data()},
             {kSeqLenKv, in[3].data()},
             {kSeqLenQ, query_lengths_.data()},
             {kO, out[0].data()},
             {kStats, out[1].data()}};
    plan_->execute(p, stream);
  }

 private:
  AttentionShape shape_;
  CudnnHandle handle_;
  DeviceBuffer query_lengths_;
  DeviceBuffer full_lengths_;
  std::unique_ptr<SdpaPlan> plan_;
};

bool is_bhsd(const worker::TensorDesc& t, task::DType dtype) {
  return t.shape.size() == 4 && t.dtype == dtype;
}

bool same_shape(const worker::TensorDesc& t, std::vector<std::int64_t> shape) {
  return t.shape == shape;
}

util::Expected<AttentionShape> attention_shape(const worker::WorkerJob& job, bool backward) {
  std::size_t want_inputs = backward ? 6 : 3, want_outputs = backward ? 3 : 2;
  const char* name = backward ? "cudnn.sdpa_bwd" : "cudnn.sdpa_fwd";
  auto bad = [&](const std::string& why) {
    return util::make_error(std::string(name) + ": " + why);
  };
  if (job.inputs.size() != want_inputs || job.outputs.size() != want_outputs) {
    return bad(backward ? "needs inputs Q, K, V, O, dO, LSE and outputs dQ, dK, dV"
                        : "needs inputs Q, K, V and outputs O, LSE");
  }
  const auto& q = job.inputs[0];
  const auto& k = job.inputs[1];
  if (!is_bhsd(q, task::DType::kBFloat16) || !is_bhsd(k, task::DType::kBFloat16) ||
      !is_bhsd(job.inputs[2], task::DType::kBFloat16)) {
    return bad("Q, K and V must be bf16 [B, H, S, D]");
  }
  AttentionShape s{.batch = q.shape[0],
                   .q_heads = q.shape[1],
                   .kv_heads = k.shape[1],
                   .q_len = q.shape[2],
                   .kv_len = k.shape[2],
                   .head_dim = q.shape[3]};
  std::vector<std::int64_t> q_shape = q.shape, kv_shape = k.shape;
  std::vector<std::int64_t> lse_shape{s.batch, s.q_heads, s.q_len};
  if (!same_shape(job.inputs[2], kv_shape) || k.shape[0] != s.batch || k.shape[3] != s.head_dim ||
      s.q_heads % std::max<std::int64_t>(s.kv_heads, 1) != 0) {
    return bad("K and V must be [B, Hkv, Skv, D] with Hkv dividing H");
  }
  const worker::TensorDesc* lse = nullptr;
  if (backward) {
    if (!same_shape(job.inputs[3], q_shape) || !same_shape(job.inputs[4], q_shape) ||
        !same_shape(job.outputs[0], q_shape) || !same_shape(job.outputs[1], kv_shape) ||
        !same_shape(job.outputs[2], kv_shape)) {
      return bad("O, dO, dQ must have Q's shape and dK, dV K's shape");
    }
    lse = &job.inputs[5];
  } else {
    if (!same_shape(job.outputs[0], q_shape)) return bad("O must have Q's shape");
    lse = &job.outputs[1];
  }
  if (lse->dtype != task::DType::kFloat32 || !same_shape(*lse, lse_shape)) {
    return bad("LSE must be float32 [B, H, S]");
  }
  auto causal = job.parameters.find("causal");
  s.causal = causal != job.parameters.end() && causal->second != 0;
  auto scale = job.parameters.find("scale");
  s.scale = scale != job.parameters.end() ? scale->second
                                          : 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  return s;
}

util::Expected<std::unique_ptr<Baseline>> make_sdpa(const worker::WorkerJob& job, bool backward,
                                                    cudaStream_t stream) {
  auto shape = attention_shape(job, backward);
  if (!shape) return shape.error();
  try {
    return std::unique_ptr<Baseline>(
        std::make_unique<CudnnSdpa>(shape.value(), backward, job.cache_dir, stream));
  } catch (const std::exception& e) {
    // cuDNN refusing a shape (head dim, mask) is a limit of the baseline, not a ptxbench bug.
    return util::make_error(std::string(backward ? "cudnn.sdpa_bwd" : "cudnn.sdpa_fwd") +
                            " unavailable for this shape: " + e.what());
  }
}

util::Expected<AttentionShape> decode_shape(const worker::WorkerJob& job) {
  auto bad = [](const std::string& why) { return util::make_error("cudnn.sdpa_decode: " + why); };
  if (job.inputs.size() != 4 || job.outputs.size() != 2) {
    return bad("needs inputs Q, K, V, KV_LEN and outputs O, LSE");
  }
  const auto& q = job.inputs[0];
  const auto& k = job.inputs[1];
  if (q.shape.size() != 3 || q.dtype != task::DType::kBFloat16 ||
      !is_bhsd(k, task::DType::kBFloat16) || job.inputs[2].shape != k.shape ||
      job.inputs[2].dtype != task::DType::kBFloat16) {
    return bad("Q must be bf16 [B, H, D] and K, V bf16 [B, HKV, S, D]");
  }
  AttentionShape s{.batch = q.shape[0],
                   .q_heads = q.shape[1],
                   .kv_heads = k.shape[1],
                   .q_len = 1,
                   .kv_len = k.shape[2],
                   .head_dim = q.shape[2]};
  if (k.shape[0] != s.batch || k.shape[3] != s.head_dim || s.kv_heads == 0 ||
      s.q_heads % s.kv_heads != 0) {
    return bad("K and V must be [B, HKV, S, D] with HKV dividing H");
  }
  const auto& lengths = job.inputs[3];
  if (lengths.dtype != task::DType::kInt32 || lengths.shape != std::vector<std::int64_t>{s.batch}) {
    return bad("KV_LEN must be int32 [B]");
  }
  if (job.outputs[0].shape != q.shape || job.outputs[1].dtype != task::DType::kFloat32 ||
      job.outputs[1].shape != std::vector<std::int64_t>{s.batch, s.q_heads}) {
    return bad("O must have Q's shape and LSE be float32 [B, H]");
  }
  auto scale = job.parameters.find("scale");
  s.scale = scale != job.parameters.end() ? scale->second
                                          : 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  return s;
}

}  // namespace

util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_decode(const worker::WorkerJob& job,
                                                                 cudaStream_t stream) {
  auto shape = decode_shape(job);
  if (!shape) return shape.error();
  try {
    return std::unique_ptr<Baseline>(
        std::make_unique<CudnnSdpaDecode>(shape.value(), job.cache_dir, stream));
  } catch (const std::exception& e) {
    return util::make_error(std::string("cudnn.sdpa_decode unavailable for this shape: ") +
                            e.what());
  }
}

util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_forward(const worker::WorkerJob& job,
                                                                  cudaStream_t stream) {
  return make_sdpa(job, false, stream);
}

util::Expected<std::unique_ptr<Baseline>> make_cudnn_sdpa_backward(const worker::WorkerJob& job,
                                                                   cudaStream_t stream) {
  return make_sdpa(job, true, stream);
}

}  // namespace ptxbench::eval::gpu
