// A ptxbench task as a Harbor task folder, for agent harnesses that run tasks in containers:
//   task.toml                 metadata, timeouts, a GPU of the arch for the environment, the
//                             agent as an unprivileged user and the verifier as root
//   instruction.md            the prompt a model gets (system part + task part), and where to
//                             write the answer
//   environment/Dockerfile    FROM the ptxbench image (docker/Dockerfile of the source tree);
//                             copies the workspace
//   environment/workspace/kernel.cu   the stub the agent replaces (the ABI's shape, no kernel)
//   tests/test.sh             stops the agent's processes, judges a private copy of
//                             /workspace/kernel.cu with `ptxbench eval --json` (or the service
//                             when PTXBENCH_URL is set) and writes the verdict, speedup and
//                             executed instructions; reward 1 only for PASSED, and no reward
//                             but a loud failure when the GPU stages could not run
//   solution/solve.sh         (when the project ships a solution) copies it into place
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/prompt/context_level.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::harbor {

struct HarborFile {
  std::string content;
  bool executable = false;
};

struct HarborOptions {
  arch::Arch arch = arch::Arch::kHopper;
  prompt::ContextLevel context = prompt::ContextLevel::kNone;
  std::filesystem::path context_dir;
  std::string base_image = "ptxbench:latest";  // built from docker/Dockerfile
  std::optional<std::string> solution;         // a shipped solution's source
};

// The image docker/Dockerfile builds by default, the unprivileged user the agent runs as in it,
// and the command (in the source tree) that builds it.
inline constexpr const char* kDefaultImage = "ptxbench:latest";
inline constexpr const char* kAgentUser = "agent";
std::string image_build_command(const std::string& tag);

// The folder name: "<task>-<arch>" (Harbor task names are per folder).
std::string harbor_task_name(const task::Task& task, arch::Arch arch);

// Relative path -> file. Fails when a context document is missing or the base image is not an
// image reference (a newline in it would add an instruction to the Dockerfile).
util::Expected<std::map<std::string, HarborFile>> render_harbor_task(const task::Task& task,
                                                                     const HarborOptions& options);

}  // namespace ptxbench::harbor
