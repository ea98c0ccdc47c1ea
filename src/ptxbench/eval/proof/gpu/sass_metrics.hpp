// Executed-instruction counts per SASS pc from the CUPTI SASS-metrics API, for ONE kernel function
// per process.
//
// What this CUPTI (2025.3, API 130001) does on GH100, measured (shared notes gpu-facts, and
// tests/eval/proof/device on an H200):
//   * only the first kernel function launched after Enable is reported, and nothing after
//     the first flush; repeated launches of that function accumulate exactly;
//   * the window stayed empty in a program that ran a cudaMemset between SetConfig and Enable,
//     while a program with only host-to-device copies there reported records (two device
//     runs; inferred, not isolated), and enabling from inside a launch callback left it empty
//     too: so SetConfig -> Enable -> the observed launches, with no GPU work in between;
//   * records come one per (pc, metric), with one instance each at GPU granularity;
//   * mixed with CUPTI activity tracing it silently reports zeros: never trace in this process.
// So a session observes the first kernel function launched after arm(), and a caller prepares
// everything (inputs, outputs, libraries) before constructing it.
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
  std::vector<SassPcRecord> records;  // one per (pc, metric) of the observed function
  std::uint64_t dropped_records = 0;
  std::string observed_function;  // the first kernel function launched after arm(); "" if none
  int observed_launches = 0;      // its launches after arm()
  int graph_launches = 0;         // cuGraphLaunch calls: kernels inside them are not named
  std::vector<std::string> launched_functions;  // after arm(): distinct, first-launch order
};

// CRC that CUPTI assigns to a cubin (cuptiGetCubinCrc); the records carry its low 32 bits.
std::uint64_t cubin_crc(const std::vector<std::uint8_t>& cubin);

// Owns the profiler initialisation, the SASS-metrics config of one device and the CUPTI
// subscription (SASS metrics need one; it also sees launches and module loads). Invariant: at
// most one per process (CUPTI allows one subscriber); arm() and collect() once each. Construct
// it with the GPU idle, right before the work to observe, and launch nothing in between.
class SassMetricsSession {
 public:
  SassMetricsSession(CUcontext context, SassMetricsConfig config);
  ~SassMetricsSession();
  SassMetricsSession(const SassMetricsSession&) = delete;
  SassMetricsSession& operator=(const SassMetricsSession&) = delete;

  // Opens the collection window: the next kernel function launched is the observed one.
  void arm();
  // After the launches: synchronises the context, flushes once, disables. Call once.
  SassMetricsResult collect();
  // Copies of the modules loaded since construction (with their CRCs).
  std::vector<LoadedModule> loaded_modules() const;

 private:
  struct State;
  static void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                   const void* data);
  void on_launch(const char* function_name, CUpti_ApiCallbackSite site);
  void on_module_loaded(const CUpti_ModuleResourceData& module);

  CUcontext context_;
  SassMetricsConfig config_;
  std::vector<std::uint64_t> metric_ids_;
  std::unique_ptr<State> state_;
  mutable std::mutex mutex_;
};

}  // namespace ptxbench::eval::gpu
