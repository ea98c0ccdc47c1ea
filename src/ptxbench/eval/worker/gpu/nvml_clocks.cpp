#include "ptxbench/eval/worker/gpu/nvml_clocks.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace ptxbench::eval::gpu {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(::dlsym(library, name));
}

}  // namespace

NvmlDevice::NvmlDevice(int cuda_device) {
  library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return;
  auto init = symbol<int (*)()>(library_, "nvmlInit_v2");
  auto by_bus_id =
      symbol<int (*)(const char*, Device*)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  shutdown_ = symbol<int (*)()>(library_, "nvmlShutdown");
  clock_info_ = symbol<decltype(clock_info_)>(library_, "nvmlDeviceGetClockInfo");
  max_clock_info_ = symbol<decltype(max_clock_info_)>(library_, "nvmlDeviceGetMaxClockInfo");
  event_reasons_ =
      symbol<decltype(event_reasons_)>(library_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (event_reasons_ == nullptr) {
    event_reasons_ =
        symbol<decltype(event_reasons_)>(library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  driver_version_ = symbol<decltype(driver_version_)>(library_, "nvmlSystemGetDriverVersion");
  if (init == nullptr || by_bus_id == nullptr || init() != kNvmlSuccess) return;
  initialised_ = true;
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) return;
  Device device = nullptr;
  if (by_bus_id(bus_id, &device) == kNvmlSuccess) device_ = device;
}

NvmlDevice::~NvmlDevice() {
  if (initialised_ && shutdown_ != nullptr) shutdown_();
  if (library_ != nullptr) ::dlclose(library_);
}

std::optional<std::string> NvmlDevice::driver_version() const {
  if (!initialised_ || driver_version_ == nullptr) return std::nullopt;
  char text[96] = {};
  if (driver_version_(text, sizeof text) != kNvmlSuccess) return std::nullopt;
  return std::string(text);
}

std::optional<int> NvmlDevice::sm_clock_mhz() const {
  unsigned int mhz = 0;
  if (!available() || clock_info_ == nullptr ||
      clock_info_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<int>(mhz);
}

std::optional<int> NvmlDevice::max_sm_clock_mhz() const {
  unsigned int mhz = 0;
  if (!available() || max_clock_info_ == nullptr ||
      max_clock_info_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<int>(mhz);
}

std::optional<std::uint64_t> NvmlDevice::clock_event_reasons() const {
  unsigned long long reasons = 0;
  if (!available() || event_reasons_ == nullptr ||
      event_reasons_(device_, &reasons) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<std::uint64_t>(reasons);
}

}  // namespace ptxbench::eval::gpu
