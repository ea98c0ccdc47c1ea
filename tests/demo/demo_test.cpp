#include "ptxbench/demo/demo.hpp"

#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::demo {
namespace {

using agent::default_solutions_dir;
using agent::scan_solutions;
using agent::SolutionScan;
using agent::Trajectory;

TEST(Demo, ModelNamesFollowTheSolutionsFolder) {
  const auto named = [](std::string group) {
    return demo_model_name({.path = "x.cu", .group = std::move(group)});
  };
  EXPECT_EQ(named("hopper"), "expert");
  EXPECT_EQ(named("blackwell"), "expert");
  EXPECT_EQ(named("broken"), "broken");
  EXPECT_EQ(named("simple"), "simple");
  EXPECT_EQ(named(""), "solutions");
}

TEST(Demo, PlansOneSingleTurnTrajectoryPerFile) {
  util::TempDir dir;
  util::write_file_atomic(
      dir.path() / "hopper" / "a.cu",
      "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=PASSED\nPASS 1.1\n");
  util::write_file_atomic(dir.path() / "broken" / "b.cu",
                          "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=NOT_RUN\nx\n");
  util::write_file_atomic(dir.path() / "broken" / "c.cu",
                          "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=TIMEOUT\nx\n");
  util::write_file_atomic(dir.path() / "broken" / "d.cu",
                          "// ptxbench: task=no_such_task arch=hopper expect=TIMEOUT\nx\n");
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  DemoPlan demo = plan_demo(*suite, scan_solutions(dir.path()), prompt::ContextLevel::kNone, "", 2);
  ASSERT_EQ(demo.entries.size(), 3u);
  EXPECT_EQ(demo.entries[0].spec.id(), "broken__gemm_n7168_k5120__hopper__none__s0");
  EXPECT_EQ(demo.entries[1].spec.id(), "broken__gemm_n7168_k5120__hopper__none__s1");
  EXPECT_EQ(demo.entries[2].spec.id(), "expert__gemm_n7168_k5120__hopper__none__s0");
  EXPECT_EQ(demo.plan.agent.max_turns, 1);
  EXPECT_EQ(demo.plan.models.size(), 2u);
  auto mentions = [&demo](std::string_view text) {
    for (const auto& note : demo.notes) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(mentions("no_such_task"));
  EXPECT_TRUE(mentions("without an expert solution: gemm_n7168_k5120 (blackwell)"));
  EXPECT_FALSE(mentions("gemm_n7168_k5120 (hopper)"));

  // The replay provider answers each trajectory with its own file, fenced as a model would.
  auto reply =
      demo.plan.models[1].provider->complete({}, {.trajectory_id = demo.entries[2].spec.id(),
                                                  .task = "gemm_n7168_k5120",
                                                  .arch = "hopper",
                                                  .context_level = "none",
                                                  .turn = 1});
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply.reply().content.rfind("```cuda\n// ptxbench:", 0), 0u);
  EXPECT_NE(reply.reply().source.find("a.cu"), std::string::npos);
}

TEST(Demo, WithoutGpuStagesBrokenVariantsAreSetAsideAndStillListed) {
  util::TempDir dir;
  util::write_file_atomic(
      dir.path() / "hopper" / "a.cu",
      "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=PASSED\nPASS 1.1\n");
  util::write_file_atomic(
      dir.path() / "broken" / "b.cu",
      "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=COMPILE_ERROR\nx\n");
  util::write_file_atomic(dir.path() / "broken" / "c.cu",
                          "// ptxbench: task=gemm_n7168_k5120 arch=hopper expect=TIMEOUT\nx\n");
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  DemoPlan demo = plan_demo(*suite, scan_solutions(dir.path()), prompt::ContextLevel::kNone, "", 2);
  ASSERT_EQ(demo.entries.size(), 3u);

  DemoPlan on_gpu =
      plan_demo(*suite, scan_solutions(dir.path()), prompt::ContextLevel::kNone, "", 2);
  EXPECT_EQ(set_aside_gpu_only(on_gpu, [](arch::Arch) { return true; }), 0u);
  EXPECT_EQ(on_gpu.plan.trajectories.size(), 3u);

  EXPECT_EQ(set_aside_gpu_only(demo, [](arch::Arch) { return false; }), 1u);
  ASSERT_EQ(demo.entries.size(), 2u);  // the expert and the static-stage variant still run
  ASSERT_EQ(demo.plan.trajectories.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(demo.plan.trajectories[i].id(), demo.entries[i].spec.id());
  ASSERT_EQ(demo.set_aside.size(), 1u);
  EXPECT_EQ(demo.set_aside[0].solution.path.filename(), "c.cu");
  const std::string table = render_demo_table(demo.entries, {}, demo.set_aside);
  EXPECT_NE(table.find("c.cu"), std::string::npos);
  EXPECT_NE(table.find("needs a GPU: not replayed"), std::string::npos);
  EXPECT_NE(table.find("--all"), std::string::npos);
}

TEST(Demo, AgreementOfVerdicts) {
  using eval::Verdict;
  EXPECT_EQ(agreement(Verdict::kPassed, Verdict::kPassed), Agreement::kAsExpected);
  EXPECT_EQ(agreement(Verdict::kPassed, Verdict::kNotRun), Agreement::kConsistent);
  EXPECT_EQ(agreement(Verdict::kTimeout, Verdict::kNotRun), Agreement::kConsistent);
  EXPECT_EQ(agreement(Verdict::kCompileError, Verdict::kNotRun), Agreement::kUnexpected);
  EXPECT_EQ(agreement(Verdict::kPassed, Verdict::kIncorrectNumerical), Agreement::kUnexpected);
}

TEST(Demo, TableShowsVerdictsFamiliesAndSkippedStages) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  SolutionFile file{.path = "/s/hopper/gemm.cu",
                    .group = "hopper",
                    .header = {.task = "gemm_n7168_k5120", .expect = eval::Verdict::kPassed}};
  DemoEntry entry{.solution = file,
                  .spec = {.model = "expert", .task = task::find_task(*suite, "gemm_n7168_k5120")}};
  Trajectory t;
  t.info.id = entry.spec.id();
  t.turns.push_back({.evaluation = testing::not_run()});
  std::string table = render_demo_table({entry}, {t});
  EXPECT_NE(table.find("gemm.cu"), std::string::npos);
  EXPECT_NE(table.find("NOT_RUN"), std::string::npos);
  EXPECT_NE(table.find("consistent so far"), std::string::npos);
  EXPECT_NE(table.find("GMMA no-TMA SYNCS"), std::string::npos);
  EXPECT_NE(table.find("not measured"), std::string::npos);
  EXPECT_NE(table.find("GPU stages not run"), std::string::npos);
  EXPECT_NE(table.find("Skipped on this machine"), std::string::npos);
  EXPECT_NE(table.find("the GPU stages sanitize, correctness, dynamic_sass, timing"),
            std::string::npos);
  EXPECT_NE(table.find("why: no GPU of this arch on this machine"), std::string::npos);

  t.turns[0].evaluation = testing::passed(1.25);
  table = render_demo_table({entry}, {t});
  EXPECT_NE(table.find("1.25x"), std::string::npos);
  EXPECT_NE(table.find("as expected"), std::string::npos);
  EXPECT_EQ(table.find("Skipped"), std::string::npos);
}

// The project's own solutions directory: the demo replays the attention files beside the GEMM
// ones, found by their header lines (the expert attention kernels under hopper/ join as they
// land), each as the model its folder names.
TEST(Demo, ReplaysTheProjectsAttentionFilesBesideTheGemmOnes) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  const SolutionScan scan = scan_solutions(default_solutions_dir());
  EXPECT_TRUE(scan.problems.empty()) << scan.problems.front();
  DemoPlan demo = plan_demo(*suite, scan, prompt::ContextLevel::kNone, "", 2);
  auto replayed = [&demo](std::string_view model, std::string_view task, arch::Arch arch) {
    int n = 0;
    for (const auto& entry : demo.entries) {
      n += entry.spec.model == model && entry.spec.task->name == task && entry.spec.arch == arch;
    }
    return n;
  };
  EXPECT_GE(replayed("expert", "gemm_n7168_k5120", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("broken", "gemm_n7168_k5120", arch::Arch::kHopper), 6);
  EXPECT_GE(replayed("expert", "mha_fwd_lse_d128", arch::Arch::kBlackwell), 1);
  EXPECT_GE(replayed("simple", "mha_fwd_lse_d128", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("simple", "mha_fwd_lse_d128_causal", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("simple", "mha_bwd_d128", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("simple", "mha_bwd_d128_causal", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("broken", "mha_fwd_lse_d128", arch::Arch::kHopper), 3);
  EXPECT_GE(replayed("broken", "mha_fwd_lse_d128_causal", arch::Arch::kHopper), 1);
  EXPECT_GE(replayed("broken", "mha_bwd_d128", arch::Arch::kHopper), 2);
  // Every file with a header is replayed (none is skipped for naming an unknown task).
  std::size_t headed = scan.files.size();
  EXPECT_EQ(demo.entries.size(), headed);

  // Without a GPU stage only the expert solutions go through; the rest stay listed.
  const std::size_t set_aside = set_aside_gpu_only(demo, [](arch::Arch) { return false; });
  EXPECT_GE(set_aside, 13u);
  for (const auto& entry : demo.entries) EXPECT_EQ(entry.spec.model, "expert");
}

}  // namespace
}  // namespace ptxbench::demo
