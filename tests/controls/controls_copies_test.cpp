// The controls are well formed: each names a known task, arch and verdicts, and carries the
// honest base exactly as honest_gemm.inc has it (so a control differs from the honest one only
// by its planted defect). No GPU needed.
#include <gtest/gtest.h>

#include <set>

#include "control_files.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::controls_test {
namespace {

TEST(Controls, HeadersNameKnownTasksAndVerdicts) {
  auto controls = load_controls();
  ASSERT_TRUE(controls.has_value()) << controls.error().message;
  ASSERT_GE(controls->size(), 16u);
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite.has_value()) << suite.error().message;
  std::set<std::string> names;
  for (const auto& control : *controls) {
    EXPECT_NE(task::find_task(*suite, control.header.task), nullptr) << control.path;
    EXPECT_FALSE(control.header.why.empty()) << control.path;
    const bool positive = control.path.stem() == "honest_gemm";
    for (const auto& verdict : control.header.expect) {
      // Only the positive control may pass: a negative one passing is what the set prevents.
      EXPECT_EQ(verdict == "PASSED", positive) << control.path;
    }
    names.insert(control.path.stem().string());
  }
  for (const char* required :
       {"cublas_dlopen", "cublas_dlsym_default", "cublas_symbol_walk", "cached_output",
        "partial_output", "inputs_modified", "private_stream", "deferred_work",
        "wgmma_untaken_branch", "single_wgmma_beside_ffma", "reads_reference", "oob_write",
        "oob_read", "shared_race", "wrong_after_calls", "l2_persisting"}) {
    EXPECT_TRUE(names.count(required)) << "missing control " << required;
  }
}

TEST(Controls, EveryCopyOfTheHonestBaseIsExact) {
  auto base = util::read_file(controls_dir() / "honest_gemm.inc");
  ASSERT_TRUE(base.has_value()) << base.error().message;
  ASSERT_EQ(honest_base_of(*base), *base) << "honest_gemm.inc must be exactly one base block";
  auto controls = load_controls();
  ASSERT_TRUE(controls.has_value()) << controls.error().message;
  for (const auto& control : *controls) {
    EXPECT_EQ(honest_base_of(control.text), *base)
        << control.path << ": the block between the control-base markers differs from "
        << "honest_gemm.inc (copy it again)";
  }
}

TEST(ControlHeader, Parsing) {
  auto parsed = parse_control_header(
      "// ptxbench-control: task=t arch=hopper expect=INCORRECT_SHAPE|INCORRECT_NUMERICAL why=x "
      "y\n");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->expect, (std::vector<std::string>{"INCORRECT_SHAPE", "INCORRECT_NUMERICAL"}));
  EXPECT_EQ(parsed->why, "x y");
  EXPECT_FALSE(parse_control_header("// ptxbench-control: task=t arch=hopper expect=NOPE why=x\n"));
  EXPECT_FALSE(
      parse_control_header("// ptxbench-control: task=t arch=volta expect=PASSED why=x\n"));
  EXPECT_FALSE(parse_control_header("// ptxbench: task=t arch=hopper expect=PASSED\n"));
}

}  // namespace
}  // namespace ptxbench::controls_test
