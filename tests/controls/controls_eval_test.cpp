// GPU test: every control goes through `ptxbench eval` as a model's kernel would and must end
// with one of the verdicts its header names; no negative control may pass. Skips, with the
// reason, where the GPU stages cannot run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "control_files.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::controls_test {
namespace {

std::vector<std::string> control_paths() {
  std::vector<std::string> paths;
  auto controls = load_controls();
  if (!controls) return {"<unreadable>"};
  for (const auto& control : *controls) paths.push_back(control.path.string());
  return paths;
}

class EvaluatedControl : public ::testing::TestWithParam<std::string> {};

TEST_P(EvaluatedControl, IsCaughtByTheVerdictItsHeaderNames) {
  auto controls = load_controls();
  ASSERT_TRUE(controls.has_value()) << controls.error().message;
  const auto found = std::find_if(controls->begin(), controls->end(), [](const ControlFile& c) {
    return c.path.string() == GetParam();
  });
  ASSERT_NE(found, controls->end()) << GetParam();
  const ControlFile& control = *found;

  util::SystemProcessRunner runner;
  util::ProcessSpec spec;
  spec.argv = {PTXBENCH_CLI_PATH,
               "eval",
               control.path.string(),
               "--task",
               control.header.task,
               "--arch",
               std::string(arch::to_string(control.header.arch)),
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
  if (verdict == "NOT_RUN") {
    GTEST_SKIP() << "no " << arch::to_string(control.header.arch)
                 << " GPU here: the GPU stages did not run";
  }
  const auto& expect = control.header.expect;
  EXPECT_NE(std::find(expect.begin(), expect.end(), verdict), expect.end())
      << control.path.filename() << " got " << verdict << "; planted: " << control.header.why
      << "\n"
      << result.stdout_text;
  if (std::find(expect.begin(), expect.end(), "PASSED") == expect.end()) {
    EXPECT_NE(verdict, "PASSED") << control.path.filename() << " cheated its way to a pass";
  }
}

INSTANTIATE_TEST_SUITE_P(Controls, EvaluatedControl, ::testing::ValuesIn(control_paths()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = std::filesystem::path(param_info.param).stem();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace ptxbench::controls_test
