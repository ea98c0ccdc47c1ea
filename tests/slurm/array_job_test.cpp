#include "ptxbench/slurm/array_job.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::slurm {
namespace {

TEST(ArrayJob, TheShardCommandDropsWhatOnlyTheSubmissionTakes) {
  const std::vector<std::string> argv{"/bin/ptxbench", "run",          "--config", "run.yaml",
                                      "--slurm",       "--gres=gpu:1", "--shards", "4",
                                      "--out=grid",    "--turns",      "2"};
  EXPECT_EQ(shard_command(argv), (std::vector<std::string>{"/bin/ptxbench", "run", "--config",
                                                           "run.yaml", "--turns", "2"}));
}

TEST(ArrayJob, TheScriptRunsShardIOfNIntoItsOwnFolder) {
  const auto script = render_array_script({.run_dir = "/runs/grid",
                                           .working_dir = "/home/me",
                                           .run_argv = {"/bin/ptxbench", "run", "--model", "it's"},
                                           .shards = 3});
  EXPECT_NE(script.find("#SBATCH --array=0-2\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --chdir=/home/me\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --output=/runs/grid/slurm/shard-%a.log\n"), std::string::npos);
  EXPECT_NE(script.find("exec '/bin/ptxbench' 'run' '--model' 'it'\\''s' --shard \"$shard/3\" "
                        "--out '/runs/grid'/shards/shard-\"$shard\""),
            std::string::npos)
      << script;
}

class FakeSbatch final : public util::ProcessRunner {
 public:
  std::vector<std::string> argv;
  util::ProcessResult result{.started = true, .exit_code = 0, .stdout_text = "4242;cluster\n"};
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    argv = spec.argv;
    return result;
  }
};

TEST(ArrayJob, SubmitsWithTheUsersSbatchOptions) {
  util::TempDir dir;
  FakeSbatch sbatch;
  auto submitted =
      submit_array_job({.run_dir = dir.path() / "grid",
                        .working_dir = dir.path(),
                        .run_argv = {"ptxbench", "run"},
                        .shards = 2,
                        .sbatch_args = split_arguments(" --partition=gpu  --gres=gpu:1 ")},
                       sbatch);
  ASSERT_TRUE(submitted.has_value()) << submitted.error().message;
  EXPECT_EQ(submitted->job_id, "4242");
  EXPECT_EQ(sbatch.argv, (std::vector<std::string>{"sbatch", "--parsable", "--partition=gpu",
                                                   "--gres=gpu:1", submitted->script.string()}));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "grid" / "slurm" / "array.sh"));
}

TEST(ArrayJob, SbatchsRefusalIsTheError) {
  util::TempDir dir;
  FakeSbatch sbatch;
  sbatch.result = {.started = true,
                   .exit_code = 1,
                   .stderr_text = "sbatch: error: invalid partition specified: gpu"};
  auto submitted = submit_array_job({.run_dir = dir.path(), .working_dir = dir.path()}, sbatch);
  ASSERT_FALSE(submitted.has_value());
  EXPECT_NE(submitted.error().message.find("invalid partition"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::slurm
