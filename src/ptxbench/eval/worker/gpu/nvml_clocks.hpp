// The SM clock and the driver's "clocks event" (throttle) reasons of one GPU, through NVML.
// libnvidia-ml ships with the driver, not the toolkit, so it is loaded at run time; without it
// every query answers nullopt and timing keeps all samples (and says clocks were not read).
// Invariant: functions are non-null only while the library is loaded and NVML initialised.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ptxbench::eval::gpu {

// NVML's clocks-event reason bits that mean the clock was pulled down by heat, power braking or
// a hardware slowdown; a sample taken under any of them is not representative.
inline constexpr std::uint64_t kThrottleReasons =
    0x8 /*HW slowdown*/ | 0x20 /*SW thermal*/ | 0x40 /*HW thermal*/ | 0x80 /*HW power brake*/;
inline constexpr std::uint64_t kPowerCapReason = 0x4;  // SW power cap: recorded, not dropped

class NvmlDevice {
 public:
  explicit NvmlDevice(int cuda_device);
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;
  ~NvmlDevice();

  bool available() const { return device_ != nullptr; }
  std::optional<std::string> driver_version() const;
  std::optional<int> sm_clock_mhz() const;
  std::optional<int> max_sm_clock_mhz() const;
  std::optional<std::uint64_t> clock_event_reasons() const;

 private:
  using Device = struct nvmlDevice_st*;
  void* library_ = nullptr;
  bool initialised_ = false;
  Device device_ = nullptr;
  int (*shutdown_)() = nullptr;
  int (*clock_info_)(Device, int, unsigned int*) = nullptr;
  int (*max_clock_info_)(Device, int, unsigned int*) = nullptr;
  int (*event_reasons_)(Device, unsigned long long*) = nullptr;
  int (*driver_version_)(char*, unsigned int) = nullptr;
};

}  // namespace ptxbench::eval::gpu
