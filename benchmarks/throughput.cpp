// Verdicts per GPU-hour of the engine's scheduler on the CPU: streams of candidates through the
// real Scheduler with a faked toolchain and fake GPU stages whose times are modelled on the H200
// figures recorded in docs/gpu-results/ (issue 27), scaled down by SCALE so a run takes seconds.
// It prints, per stream, GPU count and --gpu-concurrency: verdicts per GPU-hour (in modelled
// time), p50/p95 modelled seconds per phase and per verdict, and whether a GPU sat idle while
// compiled candidates waited. The real figures come from benchmarks/gpu-check/parts/
// 36-throughput-concurrency.sh and 37-fast-judge.sh on the GPU, whose records
// `throughput records` reads: p50/p95 of every stage part measured (throughput_records.cpp).
//   throughput [SCALE=0.01] [CONCURRENCY=4]
//   throughput records RECORDS.jsonl... [--gpus N --wall-seconds S]
//
// The model (modelled seconds; each worker process also costs 0.5 s to start):
//   compile 6 s of one CPU core (4-8 s measured); compile errors fail there
//   GEMM, good      shared: max(sanitize 2, correctness 3.5 of which judge 2.4) + 2 starts;
//                   exclusive: proof 0.5 + timing 0.5 + 2 starts
//   attention fwd   shared 35 s (7 workloads x 3 trials against cuDNN and the high-precision
//   d128            reference), exclusive 5 s: ~90 verdicts per GPU-hour today
//   attention bwd   shared 72 s (racecheck 17-24 s beside correctness), exclusive 8 s: ~45/GPU-h
//   mixed GEMM      1 in 4 a compile error (no GPU), 1 in 4 incorrect (shared phase only),
//                   1 in 8 a timeout (shared phase to the 20 s call deadline), the rest good
// Shared phases that run together slow each other: each lasts (1 + kContention * (others
// running)) times its time alone, an assumption (the GPU is busy for part of a correctness run
// only: process starts, host copies and the judge's comparison are not GPU-bound) that the GPU
// run replaces with a measurement.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../tests/eval/fake_toolchain.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "throughput_records.hpp"

namespace {

using namespace ptxbench;  // NOLINT(google-build-using-namespace): a benchmark's main file
using Clock = std::chrono::steady_clock;

constexpr double kCompileSeconds = 6.0;
constexpr double kWorkerStartSeconds = 0.5;
constexpr double kContention = 0.3;

struct StageModel {
  double shared_s = 0;
  double exclusive_s = 0;
};

StageModel model_of(const std::string& stream) {
  if (stream == "attention_fwd_d128") return {35.0, 5.0};
  if (stream == "attention_bwd_d128") return {72.0, 8.0};
  return {std::max(2.0 + kWorkerStartSeconds, 3.5 + 2 * kWorkerStartSeconds),
          0.5 + 0.5 + 2 * kWorkerStartSeconds};
}

// Percentiles of modelled seconds.
struct Samples {
  std::mutex mutex;
  std::map<std::string, std::vector<double>> by_name;
  void add(const std::string& name, double seconds) {
    std::lock_guard lock(mutex);
    by_name[name].push_back(seconds);
  }
  static double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
  }
};

// Plays nvcc for the stream: a candidate named "cerr-*" fails to compile after the same time.
class ModelToolchain final : public util::ProcessRunner {
 public:
  explicit ModelToolchain(std::chrono::milliseconds compile_time) {
    inner_.compile_time = compile_time;
  }
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    const auto tool = std::filesystem::path(spec.argv.front()).filename().string();
    const bool version = spec.argv.size() == 2 && spec.argv[1] == "--version";
    if (tool == "nvcc" && !version &&
        spec.working_dir.filename().string().find("cerr") != std::string::npos) {
      std::this_thread::sleep_for(inner_.compile_time);
      return util::ProcessResult{
          .started = true, .exit_code = 2, .stderr_text = "candidate.cu(3): error: expected ;"};
    }
    return inner_.run(spec);
  }

 private:
  testing::FakeToolchain inner_;
};

// One modelled GPU: phases sleep their scaled time; records phase times and idle gaps.
class ModelGpu final : public eval::GpuStages {
 public:
  ModelGpu(StageModel model, double scale, Samples& samples)
      : model_(model), scale_(scale), samples_(samples) {}
  bool available(arch::Arch, std::string&) override { return true; }
  void run(const task::Task& task, const eval::CompiledCandidate& c, eval::Evaluation& e) override {
    if (run_shared(task, c, e)) run_exclusive(task, c, e);
  }
  bool run_shared(const task::Task&, const eval::CompiledCandidate&, eval::Evaluation& e) override {
    const int others = shared_running_++;
    double seconds = model_.shared_s * (1 + kContention * others);
    const bool incorrect = e.source_name.rfind("wrong", 0) == 0;
    const bool timeout = e.source_name.rfind("hang", 0) == 0;
    if (timeout) seconds = 20.0 + 3 * kWorkerStartSeconds;
    if (incorrect) seconds *= 0.8;  // the judge stops at the first failing chunk
    spend("shared", seconds);
    --shared_running_;
    if (timeout || incorrect) {
      e.verdict = timeout ? eval::Verdict::kTimeout : eval::Verdict::kIncorrectNumerical;
      e.message = "modelled";
      return false;
    }
    return true;
  }
  void run_exclusive(const task::Task&, const eval::CompiledCandidate&,
                     eval::Evaluation& e) override {
    spend("exclusive", model_.exclusive_s);
    e.verdict = eval::Verdict::kPassed;
  }
  double busy_seconds() const { return busy_us_.load() / 1e6; }

 private:
  void spend(const char* phase, double seconds) {
    const auto start = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds * scale_));
    const double real = std::chrono::duration<double>(Clock::now() - start).count();
    samples_.add(phase, real / scale_);
    // Busy time: the union of phases (counted once while several run).
    std::lock_guard lock(mutex_);
    const auto end = Clock::now();
    const auto from = std::max(start, busy_until_);
    if (end > from)
      busy_us_ += std::chrono::duration_cast<std::chrono::microseconds>(end - from).count();
    busy_until_ = std::max(busy_until_, end);
  }
  StageModel model_;
  double scale_;
  Samples& samples_;
  std::atomic<int> shared_running_{0};
  std::mutex mutex_;
  Clock::time_point busy_until_{};
  std::atomic<long long> busy_us_{0};
};

std::string candidate_name(const std::string& stream, int i) {
  if (stream != "mixed_gemm") return "good-" + std::to_string(i);
  if (i % 4 == 1) return "cerr-" + std::to_string(i);
  if (i % 4 == 2) return "wrong-" + std::to_string(i);
  if (i % 8 == 3) return "hang-" + std::to_string(i);
  return "good-" + std::to_string(i);
}

int run_stream(const task::Task& task, const std::string& stream, int candidates, int gpus,
               int concurrency, double scale) {
  Samples samples;
  std::vector<std::shared_ptr<ModelGpu>> models;
  std::vector<std::shared_ptr<eval::GpuStages>> slots;
  for (int g = 0; g < gpus; ++g) {
    models.push_back(std::make_shared<ModelGpu>(model_of(stream), scale, samples));
    slots.push_back(models.back());
  }
  const auto compile_time = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(kCompileSeconds * scale));
  // Enough compile threads that compiles never starve the GPUs (docs/running.md, "Sizing").
  eval::Scheduler scheduler({.jobs = gpus * (concurrency + 1), .gpu_concurrency = concurrency},
                            std::make_shared<ModelToolchain>(compile_time), slots);
  std::vector<eval::TaskCandidate> pairs;
  for (int c = 0; c < candidates; ++c) {
    const std::string name = candidate_name(stream, c);
    pairs.push_back({.task = &task,
                     .input = {.text = "void run() {}  // " + std::to_string(c),
                               .is_markdown = false,
                               .source_name = name}});
  }
  const auto start = Clock::now();
  auto verdicts = scheduler.evaluate_pairs(arch::Arch::kHopper, pairs);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count() / scale;
  std::vector<double> per_verdict;
  std::map<std::string, int> counts;
  for (const auto& e : verdicts) {
    per_verdict.push_back(e.wall_seconds / scale);
    ++counts[std::string(eval::to_string(e.verdict))];
  }
  double busy = 0;
  for (const auto& m : models) busy += m->busy_seconds() / scale;
  const double per_gpu_hour = candidates / (wall / 3600.0) / gpus;
  std::string mix;
  for (const auto& [verdict, n] : counts)
    mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", verdict, n);
  auto& shared = samples.by_name["shared"];
  auto& exclusive = samples.by_name["exclusive"];
  fmt::print(
      "| {} | {} | {} | {:.0f} | {:.0f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | "
      "{:.0f}% | {} |\n",
      stream, gpus, concurrency, wall, per_gpu_hour, Samples::percentile(shared, 0.5),
      Samples::percentile(shared, 0.95), Samples::percentile(exclusive, 0.5),
      Samples::percentile(exclusive, 0.95), Samples::percentile(per_verdict, 0.5),
      Samples::percentile(per_verdict, 0.95), 100 * busy / (wall * gpus), mix);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "records") return throughput_records(argc - 1, argv + 1);
  const double scale = argc > 1 ? std::atof(argv[1]) : 0.01;
  const int concurrency = argc > 2 ? std::atoi(argv[2]) : 4;
  if (scale <= 0 || concurrency < 1) {
    fmt::print(stderr, "usage: throughput [SCALE=0.01] [CONCURRENCY=4]\n");
    return 2;
  }
  auto task = task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
  if (!task) {
    fmt::print(stderr, "{}\n", task.error().message);
    return 2;
  }
  fmt::print("Modelled seconds (time scale {}): compile {} s per candidate on its own core.\n\n",
             scale, kCompileSeconds);
  fmt::print(
      "| stream | GPUs | concurrency | wall s | verdicts/GPU-h | shared phase p50/p95 s | "
      "exclusive phase p50/p95 s | per verdict (compile + GPU) p50/p95 s | GPU busy | verdicts "
      "|\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const char* stream : {"gemm", "attention_fwd_d128", "attention_bwd_d128", "mixed_gemm"}) {
    const int candidates =
        std::string(stream) == "gemm" || std::string(stream) == "mixed_gemm" ? 48 : 16;
    for (int c : {1, concurrency}) run_stream(*task, stream, candidates, 1, c, scale);
  }
  for (int gpus : {2, 4, 8})
    for (int c : {1, concurrency}) run_stream(*task, "gemm", 48 * gpus, gpus, c, scale);
  return 0;
}
