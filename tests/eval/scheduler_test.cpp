// The staged pipeline with every tool faked: which stage fails for which candidate, what is
// recorded, how the GPU stages are reached, and that compiles run in parallel.
#include "ptxbench/eval/scheduler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "fake_toolchain.hpp"
#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/gpu_absence.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {
using ptxbench::testing::FakeToolchain;
using ::testing::HasSubstr;
using ::testing::Not;

class FakeGpu final : public GpuStages {
 public:
  bool present = true;
  std::string why_absent = "no sm_90a GPU (found: none)";
  bool throw_in_run = false;
  int runs = 0;
  std::filesystem::path seen_object;
  std::size_t seen_kernels = 0;
  std::vector<std::string> seen_tasks;  // in the order the GPU stages ran

  int availability_checks = 0;
  // The most compiles seen running during the first availability check, which (with `tools`)
  // takes 300 ms like a worker's `info` call.
  int compiles_running_when_asked = -1;
  std::chrono::milliseconds run_time{0};
  const FakeToolchain* tools = nullptr;       // when set: compiles running during each run
  std::vector<int> compiles_running_seen;     // per run, sampled while it runs
  std::shared_ptr<std::atomic<int>> running;  // shared by the slots of one evaluator
  std::shared_ptr<std::atomic<int>> most_running;

  bool available(arch::Arch, std::string& why) override {
    if (availability_checks++ == 0 && tools) {
      for (int i = 0; i < 30; ++i) {
        compiles_running_when_asked = std::max(compiles_running_when_asked, tools->running.load());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    if (!present) why = why_absent;
    return present;
  }
  void run(const task::Task& task, const CompiledCandidate& candidate, Evaluation& e) override {
    ++runs;
    seen_tasks.push_back(task.name);
    if (running) {
      const int now = ++*running;
      int seen = most_running->load();
      while (now > seen && !most_running->compare_exchange_weak(seen, now)) {
      }
    }
    int compiles_running = 0;
    for (auto waited = std::chrono::milliseconds(0); waited < run_time;
         waited += std::chrono::milliseconds(10)) {
      if (tools) compiles_running = std::max(compiles_running, tools->running.load());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    compiles_running_seen.push_back(compiles_running);
    if (running) --*running;
    if (throw_in_run) throw std::runtime_error("worker protocol broke");
    seen_object = candidate.shared_object;
    seen_kernels = candidate.sass.kernels.size();
    for (auto s : {Stage::kSanitize, Stage::kCorrectness, Stage::kDynamicSass, Stage::kTiming})
      e.stage(s).status = StageStatus::kPassed;
    e.verdict = Verdict::kPassed;
  }
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compile::find_nvcc())
      GTEST_SKIP() << "the evaluator looks nvcc up even when faked: not installed";
    auto loaded =
        task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    task_ = std::move(*loaded);
  }

  Evaluation evaluate(const CandidateInput& input, std::shared_ptr<GpuStages> gpu = nullptr,
                      SchedulerOptions options = {}) {
    Scheduler evaluator(std::move(options), tools_, std::move(gpu));
    return evaluator.evaluate(task_, arch::Arch::kHopper, input);
  }

  static CandidateInput reply(std::string code) {
    return {.text = "Here it is:\n```cuda\n" + code + "\n```\n",
            .is_markdown = true,
            .source_name = "reply.md"};
  }

  static StageStatus status(const Evaluation& e, Stage s) { return e.find_stage(s)->status; }

  task::Task task_;
  std::shared_ptr<FakeToolchain> tools_ = std::make_shared<FakeToolchain>();
};

TEST_F(SchedulerTest, NoCodeBlockStopsAtExtract) {
  auto e =
      evaluate({.text = "I would use wgmma here.", .is_markdown = true, .source_name = "r.md"});
  EXPECT_EQ(e.verdict, Verdict::kNoCode);
  EXPECT_EQ(e.message, "the response has no fenced code block");
  ASSERT_EQ(e.stages.size(), 8u);
  EXPECT_EQ(status(e, Stage::kExtract), StageStatus::kFailed);
  EXPECT_EQ(status(e, Stage::kCompile), StageStatus::kSkipped);
  EXPECT_EQ(status(e, Stage::kTiming), StageStatus::kSkipped);
  EXPECT_EQ(tools_->compiles, 0);
  EXPECT_EQ(e.task, "gemm_n7168_k5120");
  EXPECT_FALSE(e.created_at.empty());
}

TEST_F(SchedulerTest, WholeSourceFilesAreNotExtracted) {
  auto e =
      evaluate({.text = "__global__ void k() {}\n", .is_markdown = false, .source_name = "k.cu"});
  EXPECT_EQ(status(e, Stage::kExtract), StageStatus::kPassed);
  EXPECT_EQ(tools_->compiles, 1);
}

TEST_F(SchedulerTest, LibraryIncludeIsForbiddenBeforeCompiling) {
  auto e = evaluate(reply("#include <cublas_v2.h>\nvoid run() {}"));
  EXPECT_EQ(e.verdict, Verdict::kForbidden);
  EXPECT_THAT(e.message, HasSubstr("cublas_v2.h"));
  EXPECT_EQ(status(e, Stage::kLint), StageStatus::kFailed);
  EXPECT_EQ(status(e, Stage::kCompile), StageStatus::kSkipped);
  EXPECT_EQ(tools_->compiles, 0);
}

TEST_F(SchedulerTest, CompilerErrorIsCompileErrorWithItsMessage) {
  tools_->compile_error =
      "candidate.cu(8): error: expected a \";\"\n   if (i < n)\n\n1 error detected\n";
  auto e = evaluate(reply("int broken"));
  EXPECT_EQ(e.verdict, Verdict::kCompileError);
  EXPECT_EQ(e.message, "nvcc exit 2: candidate.cu(8): error: expected a \";\"");
  EXPECT_EQ(status(e, Stage::kLint), StageStatus::kSkipped);  // the object check never ran
  EXPECT_EQ(status(e, Stage::kCompile), StageStatus::kFailed);
  EXPECT_THAT(e.compile.command, ::testing::Contains("-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_THAT(e.compile.log, HasSubstr("1 error detected"));
  EXPECT_FALSE(e.source_hash.empty());
}

TEST_F(SchedulerTest, ForbiddenImportsAreFoundInTheObject) {
  tools_->symbols.push_back({.name = "cublasLtMatmul"});
  auto e = evaluate(reply("void run() {}"));
  EXPECT_EQ(e.verdict, Verdict::kForbidden);
  EXPECT_THAT(e.message, HasSubstr("imports cublasLtMatmul (cuBLAS)"));
  EXPECT_EQ(status(e, Stage::kCompile), StageStatus::kPassed);
  EXPECT_EQ(status(e, Stage::kLint), StageStatus::kFailed);
  EXPECT_EQ(status(e, Stage::kStaticSass), StageStatus::kSkipped);
}

TEST_F(SchedulerTest, WithoutGpuStagesTheVerdictIsNotRunNeverPassed) {
  auto e = evaluate(reply("void run() {}"));
  EXPECT_EQ(e.verdict, Verdict::kNotRun);
  EXPECT_FALSE(e.correct());
  EXPECT_THAT(e.message, HasSubstr("GPU stages not run: " + missing_worker_reason()));
  EXPECT_THAT(e.message, HasSubstr("GMMA x1"));
  for (auto s : {Stage::kExtract, Stage::kLint, Stage::kCompile, Stage::kStaticSass})
    EXPECT_EQ(status(e, s), StageStatus::kPassed) << to_string(s);
  for (auto s : {Stage::kSanitize, Stage::kCorrectness, Stage::kDynamicSass, Stage::kTiming})
    EXPECT_EQ(status(e, s), StageStatus::kNotRun) << to_string(s);
  ASSERT_EQ(e.kernels.size(), 1u);
  EXPECT_EQ(e.kernels[0].name, "_Z4gemmv");
  EXPECT_EQ(e.kernels[0].display_name, "gemm()");
  EXPECT_EQ(e.kernels[0].registers, 168);
  EXPECT_EQ(e.kernels[0].spill_store_bytes, 8);
  EXPECT_EQ(e.kernels[0].static_families.at("GMMA"), 1);
  auto gmma = std::find_if(e.families.begin(), e.families.end(),
                           [](const FamilyEvidence& f) { return f.family == "GMMA"; });
  ASSERT_NE(gmma, e.families.end());
  EXPECT_TRUE(gmma->requested);
  EXPECT_EQ(gmma->static_count, 1);
  EXPECT_EQ(gmma->executed_count, std::nullopt);
  EXPECT_EQ(e.toolchain.at("nvcc"), "Cuda compilation tools, release 13.0, V13.0.88");
  EXPECT_THAT(e.toolchain.at("disassembler"), HasSubstr("nvdisasm"));
}

TEST(GpuAbsence, TheLoadersErrorForTheDriverLibraryReadsNoDriverFound) {
  EXPECT_EQ(explain_gpu_absence(
                "ptxbench-worker info exited with status 127; stderr: ptxbench-worker: error while "
                "loading shared libraries: libcuda.so.1: cannot open shared object file: No such "
                "file or directory"),
            "no NVIDIA driver found");
  EXPECT_EQ(explain_gpu_absence("no sm_90a GPU (found: none)"), "no sm_90a GPU (found: none)");
  EXPECT_EQ(explain_gpu_absence("libcudnn.so.9: cannot open shared object file"),
            "libcudnn.so.9: cannot open shared object file");
}

TEST(GpuAbsence, AMissingWorkerSaysWhetherTheDriverIsMissing) {
  EXPECT_EQ(missing_worker_reason() == kNoDriverReason, !nvidia_driver_present());
}

TEST_F(SchedulerTest, AWorkerThatCannotLoadTheDriverSaysNoDriverFound) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->present = false;
  gpu->why_absent =
      "ptxbench-worker info exited with status 127; stderr: error while loading shared "
      "libraries: libcuda.so.1: cannot open shared object file: No such file or directory";
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kNotRun);
  EXPECT_THAT(e.message, HasSubstr("GPU stages not run: no NVIDIA driver found"));
  EXPECT_THAT(e.message, Not(HasSubstr("libcuda")));
  EXPECT_EQ(e.find_stage(Stage::kSanitize)->message, "no NVIDIA driver found");
}

TEST_F(SchedulerTest, RequestedFamiliesMissingFromTheSassDecideWithoutAGpu) {
  auto e = evaluate(reply("void run() {}"));
  // kHopperSass has GMMA, TMA and SYNCS: nothing requested is missing ...
  EXPECT_EQ(e.verdict, Verdict::kNotRun);
  EXPECT_THAT(e.message, ::testing::Not(HasSubstr("absent")));
  // ... while on Blackwell only its TMA counts, and HGMMA is no Blackwell family: it cannot
  // pass, and a machine without a GPU says so (a final verdict, not NOT_RUN).
  Scheduler evaluator({}, tools_, nullptr);
  auto blackwell = evaluator.evaluate(task_, arch::Arch::kBlackwell, reply("void run() {}"));
  EXPECT_EQ(blackwell.verdict, Verdict::kInstructionsAbsent) << blackwell.message;
  EXPECT_FALSE(blackwell.correct());
  EXPECT_THAT(blackwell.message,
              HasSubstr("requested instruction families absent from the machine code: UTCMMA, "
                        "TMEM (SASS families: TMA x1"));
  EXPECT_THAT(blackwell.message, HasSubstr("correctness not checked: "));
  EXPECT_EQ(status(blackwell, Stage::kStaticSass), StageStatus::kPassed);
  EXPECT_EQ(status(blackwell, Stage::kCorrectness), StageStatus::kNotRun);
}

TEST_F(SchedulerTest, RequestedFamiliesMissingFromTheSassStillRunOnAGpu) {
  // The GPU tells a correct kernel that avoided the instructions from a wrong one.
  auto gpu = std::make_shared<FakeGpu>();
  Scheduler evaluator({}, tools_, gpu);
  auto e = evaluator.evaluate(task_, arch::Arch::kBlackwell, reply("void run() {}"));
  EXPECT_EQ(gpu->runs, 1);
  EXPECT_EQ(e.verdict, Verdict::kPassed);  // what the fake GPU stages say
}

TEST_F(SchedulerTest, NoDeviceCodeIsDecidedByTheStaticStageEverywhere) {
  tools_->ptxas_output.clear();  // ptxas compiled no entry function
  auto gpu = std::make_shared<FakeGpu>();
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kInstructionsAbsent) << e.message;
  EXPECT_THAT(e.message, HasSubstr("no device code"));
  EXPECT_THAT(e.message, HasSubstr("requested families (GMMA, TMA, SYNCS) cannot execute"));
  EXPECT_EQ(status(e, Stage::kStaticSass), StageStatus::kFailed);
  EXPECT_EQ(status(e, Stage::kCorrectness), StageStatus::kSkipped);
  EXPECT_EQ(gpu->runs, 0);
}

TEST_F(SchedulerTest, ARunWithTheWrongParametersIsDecidedByTheStaticStage) {
  tools_->symbols.push_back({.name = "_Z3runN3tvm3ffi10TensorViewES1_S1_", .defined = true});
  auto loaded =
      task::load_task_file(task::default_tasks_dir() / "mha_fwd" / "mha_fwd_lse_d128.json");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  task_ = std::move(*loaded);
  auto gpu = std::make_shared<FakeGpu>();
  auto e = evaluate(reply("void run(A, B, C) {}\nTVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kRuntimeError) << e.message;
  EXPECT_THAT(e.message,
              HasSubstr("run() cannot be called: run() takes 3 parameters (tvm::ffi::TensorView, "
                        "tvm::ffi::TensorView, tvm::ffi::TensorView), but the task calls run(Q, "
                        "K, V, O, LSE): 5 tensors"));
  EXPECT_EQ(status(e, Stage::kLint), StageStatus::kFailed);
  EXPECT_EQ(status(e, Stage::kCompile), StageStatus::kPassed);
  EXPECT_EQ(gpu->runs, 0);
}

TEST_F(SchedulerTest, TheSameRunOnTheGemmTaskGoesOn) {
  tools_->symbols.push_back({.name = "_Z3runN3tvm3ffi10TensorViewES1_S1_", .defined = true});
  auto e = evaluate(reply("void run(A, B, C) {}\nTVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);"));
  EXPECT_EQ(e.verdict, Verdict::kNotRun) << e.message;
}

TEST_F(SchedulerTest, AnObjectWithoutTheExportedRunCannotBeCalled) {
  tools_->symbols = {{.name = "TVMFFIEnvGetStream"}};
  auto e = evaluate(reply("void run() {}"));
  EXPECT_EQ(e.verdict, Verdict::kRuntimeError) << e.message;
  EXPECT_THAT(e.message, HasSubstr("exports no run()"));
}

TEST_F(SchedulerTest, AGpuThatIsAbsentIsReportedWithItsReason) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->present = false;
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kNotRun);
  EXPECT_THAT(e.message, HasSubstr("no sm_90a GPU (found: none)"));
  EXPECT_EQ(e.find_stage(Stage::kCorrectness)->message, "no sm_90a GPU (found: none)");
  EXPECT_EQ(gpu->runs, 0);
}

TEST_F(SchedulerTest, GpuStagesGetTheInspectedObject) {
  auto gpu = std::make_shared<FakeGpu>();
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(gpu->runs, 1);
  EXPECT_EQ(gpu->seen_object.filename(), "candidate.so");
  EXPECT_EQ(gpu->seen_kernels, 1u);
  EXPECT_EQ(e.verdict, Verdict::kPassed);
  EXPECT_THAT(e.message, HasSubstr("correct"));
}

TEST_F(SchedulerTest, GpuAvailabilityIsAskedOncePerArch) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->present = false;
  Scheduler evaluator({}, tools_, gpu);
  for (int i = 0; i < 3; ++i) {
    auto e = evaluator.evaluate(task_, arch::Arch::kHopper, reply("int v;"));
    EXPECT_THAT(e.message, HasSubstr("no sm_90a GPU (found: none)")) << i;
  }
  EXPECT_EQ(gpu->availability_checks, 1);
}

TEST_F(SchedulerTest, DisabledGpuStagesAreNotAsked) {
  auto gpu = std::make_shared<FakeGpu>();
  auto e = evaluate(reply("void run() {}"), gpu, SchedulerOptions{.run_gpu_stages = false});
  EXPECT_EQ(e.verdict, Verdict::kNotRun);
  EXPECT_THAT(e.message, HasSubstr("GPU stages disabled"));
  EXPECT_EQ(gpu->runs, 0);
}

TEST_F(SchedulerTest, AnExceptionInTheGpuStagesIsAnInternalError) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->throw_in_run = true;
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kInternalError);
  EXPECT_THAT(e.message, HasSubstr("worker protocol broke"));
}

// The GPU's availability (the worker's `info` call) is asked while the first candidate compiles,
// not after: it is off a single verdict's path.
TEST_F(SchedulerTest, GpuAvailabilityIsAskedWhileTheFirstCandidateCompiles) {
  tools_->compile_time = std::chrono::milliseconds(500);
  auto gpu = std::make_shared<FakeGpu>();
  gpu->tools = tools_.get();
  auto e = evaluate(reply("void run() {}"), gpu);
  EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(gpu->availability_checks, 1);
  EXPECT_EQ(gpu->compiles_running_when_asked, 1);
}

TEST_F(SchedulerTest, ManyCandidatesCompileInParallelAndKeepTheirOrder) {
  tools_->compile_time = std::chrono::milliseconds(300);
  std::vector<CandidateInput> inputs;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back({.text = "```\nint v" + std::to_string(i) + ";\n```",
                      .source_name = "r" + std::to_string(i) + ".md"});
  }
  inputs.push_back({.text = "no code", .source_name = "empty.md"});
  Scheduler evaluator({.jobs = 4}, tools_, nullptr);
  auto results = evaluator.evaluate_many(task_, arch::Arch::kHopper, inputs);
  ASSERT_EQ(results.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    EXPECT_EQ(results[i].source_name, inputs[i].source_name);
  EXPECT_EQ(results[4].verdict, Verdict::kNoCode);
  EXPECT_EQ(tools_->compiles, 4);
  EXPECT_GE(tools_->most_running, 2);
  EXPECT_GT(results[0].find_stage(Stage::kCompile)->seconds, 0.25);
}

TEST_F(SchedulerTest, PairsOfSeveralTasksCompileInParallelThenRunOneAfterAnother) {
  auto other = task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n5120_k5120.json");
  ASSERT_TRUE(other.has_value()) << other.error().message;
  tools_->compile_time = std::chrono::milliseconds(300);
  std::vector<TaskCandidate> pairs;
  for (const task::Task* task : {&task_, &*other}) {
    for (const char* name : {"a.md", "b.md"})
      pairs.push_back({.task = task, .input = {.text = "```\nint x;\n```", .source_name = name}});
  }
  auto gpu = std::make_shared<FakeGpu>();
  Scheduler evaluator({.jobs = 4}, tools_, gpu);
  auto results = evaluator.evaluate_pairs(arch::Arch::kHopper, pairs);
  ASSERT_EQ(results.size(), 4u);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(results[i].task, pairs[i].task->name);
    EXPECT_EQ(results[i].source_name, pairs[i].input.source_name);
    EXPECT_EQ(results[i].verdict, Verdict::kPassed) << results[i].message;
  }
  // The GPU stages take candidates in the order their compiles finish.
  auto seen = gpu->seen_tasks;
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"gemm_n5120_k5120", "gemm_n5120_k5120",
                                            "gemm_n7168_k5120", "gemm_n7168_k5120"}));
  EXPECT_EQ(gpu->availability_checks, 1);
  EXPECT_EQ(tools_->compiles, 4);
  EXPECT_GE(tools_->most_running, 2);
}

TEST_F(SchedulerTest, ArtifactsStayInTheGivenWorkDir) {
  util::TempDir dir;
  {
    Scheduler evaluator({.work_dir = dir.path()}, tools_, nullptr);
    evaluator.evaluate(task_, arch::Arch::kHopper, reply("int kept;"));
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "000-reply.md" / "candidate.cu"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "000-reply.md" / "candidate.so"));
}

std::vector<CandidateInput> numbered_replies(int count) {
  std::vector<CandidateInput> inputs;
  for (int i = 0; i < count; ++i) {
    inputs.push_back({.text = "```\nint v" + std::to_string(i) + ";\n```",
                      .source_name = "r" + std::to_string(i) + ".md"});
  }
  return inputs;
}

// With one compile thread, candidate 0 is on the GPU while candidate 1 compiles, and its verdict
// reaches the sink before the last compile has even started.
TEST_F(SchedulerTest, VerdictsStreamToTheSinkWhileLaterCandidatesCompile) {
  tools_->compile_time = std::chrono::milliseconds(300);
  auto gpu = std::make_shared<FakeGpu>();
  gpu->run_time = std::chrono::milliseconds(200);
  gpu->tools = tools_.get();
  const auto inputs = numbered_replies(3);
  std::vector<std::size_t> indices;
  std::vector<int> compiles_started_at_verdict;
  Scheduler evaluator({.jobs = 1}, tools_, gpu);
  auto results = evaluator.evaluate_many(
      task_, arch::Arch::kHopper, inputs, [&](std::size_t index, const Evaluation& e) {
        indices.push_back(index);
        compiles_started_at_verdict.push_back(tools_->compiles.load());
        EXPECT_EQ(e.source_name, inputs[index].source_name);
        EXPECT_EQ(e.verdict, Verdict::kPassed);
        EXPECT_FALSE(e.created_at.empty());
      });
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(indices, (std::vector<std::size_t>{0, 1, 2}));
  ASSERT_EQ(compiles_started_at_verdict.size(), 3u);
  EXPECT_LT(compiles_started_at_verdict.front(), 3);
  ASSERT_EQ(gpu->compiles_running_seen.size(), 3u);
  EXPECT_EQ(gpu->compiles_running_seen.front(), 1) << "no compile overlapped the GPU stages";
}

TEST_F(SchedulerTest, SeveralGpuSlotsJudgeCandidatesAtTheSameTime) {
  auto running = std::make_shared<std::atomic<int>>(0);
  auto most = std::make_shared<std::atomic<int>>(0);
  std::vector<std::shared_ptr<GpuStages>> slots;
  std::vector<std::shared_ptr<FakeGpu>> fakes;
  for (int i = 0; i < 2; ++i) {
    auto fake = std::make_shared<FakeGpu>();
    fake->run_time = std::chrono::milliseconds(300);
    fake->running = running;
    fake->most_running = most;
    fakes.push_back(fake);
    slots.push_back(fake);
  }
  slots.push_back(nullptr);  // dropped
  Scheduler evaluator({.jobs = 4}, tools_, slots);
  auto results = evaluator.evaluate_many(task_, arch::Arch::kHopper, numbered_replies(4));
  for (const auto& e : results) EXPECT_EQ(e.verdict, Verdict::kPassed) << e.message;
  EXPECT_EQ(fakes[0]->runs + fakes[1]->runs, 4);
  EXPECT_EQ(most->load(), 2);
}

// The compile's limits travel in its ProcessSpec, where a sandboxing runner can carry them.
TEST_F(SchedulerTest, CompilesRunUnderTheTimeoutAndAMemoryLimit) {
  Scheduler evaluator({.compile_timeout = std::chrono::seconds(7)}, tools_, nullptr);
  evaluator.evaluate(task_, arch::Arch::kHopper, reply("int x;"));
  EXPECT_EQ(tools_->nvcc_timeout, std::chrono::seconds(7));
  EXPECT_EQ(tools_->nvcc_memory_limit, std::uint64_t{16} << 30);
}

TEST_F(SchedulerTest, AFailingSinkEndsTheCallWithItsException) {
  Scheduler evaluator({.jobs = 2}, tools_, std::make_shared<FakeGpu>());
  EXPECT_THROW(evaluator.evaluate_many(
                   task_, arch::Arch::kHopper, numbered_replies(3),
                   [](std::size_t, const Evaluation&) { throw std::runtime_error("disk full"); }),
               std::runtime_error);
}

// A service's stream: candidates of any arch come one by one; the first verdicts reach the sink
// while the source still holds the stream open, and each comes back under the caller's id.
TEST_F(SchedulerTest, AStreamIsJudgedWhileItIsStillOpen) {
  auto gpu = std::make_shared<FakeGpu>();
  Scheduler evaluator({.jobs = 2}, tools_, gpu);
  std::mutex mutex;
  std::condition_variable judged;
  std::map<std::size_t, arch::Arch> verdicts;
  std::size_t given = 0;
  bool open_when_judged = false;
  auto next = [&]() -> std::optional<StreamCandidate> {
    std::unique_lock lock(mutex);
    if (given == 2) {
      open_when_judged =
          judged.wait_for(lock, std::chrono::seconds(20), [&] { return verdicts.size() == 2; });
    }
    if (given == 3) return std::nullopt;
    const auto arch = given == 1 ? arch::Arch::kBlackwell : arch::Arch::kHopper;
    auto input = reply("int v" + std::to_string(given) + ";");
    return StreamCandidate{.id = 100 + given++, .task = &task_, .arch = arch, .input = input};
  };
  evaluator.evaluate_stream(next, [&](std::size_t id, const Evaluation& e) {
    std::lock_guard lock(mutex);
    EXPECT_NE(e.verdict, Verdict::kInternalError) << e.message;
    EXPECT_FALSE(e.created_at.empty());
    verdicts[id] = e.arch;
    judged.notify_all();
  });
  EXPECT_TRUE(open_when_judged) << "no verdict came before the stream ended";
  EXPECT_EQ(verdicts, (std::map<std::size_t, arch::Arch>{{100, arch::Arch::kHopper},
                                                         {101, arch::Arch::kBlackwell},
                                                         {102, arch::Arch::kHopper}}));
  EXPECT_EQ(tools_->compiles, 3);
}

TEST_F(SchedulerTest, AFailingSourceEndsTheStreamWithItsException) {
  Scheduler evaluator({.jobs = 2}, tools_, nullptr);
  EXPECT_THROW(evaluator.evaluate_stream(
                   []() -> std::optional<StreamCandidate> {
                     throw std::runtime_error("journal unreadable");
                   },
                   [](std::size_t, const Evaluation&) {}),
               std::runtime_error);
}

}  // namespace
}  // namespace ptxbench::eval
