#include "ptxbench/eval/worker/worker_job.hpp"

#include <fmt/format.h>

#include <charconv>

#include "ptxbench/eval/worker/protocol_fields.hpp"
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

// A name read with `parse` (parse_op_type, parse_dtype, ...); an unknown one is a ProtocolError.
template <class Parse>
auto named(const json& object, std::string_view key, Parse&& parse) {
  const auto name = required<std::string>(object, key);
  auto value = parse(name);
  if (!value) throw ProtocolError(fmt::format("{}: unknown '{}'", key, name));
  return *value;
}

TensorDesc tensor_from_json(const json& j) {
  TensorDesc t;
  t.name = required<std::string>(j, "name");
  t.dtype = named(j, "dtype", task::parse_dtype);
  t.shape = required<std::vector<std::int64_t>>(j, "shape");
  t.axes = optional_or(j, "axes", std::vector<std::string>{});
  for (auto extent : t.shape) {
    if (extent < 0) throw ProtocolError("shape: negative extent");
  }
  return t;
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
      {"op_type", task::to_string(job.op_type)},
      {"baseline", task::to_string(job.baseline)},
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
      {"reference_cache", reference_cache::to_json(job.reference_cache)},
      {"limits",
       {{"call_timeout_ms", job.limits.call_timeout.count()},
        {"host_memory_budget_bytes", job.limits.host_memory_budget_bytes}}},
      {"request", to_json(job.request)},
  };
}

util::Expected<WorkerJob> job_from_json(const nlohmann::json& j) {
  auto parsed = parse_protocol("worker job", [&] {
    WorkerJob job;
    job.task = optional_or(j, "task", std::string());
    job.op_type = named(j, "op_type", task::parse_op_type);
    job.baseline = named(j, "baseline", task::parse_baseline);
    job.parameters = optional_or(j, "parameters", std::map<std::string, double>{});
    job.inputs = read_array(j, "inputs", tensor_from_json);
    job.outputs = read_array(j, "outputs", tensor_from_json);
    job.workload = optional_or(j, "workload", std::string());
    if (j.contains("distribution"))
      job.distribution = named(j, "distribution", task::parse_distribution);
    // A string: JSON readers may round integers above 2^53.
    const auto seed = optional_or(j, "seed", std::string("0"));
    const char* end = seed.data() + seed.size();
    if (auto [at, error] = std::from_chars(seed.data(), end, job.seed);
        seed.empty() || error != std::errc() || at != end)
      throw ProtocolError(
          fmt::format("seed: expected a 64-bit whole number as a string ({})", seed));
    job.trials = optional_or(j, "trials", 3);
    if (job.trials < 1) throw ProtocolError("trials: must be >= 1");
    if (j.contains("tolerance")) {
      read_member(j, "tolerance", [&](const json& t) {
        job.tolerance.atol = optional_or(t, "atol", job.tolerance.atol);
        job.tolerance.rtol = optional_or(t, "rtol", job.tolerance.rtol);
        job.tolerance.required_matched_ratio =
            optional_or(t, "required_matched_ratio", job.tolerance.required_matched_ratio);
        return 0;
      });
    }
    job.library = optional_or(j, "library", std::string());
    job.exchange_dir = optional_or(j, "exchange_dir", std::string());
    job.candidate_kernels = optional_or(j, "candidate_kernels", std::vector<std::string>{});
    job.device_memory_limit_bytes = optional_or(j, "device_memory_limit_bytes", std::uint64_t{0});
    job.cache_dir = optional_or(j, "cache_dir", std::string());
    if (j.contains("reference_cache")) {
      job.reference_cache = read_member(j, "reference_cache", [](const json& r) {
        return reference_cache::reference_cache_request_from_json(r);
      });
    }
    if (j.contains("limits")) {
      read_member(j, "limits", [&](const json& l) {
        job.limits.call_timeout = std::chrono::milliseconds(
            optional_or(l, "call_timeout_ms", std::int64_t{job.limits.call_timeout.count()}));
        job.limits.host_memory_budget_bytes =
            optional_or(l, "host_memory_budget_bytes", job.limits.host_memory_budget_bytes);
        return 0;
      });
    }
    member(j, "request");
    return job;
  });
  if (!parsed) return parsed.error();
  auto request = stage_request_from_json(j.at("request"));
  if (!request) return util::make_error("worker job: " + request.error().message);
  parsed->request = std::move(*request);
  return parsed;
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
