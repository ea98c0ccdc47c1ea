// What one ptxbench-worker process is asked to do: the operator, the concrete tensors of one
// workload, the seed, the candidate library, the limits of a candidate call and the stage's own
// request (stage_request.hpp). The trusted side builds it from a task and a workload and hands
// it to the worker as JSON on stdin, so the worker needs no task file and tests can build jobs by
// hand.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptxbench/eval/reference_cache/reference_store.hpp"
#include "ptxbench/eval/worker/stage_request.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

// One tensor with its concrete shape. `axes` keeps the task's axis names per dimension, which
// is how attention baselines find batch/heads/sequence/head_dim in either layout.
struct TensorDesc {
  std::string name;
  task::DType dtype = task::DType::kBFloat16;
  std::vector<std::int64_t> shape;
  std::vector<std::string> axes;

  std::int64_t elements() const;
  std::size_t bytes() const;
};

// What one candidate process may spend (untrusted modes: candidate, probe, time).
struct CallLimits {
  std::chrono::milliseconds call_timeout{std::chrono::seconds(20)};  // one run() and its kernels
  std::uint64_t host_memory_budget_bytes = 16ull << 30;  // resident memory; 0: unwatched
};

struct WorkerJob {
  std::string task;  // task name, for messages
  task::OpType op_type = task::OpType::kGemm;
  task::Baseline baseline = task::Baseline::kCublasLtGemmBf16Nt;
  std::map<std::string, double> parameters;  // op constants: causal, scale, ...
  std::vector<TensorDesc> inputs;            // ABI order: run(inputs..., outputs...)
  std::vector<TensorDesc> outputs;
  std::string workload;
  task::Distribution distribution = task::Distribution::kNormal;
  std::uint64_t seed = 0;  // the workload's seed; trial t uses trial_seed(seed, t)
  int trials = 3;
  task::Tolerance tolerance;
  std::filesystem::path library;                // the candidate's shared object (untrusted modes)
  std::filesystem::path exchange_dir;           // candidate outputs handed from candidate to judge
  std::vector<std::string> candidate_kernels;   // kernels of the candidate's cubin (mangled)
  std::uint64_t device_memory_limit_bytes = 0;  // 0: no limit beyond the GPU's
  std::filesystem::path cache_dir;              // baseline algorithm cache (empty: none)
  // The judge's reference cache (trusted mode `judge` only; no dir: off).
  reference_cache::ReferenceCacheRequest reference_cache;
  CallLimits limits;
  StageRequest request;  // which mode serves the job, with that stage's settings
};

// The seed of trial `trial` (0-based) of a workload: distinct, reproducible, recorded.
std::uint64_t trial_seed(std::uint64_t workload_seed, int trial);

// The job for one workload of a task (shapes resolved, tolerance and parameters copied).
WorkerJob make_job(const task::Task& task, const task::Workload& workload);

nlohmann::json to_json(const WorkerJob& job);
util::Expected<WorkerJob> job_from_json(const nlohmann::json& json);
util::Expected<WorkerJob> parse_job(std::string_view text);

// Several jobs for one worker process: {"jobs": [job, ...]}; a single job object is accepted too.
std::string format_jobs(const std::vector<WorkerJob>& jobs);
util::Expected<std::vector<WorkerJob>> parse_jobs(std::string_view text);

}  // namespace ptxbench::eval::worker
