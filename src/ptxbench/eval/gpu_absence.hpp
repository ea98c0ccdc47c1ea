// Why the GPU stages of an evaluation cannot run, said the same way by `eval`, `run` and `demo`:
// every evaluation's "GPU stages not run: <why>" goes through explain_gpu_absence().
#pragma once
#include <string>
#include <string_view>

namespace ptxbench::eval {

inline constexpr std::string_view kNoDriverReason = "no NVIDIA driver found";

// The kernel driver is loaded (/proc/driver/nvidia/version) or its user-space library
// libcuda.so.1 is where the dynamic loader looks. Reads the file system only; loads nothing.
bool nvidia_driver_present();

// `why` as a user should read it: a dynamic loader's "libcuda.so.1: cannot open shared object
// file" (the GPU worker links the driver library) becomes kNoDriverReason; anything else is kept.
std::string explain_gpu_absence(std::string why);

// The reason when this build has no GPU worker: no driver, or the worker target was not built.
std::string missing_worker_reason();

}  // namespace ptxbench::eval
