// GPU test: every solution and broken control goes through `ptxbench eval` exactly as a model's
// kernel would, and must end with the verdict its header names. This is what makes the controls
// controls: the expert kernel must pass every stage with its families verified, and each broken
// one must be stopped by the stage its comment names (sanitize, correctness, dynamic SASS,
// timeout), and a PASSED record must show every requested instruction family executed
// substantially. Skips, with the reason, where the GPU stages cannot run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/util/process.hpp"
#include "solution_files.hpp"

namespace ptxbench::solutions_test {
namespace {

std::vector<std::string> solution_paths() {
  std::vector<std::string> paths;
  auto files = load_solutions();
  if (!files) return {"<unreadable>"};
  for (const auto& file : *files) paths.push_back(file.path.string());
  return paths;
}

class EvaluatedSolution : public ::testing::TestWithParam<std::string> {};

TEST_P(EvaluatedSolution, ReachesTheVerdictItsHeaderNames) {
  auto files = load_solutions();
  ASSERT_TRUE(files.has_value()) << files.error().message;
  const SolutionFile* solution = nullptr;
  for (const auto& file : *files) {
    if (file.path.string() == GetParam()) solution = &file;
  }
  ASSERT_NE(solution, nullptr) << GetParam();

  util::SystemProcessRunner runner;
  util::ProcessSpec spec;
  spec.argv = {PTXBENCH_CLI_PATH,
               "eval",
               solution->path.string(),
               "--task",
               solution->header.task,
               "--arch",
               std::string(arch::to_string(solution->header.arch)),
               "--json"};
  spec.timeout = std::chrono::minutes(20);
  const util::ProcessResult result = runner.run(spec);
  ASSERT_TRUE(result.started) << result.spawn_error;
  if (result.stderr_text.find("not available in this build") != std::string::npos) {
    GTEST_SKIP() << "ptxbench eval is not available in this build";
  }
  static const std::regex kVerdict(R"re("verdict"\s*:\s*"([A-Z_]+)")re");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(result.stdout_text, match, kVerdict))
      << "no verdict in the output (" << result.describe_end() << ")\nstdout:\n"
      << result.stdout_text << "\nstderr:\n"
      << result.stderr_text;
  const std::string verdict = match[1].str();
  if (verdict == "NOT_RUN" && solution->header.expect != "NOT_RUN") {
    GTEST_SKIP() << "no " << arch::to_string(solution->header.arch)
                 << " GPU here: the GPU stages did not run";
  }
  if (solution->header.expect == "NOT_RUN" && verdict != "NOT_RUN") {
    GTEST_SKIP() << "this machine ran the never-run solution: verdict " << verdict
                 << "; record it in docs/gpu-results/expert-gemm.md and update the header";
  }
  EXPECT_EQ(verdict, solution->header.expect) << solution->path << "\n" << result.stdout_text;
  if (verdict != "PASSED") return;

  // PASSED means the requested families executed substantially; check the record says so for
  // every one of the task's requested families, not only that the verdict name matches.
  const std::string first_line = result.stdout_text.substr(0, result.stdout_text.find('\n'));
  const auto json = nlohmann::json::parse(first_line, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(json.is_discarded()) << "the first line of --json output is no JSON record";
  auto evaluation = eval::evaluation_from_json(json);
  ASSERT_TRUE(evaluation.has_value()) << evaluation.error().message;
  int requested = 0;
  for (const auto& family : evaluation->families) {
    if (!family.requested) continue;
    ++requested;
    EXPECT_TRUE(family.executed_count.has_value() && *family.executed_count > 0)
        << solution->path << ": " << family.family << " was not measured as executed";
    EXPECT_TRUE(family.substantial)
        << solution->path << ": " << family.family << " did not carry its share of the work";
  }
  EXPECT_GT(requested, 0) << solution->path << ": the record lists no requested family";
}

INSTANTIATE_TEST_SUITE_P(Solutions, EvaluatedSolution, ::testing::ValuesIn(solution_paths()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           const std::filesystem::path path(param_info.param);
                           std::string name =
                               path.parent_path().filename().string() + "_" + path.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace ptxbench::solutions_test
