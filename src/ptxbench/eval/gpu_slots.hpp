// The GPU slots of the engine: which GPUs get a worker of their own (`--gpus all|LIST`), and the
// build's worker (ptxbench-worker) behind each. Each selected GPU gets its own GpuStages whose
// processes (the worker, compute-sanitizer, ncu) see only that GPU (CUDA_VISIBLE_DEVICES), so
// one candidate's GPU stages run on exactly one GPU and the same candidate is judged the same
// way on any of them.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

// The ptxbench-worker executable: $PTXBENCH_WORKER, beside the running executable, then $PATH.
std::optional<std::filesystem::path> find_worker();

// "all": every GPU this process may use (the entries of CUDA_VISIBLE_DEVICES when it is set,
// else the indices `nvidia-smi -L` lists); "0,2,3": those devices. An empty list for "all" on
// a machine without GPUs; a malformed LIST is an error.
util::Expected<std::vector<std::string>> parse_gpu_list(std::string_view spec,
                                                        util::ProcessRunner& runner);

// Runs every process with CUDA_VISIBLE_DEVICES set to one device.
class PinnedProcessRunner final : public util::ProcessRunner {
 public:
  PinnedProcessRunner(std::shared_ptr<util::ProcessRunner> inner, std::string device)
      : inner_(std::move(inner)), device_(std::move(device)) {}
  util::ProcessResult run(const util::ProcessSpec& spec) override;
  util::Expected<std::unique_ptr<util::LiveProcess>> start(const util::ProcessSpec& spec) override;
  const std::string& device() const { return device_; }

 private:
  util::ProcessSpec pinned(const util::ProcessSpec& spec) const;

  std::shared_ptr<util::ProcessRunner> inner_;
  std::string device_;
};

// The GPU stage sequence of this build over `runner`; null when no worker is found.
std::shared_ptr<GpuStages> make_stage_sequence(std::shared_ptr<util::ProcessRunner> runner,
                                               const JudgeSettings& judge = {});

// One GpuStages per device (the build's worker, pinned); empty when the build has no worker.
std::vector<std::shared_ptr<GpuStages>> make_gpu_workers(
    const std::vector<std::string>& devices, std::shared_ptr<util::ProcessRunner> runner,
    const JudgeSettings& judge = {});

// The GPU slots of a command: without --gpus (`spec` empty) the build's worker on whatever GPU
// it finds; with it, one pinned worker per listed GPU.
util::Expected<std::vector<std::shared_ptr<GpuStages>>> gpu_slots(
    const std::string& spec, std::shared_ptr<util::ProcessRunner> runner,
    const JudgeSettings& judge = {});

}  // namespace ptxbench::eval
