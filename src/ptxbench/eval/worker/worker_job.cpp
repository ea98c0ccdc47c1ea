#include "ptxbench/eval/worker/worker_job.hpp"

#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval::worker {
namespace {

using nlohmann::json;

json tensor_to_json(const TensorDesc& t) {
  return json{{"name", t.name},
              {"dtype", std::string(task::to_string(t.dtype))},
              {"shape", t.shape},
              {"axes", t.axes}};
}

util::Expected<TensorDesc> tensor_from_json(const json& j) {
  TensorDesc t;
  t.name = j.at("name").get<std::string>();
  auto dtype = task::parse_dtype(j.at("dtype").get<std::string>());
  if (!dtype) return util::make_error("tensor " + t.name + ": unknown dtype");
  t.dtype = *dtype;
  t.shape = j.at("shape").get<std::vector<std::int64_t>>();
  t.axes = j.value("axes", std::vector<std::string>{});
  for (auto extent : t.shape) {
    if (extent < 0) return util::make_error("tensor " + t.name + ": negative extent");
  }
  return t;
}

util::Expected<std::vector<TensorDesc>> tensors_from_json(const json& j) {
  std::vector<TensorDesc> out;
  for (const auto& item : j) {
    auto t = tensor_from_json(item);
    if (!t) return t.error();
    out.push_back(std::move(t.value()));
  }
  return out;
}

}  // namespace

std::int64_t TensorDesc::elements() const {
  std::int64_t n = 1;
  for (auto extent : shape) n *= extent;
  return n;
}

std::size_t TensorDesc::bytes() const {
  return static_cast<std::size_t>(elements()) * task::size_bytes(dtype);
}

std::uint64_t trial_seed(std::uint64_t workload_seed, int trial) {
  return util::Fnv1a64().add(std::to_string(workload_seed)).add(std::to_string(trial)).value();
}

WorkerJob make_job(const task::Task& task, const task::Workload& workload) {
  WorkerJob job;
  job.task = task.name;
  job.op_type = task.op_type;
  job.baseline = task.baseline;
  job.parameters = task.parameters;
  auto describe = [&](const task::TensorSpec& spec) {
    return TensorDesc{.name = spec.name,
                      .dtype = spec.dtype,
                      .shape = task.shape_of(spec, workload),
                      .axes = spec.shape};
  };
  for (const auto& spec : task.inputs) job.inputs.push_back(describe(spec));
  for (const auto& spec : task.outputs) job.outputs.push_back(describe(spec));
  job.workload = workload.name;
  job.distribution = workload.distribution;
  job.seed = workload.seed;
  job.tolerance = task.tolerance;
  return job;
}

nlohmann::json to_json(const WorkerJob& job) {
  json inputs = json::array(), outputs = json::array();
  for (const auto& t : job.inputs) inputs.push_back(tensor_to_json(t));
  for (const auto& t : job.outputs) outputs.push_back(tensor_to_json(t));
  return json{
      {"task", job.task},
      {"op_type", job.op_type},
      {"baseline", job.baseline},
      {"parameters", job.parameters},
      {"inputs", inputs},
      {"outputs", outputs},
      {"workload", job.workload},
      {"distribution", std::string(task::to_string(job.distribution))},
      // As a string: JSON readers may round integers above 2^53.
      {"seed", std::to_string(job.seed)},
      {"trials", job.trials},
      {"tolerance",
       {{"atol", job.tolerance.atol},
        {"rtol", job.tolerance.rtol},
        {"required_matched_ratio", job.tolerance.required_matched_ratio}}},
      {"library", job.library.string()},
      {"exchange_dir", job.exchange_dir.string()},
      {"candidate_kernels", job.candidate_kernels},
      {"device_memory_limit_bytes", job.device_memory_limit_bytes},
      {"cache_dir", job.cache_dir.string()},
      {"limits",
       {{"call_timeout_ms", job.limits.call_timeout.count()},
        {"host_memory_budget_bytes", job.limits.host_memory_budget_bytes}}},
      {"request", to_json(job.request)},
  };
}

util::Expected<WorkerJob> job_from_json(const nlohmann::json& j) {
  try {
    WorkerJob job;
    job.task = j.value("task", "");
    job.op_type = j.at("op_type").get<std::string>();
    job.baseline = j.value("baseline", "");
    job.parameters = j.value("parameters", std::map<std::string, double>{});
    auto inputs = tensors_from_json(j.at("inputs"));
    if (!inputs) return inputs.error();
    auto outputs = tensors_from_json(j.at("outputs"));
    if (!outputs) return outputs.error();
    job.inputs = std::move(inputs.value());
    job.outputs = std::move(outputs.value());
    job.workload = j.value("workload", "");
    auto distribution = task::parse_distribution(j.value("distribution", "normal"));
    if (!distribution) return util::make_error("unknown distribution");
    job.distribution = *distribution;
    job.seed = std::stoull(j.value("seed", std::string("0")));
    job.trials = j.value("trials", 3);
    if (j.contains("tolerance")) {
      const auto& t = j.at("tolerance");
      job.tolerance.atol = t.value("atol", job.tolerance.atol);
      job.tolerance.rtol = t.value("rtol", job.tolerance.rtol);
      job.tolerance.required_matched_ratio =
          t.value("required_matched_ratio", job.tolerance.required_matched_ratio);
    }
    job.library = j.value("library", "");
    job.exchange_dir = j.value("exchange_dir", "");
    job.candidate_kernels = j.value("candidate_kernels", std::vector<std::string>{});
    job.device_memory_limit_bytes = j.value("device_memory_limit_bytes", std::uint64_t{0});
    job.cache_dir = j.value("cache_dir", "");
    if (j.contains("limits")) {
      const auto& l = j.at("limits");
      job.limits.call_timeout = std::chrono::milliseconds(
          l.value("call_timeout_ms", std::int64_t{job.limits.call_timeout.count()}));
      job.limits.host_memory_budget_bytes =
          l.value("host_memory_budget_bytes", job.limits.host_memory_budget_bytes);
    }
    if (!j.contains("request")) return util::make_error("worker job: request: missing");
    auto request = stage_request_from_json(j.at("request"));
    if (!request) return util::make_error("worker job: " + request.error().message);
    job.request = std::move(*request);
    if (job.trials < 1) return util::make_error("trials must be >= 1");
    return job;
  } catch (const std::exception& e) {
    return util::make_error(std::string("malformed worker job: ") + e.what());
  }
}

util::Expected<WorkerJob> parse_job(std::string_view text) {
  auto j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return util::make_error("worker job is not JSON");
  return job_from_json(j);
}

std::string format_jobs(const std::vector<WorkerJob>& jobs) {
  json list = json::array();
  for (const auto& job : jobs) list.push_back(to_json(job));
  return json{{"jobs", list}}.dump() + "\n";
}

util::Expected<std::vector<WorkerJob>> parse_jobs(std::string_view text) {
  auto j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return util::make_error("worker jobs are not a JSON object");
  std::vector<WorkerJob> jobs;
  if (!j.contains("jobs")) {
    auto job = job_from_json(j);
    if (!job) return job.error();
    jobs.push_back(std::move(job.value()));
    return jobs;
  }
  if (!j.at("jobs").is_array() || j.at("jobs").empty()) return util::make_error("no worker jobs");
  for (const auto& item : j.at("jobs")) {
    auto job = job_from_json(item);
    if (!job) return job.error();
    jobs.push_back(std::move(job.value()));
  }
  return jobs;
}

}  // namespace ptxbench::eval::worker
