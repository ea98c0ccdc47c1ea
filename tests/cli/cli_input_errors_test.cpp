// Bad input at every door is the user's error, said as "file: problem" with exit 2 (never exit
// 3, "internal error"), and leaves nothing half-written; values from the command line written
// into generated files stay values. Runs the built executable as a user would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "ptxbench/config.hpp"
#include "ptxbench/util/folder_lock.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"
#include "run_cli.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

util::ProcessResult ptxbench(std::vector<std::string> args,
                             std::vector<std::pair<std::string, std::string>> env = {}) {
  return testing::run_cli(std::move(args), std::chrono::seconds(60), std::move(env));
}

const fs::path kSource(config::kSourceDir);
const fs::path kMiniRun = kSource / "tests" / "report" / "data" / "mini_run";

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

void write_shard(const fs::path& dir, const std::string& task) {
  util::write_file_atomic(dir / "run.json",
                          R"({"config": {"tasks": [")" + task + R"("]}, "grid": {}})");
  util::write_file_atomic(dir / "trajectories" / ("m__" + task + ".json"),
                          R"({"info": {"status": "finished"}, "turns": []})");
}

TEST(CliInputErrors, MergeOfBadInputIsAUsageErrorAndWritesNothing) {
  util::TempDir dir;
  write_shard(dir.path() / "s0", "a");
  write_shard(dir.path() / "s1", "b");
  write_shard(dir.path() / "s2", "c");
  util::write_file_atomic(dir.path() / "s2" / "trajectories" / "m__c.json",
                          R"({"info": [1], "turns": []})");
  const auto out = (dir.path() / "out").string();
  auto malformed = ptxbench({"merge", (dir.path() / "s0").string(), (dir.path() / "s1").string(),
                             (dir.path() / "s2").string(), "--out", out});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.stderr_text;
  EXPECT_THAT(malformed.stderr_text, HasSubstr("m__c.json: info: expected a JSON object"));
  EXPECT_FALSE(fs::exists(out)) << "a refused merge left a half-written folder";
  EXPECT_EQ(entries(dir.path()), 3u);

  util::write_file_atomic(dir.path() / "s1" / "run.json", R"({"config": 7, "grid": {}})");
  auto typed =
      ptxbench({"merge", (dir.path() / "s0").string(), (dir.path() / "s1").string(), "--out", out});
  EXPECT_EQ(typed.exit_code, 2) << typed.stderr_text;
  EXPECT_THAT(typed.stderr_text, HasSubstr("s1/run.json: config: expected a JSON object"));

  util::write_file_atomic(dir.path() / "merged" / "run.json", R"({"grid": {}})");
  auto no_config =
      ptxbench({"merge", (dir.path() / "s0").string(), "--out", (dir.path() / "merged").string()});
  EXPECT_EQ(no_config.exit_code, 2) << no_config.stderr_text;
  EXPECT_THAT(no_config.stderr_text, HasSubstr("merged/run.json: config: missing"));

  util::write_file_atomic(dir.path() / "file", "x");
  auto at_file =
      ptxbench({"merge", (dir.path() / "s0").string(), "--out", (dir.path() / "file").string()});
  EXPECT_EQ(at_file.exit_code, 2) << at_file.stderr_text;
  EXPECT_THAT(at_file.stderr_text, HasSubstr("file: exists and is not a folder"));
}

TEST(CliInputErrors, ExportsToAFileAreUsageErrors) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "file", "x");
  const auto file = (dir.path() / "file").string();
  auto traces = ptxbench({"export-traces", kMiniRun.string(), "--out", file});
  EXPECT_EQ(traces.exit_code, 2) << traces.stderr_text;
  EXPECT_THAT(traces.stderr_text, HasSubstr("--out: " + file + ": exists and is not a folder"));
  auto tasks = ptxbench({"export-tasks", file, "--task", "gemm_n7168_k5120", "--arch", "hopper"});
  EXPECT_EQ(tasks.exit_code, 2) << tasks.stderr_text;
  EXPECT_THAT(tasks.stderr_text, HasSubstr(file + ": exists and is not a folder"));
  EXPECT_EQ(*util::read_file(file), "x");
}

TEST(CliInputErrors, ANewlineInTheDatasetNameStaysInItsYamlValue) {
  util::TempDir dir;
  const std::string name = "mine\nlicense: evil";
  auto r = ptxbench(
      {"export-traces", kMiniRun.string(), "--out", (dir.path() / "ds").string(), "--name", name});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto card = *util::read_file(dir.path() / "ds" / "README.md");
  const auto header = YAML::Load(card.substr(4, card.find("\n---\n", 4) - 4));
  EXPECT_EQ(header["pretty_name"].as<std::string>(), name);
  EXPECT_FALSE(header["license"].IsDefined()) << card;
  EXPECT_EQ(entries(dir.path()), 1u) << "no staging folder left";
  // Exporting again into the folder keeps the files it holds besides the ones it writes.
  util::write_file_atomic(dir.path() / "ds" / ".gitattributes", "*.jsonl filter=lfs\n");
  auto again =
      ptxbench({"export-traces", kMiniRun.string(), "--out", (dir.path() / "ds").string()});
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_TRUE(fs::exists(dir.path() / "ds" / ".gitattributes"));
  EXPECT_EQ(entries(dir.path() / "ds"), 4u);  // .gitattributes, README.md, train/, heldout/
}

TEST(CliInputErrors, ANewlineInTheImageIsRefusedBeforeAnythingIsWritten) {
  util::TempDir dir;
  const auto out = (dir.path() / "tasks").string();
  auto r = ptxbench({"export-tasks", out, "--task", "gemm_n7168_k5120", "--arch", "hopper",
                     "--image", "ptxbench:latest\nRUN touch /injected"});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("not an image reference"));
  EXPECT_FALSE(fs::exists(out));
  auto ok = ptxbench({"export-tasks", out, "--task", "gemm_n7168_k5120", "--arch", "hopper"});
  ASSERT_EQ(ok.exit_code, 0) << ok.stderr_text;
  EXPECT_THAT(ok.stdout_text, HasSubstr("docker build -f docker/Dockerfile -t ptxbench:latest ."));
}

TEST(CliInputErrors, AJournalAtAFileOrDeviceIsAUsageError) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "tokens", "tester token-0123456789abcdef 4\n");
  util::write_file_atomic(dir.path() / "file", "x");
  for (const std::string& journal :
       std::vector<std::string>{"/dev/null", (dir.path() / "file").string()}) {
    auto r = ptxbench({"serve", "--tokens", (dir.path() / "tokens").string(), "--journal", journal,
                       "--port", "0", "--no-gpu"});
    EXPECT_EQ(r.exit_code, 2) << journal << ": " << r.stderr_text;
    EXPECT_THAT(r.stderr_text, HasSubstr("--journal: " + journal + ": exists and is not a folder"));
  }
}

TEST(CliInputErrors, ATaskFileSymlinkLoopIsAUsageError) {
  util::TempDir dir;
  fs::create_directories(dir.path() / "gemm");
  fs::create_symlink("loop.json", dir.path() / "gemm" / "loop.json");
  auto r = ptxbench({"tasks", "--tasks-dir", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr((dir.path() / "gemm" / "loop.json").string() + ": "));
}

// `run --slurm`: the run folder cannot inject a command into the batch script, and without a
// cluster the error says where the script is and how to submit it by hand.
TEST(CliInputErrors, SlurmSubmissionsSayWhatToDo) {
  util::TempDir dir;
  const std::vector<std::string> run{"run",
                                     "--model",
                                     "replayed",
                                     "--provider",
                                     "replay",
                                     "--replay",
                                     (kSource / "tests" / "slurm" / "data" / "replies").string(),
                                     "--no-gpu",
                                     "--turns",
                                     "1",
                                     "--tasks",
                                     "gemm_n7168_k5120",
                                     "--archs",
                                     "hopper",
                                     "--slurm",
                                     ""};
  auto injected = run;
  injected.insert(injected.end(), {"--out", (dir.path() / "grid").string() + "\ntouch " +
                                                (dir.path() / "injected").string()});
  auto refused = ptxbench(injected);
  EXPECT_EQ(refused.exit_code, 2) << refused.stderr_text;
  EXPECT_THAT(refused.stderr_text, HasSubstr("an #SBATCH line cannot hold"));
  EXPECT_EQ(entries(dir.path()), 0u);

  auto no_cluster = run;
  no_cluster.insert(no_cluster.end(), {"--out", (dir.path() / "my grid").string()});
  auto r = ptxbench(no_cluster, {{"PATH", (dir.path() / "no-bin").string()}});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  const auto script = dir.path() / "my grid" / "slurm" / "array.sh";
  EXPECT_TRUE(fs::exists(script));
  EXPECT_THAT(r.stderr_text, HasSubstr("the script is ready: submit it by hand with `sbatch '" +
                                       script.string() + "'`"));
}

}  // namespace
}  // namespace ptxbench::cli

namespace ptxbench::cli {
namespace {

// `ptxbench study` checks every field and path before its first step: a bad grid value or a
// study folder another study holds is exit 2, and nothing (no folder, no .partial step) is left.
TEST(CliInputErrors, AStudyIsCheckedWholeBeforeAnyStep) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "r.md", "```cuda\n__global__ void k() {}\n```\n");
  const std::string head = "grid: {tasks: [gemm_n4096_k4096], turns: 1, evaluation: {gpu: false}";
  const std::string rest =
      "}\nbase: {model: {provider: replay, path: r.md}}\n"
      "teachers: [{name: t, model: {provider: replay, path: r.md}}]\n"
      "variants: [{name: v, retrieval: true}]\n";
  util::write_file_atomic(dir.path() / "bad.yaml",
                          "out: bad\n" + head + ", samples: [1, 2]" + rest);
  auto bad = ptxbench({"study", (dir.path() / "bad.yaml").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.stdout_text << bad.stderr_text;
  EXPECT_THAT(bad.stderr_text, HasSubstr("bad.yaml: grid.samples: "));
  EXPECT_FALSE(fs::exists(dir.path() / "bad")) << "a step ran before the check";

  util::write_file_atomic(dir.path() / "ok.yaml", "out: held\n" + head + rest);
  fs::create_directories(dir.path() / "held");
  auto lock = util::FolderLock::acquire(dir.path() / "held", "study folder");
  ASSERT_TRUE(lock) << lock.error().message;
  auto busy = ptxbench({"study", (dir.path() / "ok.yaml").string()});
  EXPECT_EQ(busy.exit_code, 2) << busy.stdout_text << busy.stderr_text;
  EXPECT_THAT(busy.stderr_text, HasSubstr("another ptxbench process is using this study folder"));
  EXPECT_FALSE(fs::exists(dir.path() / "held" / "steps")) << "a step ran in a folder in use";
}

// --seed-pool and --verdict-cache: a value out of range or a file where a folder belongs is a
// usage error before anything is compiled.
TEST(CliInputErrors, BadSeedPoolsAndVerdictCachesAreUsageErrors) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "file", "x");
  util::write_file_atomic(dir.path() / "k.cu", "__global__ void k() {}\n");
  const std::string source = (dir.path() / "k.cu").string();
  for (const auto& flag :
       std::vector<std::vector<std::string>>{{"--seed-pool", "-1"},
                                             {"--seed-pool", "1048577"},
                                             {"--verdict-cache", (dir.path() / "file").string()}}) {
    auto r = ptxbench({"eval", source, "--task", "gemm_n7168_k5120", "--arch", "hopper", "--no-gpu",
                       flag[0], flag[1]});
    EXPECT_EQ(r.exit_code, 2) << flag[0] << " " << flag[1] << ": " << r.stderr_text;
    EXPECT_THAT(r.stderr_text, HasSubstr(flag[0]));
  }
  // A verdict cache without --seed or --seed-pool would never answer: refused, not ignored.
  const std::string cache = (dir.path() / "verdicts").string();
  auto alone = ptxbench({"eval", source, "--task", "gemm_n7168_k5120", "--arch", "hopper",
                         "--no-gpu", "--verdict-cache", cache});
  EXPECT_EQ(alone.exit_code, 2) << alone.stderr_text;
  EXPECT_THAT(alone.stderr_text, HasSubstr("--verdict-cache (verdict_cache): needs --seed"));
  auto seeded = ptxbench({"eval", source, "--task", "gemm_n7168_k5120", "--arch", "hopper",
                          "--no-gpu", "--verdict-cache", cache, "--seed-pool", "2"});
  EXPECT_NE(seeded.exit_code, 2) << seeded.stderr_text;
}

}  // namespace
}  // namespace ptxbench::cli
