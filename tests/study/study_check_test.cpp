// What a study is checked for before its first step: the grid as `ptxbench run` reads it, the
// task suite, the study folder and the provider entries that need no network. Each bad value is
// one "FILE: FIELD: problem" message; a valid study passes.
#include "ptxbench/study/study_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "ptxbench/config.hpp"
#include "ptxbench/study/study_runner.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::study {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// A study file in DIR over one train task, replayed base and teacher (their replies exist).
class StudyCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    util::write_file_atomic(dir_.path() / "base.md", "```cuda\n__global__ void k() {}\n```\n");
    util::write_file_atomic(dir_.path() / "teacher.md", "```cuda\n__global__ void k() {}\n```\n");
  }
  std::string study(const std::string& grid, const std::string& base_path = "base.md",
                    const std::string& extra = "") const {
    return "out: out\n" + extra + "grid: " + grid +
           "\nbase: {model: {provider: replay, path: " + base_path +
           "}}\nteachers:\n  - {name: t, model: {provider: replay, path: teacher.md}}\n"
           "variants:\n  - {name: v, retrieval: true}\n";
  }
  util::Expected<bool> check(const std::string& text) const {
    auto parsed = parse_study_file(text, dir_.path() / "study.yaml");
    if (!parsed) return parsed.error();
    return check_study(*parsed, task::default_tasks_dir());
  }
  std::string problem(const std::string& text) const {
    auto checked = check(text);
    return checked ? std::string("(no problem)") : checked.error().message;
  }
  util::TempDir dir_;
};

constexpr const char* kGrid = "{tasks: [gemm_n4096_k4096], turns: 1, evaluation: {gpu: false}}";

TEST_F(StudyCheck, AValidStudyPasses) {
  auto checked = check(study(kGrid));
  EXPECT_TRUE(checked) << checked.error().message;
}

TEST_F(StudyCheck, GridValuesAreReadAsTheRunReadsThem) {
  for (const char* samples : {"[1, 2]", "1e300", "0"}) {
    EXPECT_THAT(
        problem(study(std::string("{tasks: [gemm_n4096_k4096], samples: ") + samples + "}")),
        HasSubstr("study.yaml: grid.samples: "))
        << samples;
  }
  EXPECT_THAT(problem(study("{tasks: [gemm_n9_k9]}")), HasSubstr("study.yaml: grid.tasks: "));
  EXPECT_THAT(problem(study("{tasks: [core], evaluation: {compile_cache: /dev/null}}")),
              HasSubstr("compile_cache"));
}

TEST_F(StudyCheck, PathsAreCheckedBeforeAnyStep) {
  EXPECT_THAT(problem(study(kGrid, "missing-replies")), HasSubstr("study.yaml: base.model: "));
  EXPECT_THAT(problem(study(kGrid, "base.md", "tasks_dir: no-such-suite\n")),
              HasSubstr("study.yaml: tasks_dir: "));
  util::write_file_atomic(dir_.path() / "out", "a file");
  EXPECT_THAT(problem(study(kGrid)), HasSubstr("study.yaml: out: "));
}

// The shipped example passes (its replays and explanation exist, its grid is a run's).
TEST(StudyCheckExample, TheTinyStudyPasses) {
  const fs::path file = config::source_path("examples/study-tiny/study.yaml");
  auto parsed = read_study_file(file, fs::path(::testing::TempDir()) / "study-tiny");
  ASSERT_TRUE(parsed) << parsed.error().message;
  auto checked = check_study(*parsed, task::default_tasks_dir());
  EXPECT_TRUE(checked) << checked.error().message;
}

// A study folder another `ptxbench study` holds is refused before any step, like a run directory.
TEST_F(StudyCheck, AFolderInUseIsRefusedWhenOpening) {
  auto parsed = parse_study_file(study(kGrid), dir_.path() / "study.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const StudyEnvironment env{.default_tasks = task::default_tasks_dir()};
  auto first = open_study(*parsed, env);
  ASSERT_TRUE(first) << first.error().message;
  auto second = open_study(*parsed, env);
  ASSERT_FALSE(second);
  EXPECT_THAT(second.error().message, HasSubstr("another ptxbench process is using this study"));
}

}  // namespace
}  // namespace ptxbench::study
