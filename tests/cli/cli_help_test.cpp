// `--help` as a user sees it, running the built executable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptxbench/cli/provider_help.hpp"
#include "ptxbench/util/process.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

util::ProcessResult ptxbench(std::vector<std::string> args) {
  return testing::run_cli(std::move(args), std::chrono::seconds(60));
}

TEST(CliHelp, RunHelpDocumentsReplayLayoutsAndTheCommandProtocol) {
  auto r = ptxbench({"run", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr(providers_help()));
  for (const char* text : {"<task>.md", "<task>__<arch>__<context>", "<trajectory-id>", "RUN_DIR",
                           "PTXBENCH_TURN", "PTXBENCH_TRAJECTORY_ID", "stdin", "stdout"})
    EXPECT_THAT(r.stdout_text, HasSubstr(text)) << text;
}

TEST(CliHelp, TopLevelHelpPointsAtTheProviderReference) {
  auto r = ptxbench({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("ptxbench run --help"));
  EXPECT_THAT(r.stdout_text, HasSubstr("replay layouts"));
}

}  // namespace
}  // namespace ptxbench::cli
