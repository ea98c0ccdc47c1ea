#include "ptxbench/gpus/gpu_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "ptxbench/eval/evaluator.hpp"

namespace ptxbench::gpus {
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

}  // namespace

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

util::ProcessResult PinnedProcessRunner::run(const util::ProcessSpec& spec) {
  util::ProcessSpec pinned = spec;
  std::erase_if(pinned.env,
                [](const auto& entry) { return entry.first == "CUDA_VISIBLE_DEVICES"; });
  pinned.env.emplace_back("CUDA_VISIBLE_DEVICES", device_);
  return inner_->run(pinned);
}

std::vector<std::shared_ptr<eval::GpuStages>> make_gpu_workers(
    const std::vector<std::string>& devices, std::shared_ptr<util::ProcessRunner> runner,
    eval::GpuStageChoices choices) {
  std::vector<std::shared_ptr<eval::GpuStages>> workers;
  for (const auto& device : devices) {
    auto stages = eval::make_default_gpu_stages(
        std::make_shared<PinnedProcessRunner>(runner, device), choices);
    if (!stages) return {};
    workers.push_back(std::move(stages));
  }
  return workers;
}

util::Expected<std::vector<std::shared_ptr<eval::GpuStages>>> gpu_slots(
    const std::string& spec, std::shared_ptr<util::ProcessRunner> runner,
    eval::GpuStageChoices choices) {
  if (spec.empty()) {
    auto stages = eval::make_default_gpu_stages(std::move(runner), choices);
    if (!stages) return std::vector<std::shared_ptr<eval::GpuStages>>{};
    return std::vector<std::shared_ptr<eval::GpuStages>>{std::move(stages)};
  }
  auto devices = parse_gpu_list(spec, *runner);
  if (!devices) return devices.error();
  return make_gpu_workers(*devices, std::move(runner), std::move(choices));
}

}  // namespace ptxbench::gpus
