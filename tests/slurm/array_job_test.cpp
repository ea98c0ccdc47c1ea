#include "ptxbench/slurm/array_job.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::slurm {
namespace {

TEST(ArrayJob, TheShardCommandDropsWhatOnlyTheSubmissionTakes) {
  const std::vector<std::string> argv{"/bin/ptxbench", "run",          "--config", "run.yaml",
                                      "--slurm",       "--gres=gpu:1", "--shards", "4",
                                      "--out=grid",    "--turns",      "2"};
  EXPECT_EQ(shard_command(argv), (std::vector<std::string>{"/bin/ptxbench", "run", "--config",
                                                           "run.yaml", "--turns", "2"}));
}

std::string script_of(const ArrayJob& job) {
  auto script = render_array_script(job);
  EXPECT_TRUE(script.has_value()) << script.error().message;
  return script ? *script : std::string();
}

TEST(ArrayJob, TheScriptRunsShardIOfNIntoItsOwnFolder) {
  const auto script = script_of({.run_dir = "/runs/grid",
                                 .working_dir = "/home/me",
                                 .run_argv = {"/bin/ptxbench", "run", "--model", "it's"},
                                 .shards = 3});
  EXPECT_NE(script.find("#SBATCH --array=0-2\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --chdir=\"/home/me\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=\"/runs/grid/slurm/shard-%a.log\"\n"), std::string::npos);
  EXPECT_NE(script.find("exec '/bin/ptxbench' 'run' '--model' 'it'\\''s' --shard \"$shard/3\" "
                        "--out '/runs/grid'/shards/shard-\"$shard\""),
            std::string::npos)
      << script;
}

// Resubmitting the script by hand (`sbatch RUN/slurm/array.sh`, docs/slurm.md) keeps the
// user's sbatch options: they are in the script, not only on the first sbatch command line.
TEST(ArrayJob, TheUsersSbatchOptionsAreInTheScript) {
  const auto script = script_of(
      {.run_dir = "/runs/grid",
       .working_dir = "/home/me",
       .run_argv = {"ptxbench", "run"},
       .sbatch_args = split_arguments("--partition=gpu --gres=gpu:h200:1 --time=12:00:00")});
  EXPECT_NE(script.find("#SBATCH \"--partition=gpu\"\n#SBATCH \"--gres=gpu:h200:1\"\n"
                        "#SBATCH \"--time=12:00:00\"\n"),
            std::string::npos)
      << script;
  EXPECT_LT(script.find("#SBATCH \"--partition"), script.find("\nset -euo"))
      << "sbatch reads #SBATCH lines only before the first command";
}

// A space in the run folder stays in the path; a newline (which would end the #SBATCH line and
// put a command of its own in the script) and what sbatch's file names cannot hold are refused.
TEST(ArrayJob, TheRunFolderIsQuotedOrRefused) {
  const auto spaced = script_of(
      {.run_dir = "/runs/my grid 50%", .working_dir = "/home/me", .run_argv = {"ptxbench"}});
  EXPECT_NE(spaced.find("#SBATCH --output=\"/runs/my grid 50%%/slurm/shard-%a.log\"\n"),
            std::string::npos)
      << spaced;
  EXPECT_NE(spaced.find("#SBATCH --job-name=\"ptxbench-my grid 50%\"\n"), std::string::npos);
  for (const std::string bad : {"/runs/grid\ntouch /tmp/injected", "/runs/a\\b", "/runs/a\"b"}) {
    auto script = render_array_script({.run_dir = bad, .working_dir = "/home/me"});
    ASSERT_FALSE(script.has_value()) << bad;
    EXPECT_NE(script.error().message.find("an #SBATCH line cannot hold"), std::string::npos)
        << script.error().message;
  }
  auto workdir = render_array_script({.run_dir = "/runs/grid", .working_dir = "/home/a\nb"});
  EXPECT_FALSE(workdir.has_value());
  for (const std::string bad_option : {"--partition=gpu\nrm", "--comment=a\"b"}) {
    auto option = render_array_script(
        {.run_dir = "/runs/grid", .working_dir = "/w", .sbatch_args = {bad_option}});
    ASSERT_FALSE(option.has_value()) << bad_option;
    EXPECT_NE(option.error().message.find("--slurm: "), std::string::npos);
  }
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
  EXPECT_EQ(sbatch.argv,
            (std::vector<std::string>{"sbatch", "--parsable", submitted->script.string()}));
  const auto script = util::read_file(submitted->script);
  EXPECT_NE(script->find("#SBATCH \"--gres=gpu:1\"\n"), std::string::npos);
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

// Without a cluster (no sbatch here) the script is still written, and the error says so.
TEST(ArrayJob, WithoutSbatchTheScriptIsReadyToSubmitByHand) {
  util::TempDir dir;
  FakeSbatch sbatch;
  sbatch.result = {.started = false, .spawn_error = "sbatch: No such file or directory"};
  auto submitted = submit_array_job(
      {.run_dir = dir.path() / "grid", .working_dir = dir.path(), .run_argv = {"ptxbench"}},
      sbatch);
  ASSERT_FALSE(submitted.has_value());
  const auto script = dir.path() / "grid" / "slurm" / "array.sh";
  EXPECT_TRUE(std::filesystem::exists(script));
  EXPECT_NE(submitted.error().message.find("No such file or directory"), std::string::npos);
  EXPECT_NE(submitted.error().message.find(
                fmt::format("the script is ready: submit it by hand with `sbatch {}`",
                            util::shell_quoted(script.string()))),
            std::string::npos)
      << submitted.error().message;
}

TEST(ArrayJob, ARefusedScriptIsNotWrittenNorSubmitted) {
  util::TempDir dir;
  FakeSbatch sbatch;
  auto submitted = submit_array_job(
      {.run_dir = dir.path() / "a\nb", .working_dir = dir.path(), .run_argv = {"ptxbench"}},
      sbatch);
  ASSERT_FALSE(submitted.has_value());
  EXPECT_TRUE(sbatch.argv.empty());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a\nb"));
}

}  // namespace
}  // namespace ptxbench::slurm
