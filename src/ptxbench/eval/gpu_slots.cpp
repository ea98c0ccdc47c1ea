#include "ptxbench/eval/gpu_slots.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "ptxbench/eval/gpu_pipeline/stage_sequence.hpp"
#include "ptxbench/util/live_process.hpp"

namespace ptxbench::eval {
namespace {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in{std::string(text)};
  while (std::getline(in, item, ',')) {
    item.erase(std::remove_if(item.begin(), item.end(), ::isspace), item.end());
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// "GPU 0: NVIDIA H200 (UUID: ...)" lines -> "0", "1", ...
std::vector<std::string> indices_from_nvidia_smi(util::ProcessRunner& runner) {
  auto result = runner.run({.argv = {"nvidia-smi", "-L"}, .timeout = std::chrono::seconds(30)});
  std::vector<std::string> out;
  if (!result.succeeded()) return out;
  std::istringstream lines(result.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("GPU ")) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) out.push_back(line.substr(4, colon - 4));
  }
  return out;
}

constexpr const char* kWorkerName = "ptxbench-worker";

bool executable(const std::filesystem::path& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::filesystem::path> find_worker() {
  if (const char* env = std::getenv("PTXBENCH_WORKER"); env != nullptr && executable(env)) {
    return std::filesystem::path(env);
  }
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && executable(self.parent_path() / kWorkerName))
    return self.parent_path() / kWorkerName;
  return util::find_in_path(kWorkerName);
}

std::shared_ptr<GpuStages> make_stage_sequence(std::shared_ptr<util::ProcessRunner> runner,
                                               const JudgeSettings& judge) {
  auto worker = find_worker();
  if (!worker) return nullptr;
  gpu_pipeline::StageSequenceOptions options{.worker = *worker, .settings = judge};
  if (auto* pinned = dynamic_cast<PinnedProcessRunner*>(runner.get()))
    options.device = pinned->device();
  return std::make_shared<gpu_pipeline::StageSequence>(std::move(options), std::move(runner));
}

util::Expected<std::vector<std::string>> parse_gpu_list(std::string_view spec,
                                                        util::ProcessRunner& runner) {
  if (spec == "all") {
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr)
      return split_list(visible);
    return indices_from_nvidia_smi(runner);
  }
  auto devices = split_list(spec);
  if (devices.empty())
    return util::make_error(fmt::format("--gpus {}: expected all or a list such as 0,1,3", spec));
  for (const auto& device : devices) {
    const bool index = std::all_of(device.begin(), device.end(), ::isdigit);
    const bool uuid = device.starts_with("GPU-") || device.starts_with("MIG-");
    if (!index && !uuid)
      return util::make_error(
          fmt::format("--gpus {}: {}: expected a device index or a GPU-/MIG- UUID", spec, device));
    if (std::count(devices.begin(), devices.end(), device) > 1)
      return util::make_error(fmt::format("--gpus {}: {} appears twice", spec, device));
  }
  return devices;
}

util::ProcessSpec PinnedProcessRunner::pinned(const util::ProcessSpec& spec) const {
  util::ProcessSpec out = spec;
  std::erase_if(out.env, [](const auto& entry) { return entry.first == "CUDA_VISIBLE_DEVICES"; });
  out.env.emplace_back("CUDA_VISIBLE_DEVICES", device_);
  return out;
}

util::ProcessResult PinnedProcessRunner::run(const util::ProcessSpec& spec) {
  return inner_->run(pinned(spec));
}

util::Expected<std::unique_ptr<util::LiveProcess>> PinnedProcessRunner::start(
    const util::ProcessSpec& spec) {
  return inner_->start(pinned(spec));
}

std::vector<std::shared_ptr<GpuStages>> make_gpu_workers(
    const std::vector<std::string>& devices, std::shared_ptr<util::ProcessRunner> runner,
    const JudgeSettings& judge) {
  std::vector<std::shared_ptr<GpuStages>> workers;
  for (const auto& device : devices) {
    auto stages = make_stage_sequence(std::make_shared<PinnedProcessRunner>(runner, device), judge);
    if (!stages) return {};
    workers.push_back(std::move(stages));
  }
  return workers;
}

util::Expected<std::vector<std::shared_ptr<GpuStages>>> gpu_slots(
    const std::string& spec, std::shared_ptr<util::ProcessRunner> runner,
    const JudgeSettings& judge) {
  if (spec.empty()) {
    auto stages = make_stage_sequence(std::move(runner), judge);
    if (!stages) return std::vector<std::shared_ptr<GpuStages>>{};
    return std::vector<std::shared_ptr<GpuStages>>{std::move(stages)};
  }
  auto devices = parse_gpu_list(spec, *runner);
  if (!devices) return devices.error();
  return make_gpu_workers(*devices, std::move(runner), judge);
}

}  // namespace ptxbench::eval
