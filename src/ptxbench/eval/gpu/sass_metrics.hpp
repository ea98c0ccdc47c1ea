// Executed-instruction counts per SASS pc from the CUPTI SASS-metrics API, for ONE kernel function
// per process.
//
// What this CUPTI (2025.3, API 130001) does on GH100, measured (docs/gpu-facts, shared notes):
//   * only the first kernel function launched after cuptiSassMetricsEnable is reported, and
//     nothing after the first flush; repeated launches of that function accumulate exactly;
//   * it needs an active callback subscription and lazy patching;
//   * mixed with CUPTI activity tracing it silently reports zeros: never trace in this process.
// So a session observes one target function: it opens the window from the launch callback just
// before that function's first launch, whatever was launched before it. A multi-kernel candidate
// needs one process per kernel function.
#pragma once
#include <cuda.h>
#include <cupti.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ptxbench::eval::gpu {

// Metrics every probe collects, in this order.
std::vector<std::string> default_sass_metric_names();

struct SassMetricsConfig {
  std::vector<std::string> metric_names = default_sass_metric_names();
  int device_index = 0;
  // Mangled name of the kernel function to observe. Empty: the first function launched after
  // arm(), whatever its name.
  std::string target_function;
};

// One executed (patched) instruction of the observed function.
struct SassPcRecord {
  std::uint32_t cubin_crc = 0;        // of the module the function lives in (CUPTI's 32-bit CRC)
  std::string function_name;          // mangled
  std::uint32_t pc_offset = 0;        // byte offset in the function, as nvdisasm prints it
  std::vector<std::uint64_t> counts;  // per metric of the config, summed over instances
};

// A module seen by the MODULE_LOADED callback, with its cubin.
struct LoadedModule {
  std::uint32_t module_id = 0;
  std::uint64_t crc = 0;  // cuptiGetCubinCrc of the cubin
  std::vector<std::uint8_t> cubin;
};

struct SassMetricsResult {
  std::vector<std::string> metric_names;
  std::vector<SassPcRecord> records;
  std::uint64_t dropped_records = 0;
  bool window_opened = false;  // the target was launched (collection was enabled)
  int target_launches = 0;     // launches of the target after the window opened
  int graph_launches = 0;      // cuGraphLaunch calls: kernels inside them are not named
  std::vector<std::string> launched_functions;  // distinct names, first-launch order
};

// CRC that CUPTI assigns to a cubin (cuptiGetCubinCrc); the records carry its low 32 bits.
std::uint64_t cubin_crc(const std::vector<std::uint8_t>& cubin);

// Owns the CUPTI subscription, the profiler initialisation and the SASS-metrics config of one
// device. Invariant: at most one per process (CUPTI allows one subscriber); collect() once.
// Create it while the GPU is idle and before the candidate's module is loaded, so that its
// MODULE_LOADED callback is seen.
class SassMetricsSession {
 public:
  SassMetricsSession(CUcontext context, SassMetricsConfig config);
  ~SassMetricsSession();
  SassMetricsSession(const SassMetricsSession&) = delete;
  SassMetricsSession& operator=(const SassMetricsSession&) = delete;

  // From now on the target's first launch opens the collection window (an empty target opens
  // it now).
  void arm();
  // After the launches: synchronises the context, flushes once, disables. Call once.
  SassMetricsResult collect();
  // Copies of the modules loaded since construction.
  std::vector<LoadedModule> loaded_modules() const;

 private:
  struct State;
  static void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                   const void* data);
  void on_launch(const char* function_name, CUpti_ApiCallbackSite site);
  void on_module_loaded(const CUpti_ModuleResourceData& module);
  CUptiResult enable();

  CUcontext context_;
  SassMetricsConfig config_;
  std::vector<std::uint64_t> metric_ids_;
  std::unique_ptr<State> state_;
  mutable std::mutex mutex_;
};

}  // namespace ptxbench::eval::gpu
