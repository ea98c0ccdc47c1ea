#include "ptxbench/sandbox/evaluation_sandbox.hpp"

namespace ptxbench::sandbox {

EvaluationSandbox make_evaluation_sandbox(Mode mode, std::shared_ptr<util::ProcessRunner> base,
                                          const std::vector<std::filesystem::path>& visible,
                                          std::uint64_t compile_memory_bytes) {
  for (const auto& folder : visible) open_to_sandbox_user(folder);
  Policy worker = worker_policy(mode);
  worker.read_only_paths.insert(worker.read_only_paths.end(), visible.begin(), visible.end());
  EvaluationSandbox sandbox{
      .worker = std::make_shared<SandboxedProcessRunner>(base, std::move(worker)),
      .compiler = std::make_shared<SandboxedProcessRunner>(
          base, compiler_policy(mode, compile_memory_bytes))};
  sandbox.description = sandbox.worker->description();
  // The compiler's layers are the same machine's: one description covers both.
  sandbox.usable = mode != Mode::kStrict || complete(sandbox.worker->support().usable);
  return sandbox;
}

}  // namespace ptxbench::sandbox
