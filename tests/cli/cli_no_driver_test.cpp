// Without an NVIDIA driver, `ptxbench eval` says so in words: a worker that the dynamic loader
// cannot start for want of libcuda.so.1 (as on a CPU machine) is "no NVIDIA driver found", never
// the loader's message. The stand-in worker fails exactly as the real one does there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliNoDriver, EvalSaysNoNvidiaDriverFoundInsteadOfTheLoadersError) {
  util::TempDir dir;
  const auto worker = dir.path() / "ptxbench-worker";
  util::write_file_atomic(worker,
                          "#!/bin/sh\n"
                          "echo \"$0: error while loading shared libraries: libcuda.so.1: cannot "
                          "open shared object file: No such file or directory\" >&2\n"
                          "exit 127\n");
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  util::SystemProcessRunner runner;
  auto r = runner.run({.argv = {PTXBENCH_CLI_PATH, "eval",
                                std::string(PTXBENCH_CANDIDATES_DIR) + "/hopper_wgmma_tma.cu",
                                "--task", "gemm_n7168_k5120", "--arch", "hopper", "--json",
                                // the stand-in worker is in an owner-only folder, which the
                                // sandbox's unprivileged user may not execute
                                "--sandbox", "off"},
                       .timeout = std::chrono::seconds(300),
                       .env = {{"PTXBENCH_WORKER", worker.string()}}});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto json = nlohmann::json::parse(r.stdout_text);
  EXPECT_EQ(json.at("verdict"), "NOT_RUN");
  const auto message = json.at("message").get<std::string>();
  EXPECT_THAT(message, HasSubstr("GPU stages not run: no NVIDIA driver found"));
  EXPECT_THAT(message, Not(HasSubstr("libcuda")));
  EXPECT_THAT(r.stdout_text + r.stderr_text, Not(HasSubstr("cannot open shared object file")));
}

}  // namespace
}  // namespace ptxbench::cli
