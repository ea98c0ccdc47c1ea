#include "ptxbench/eval/proof/gpu/sass_metrics.hpp"

#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <string_view>
#include <unordered_map>

#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::gpu {
namespace {

std::string cupti_error_name(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

void check_cupti(CUptiResult result, const char* call) {
  PTXBENCH_CHECK(result == CUPTI_SUCCESS,
                 std::string(call) + " failed: " + cupti_error_name(result));
}

// The no-throw twin for destructors: a failure while tearing down is not worth a crash.
void ignore_cupti(CUptiResult /*result*/) {}

#define PTXBENCH_CUPTI(call) check_cupti((call), #call)

constexpr CUpti_CallbackId kKernelLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
};
constexpr CUpti_CallbackId kGraphLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
bool contains(std::span<const CUpti_CallbackId> ids, CUpti_CallbackId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool is_kernel_launch(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  return domain == CUPTI_CB_DOMAIN_DRIVER_API && contains(kKernelLaunches, id);
}

bool is_graph_launch(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  return domain == CUPTI_CB_DOMAIN_DRIVER_API && contains(kGraphLaunches, id);
}

// symbolName is documented for launch callbacks; when it is missing, ask the driver for the
// launched function's name.
const char* launched_function_name(CUpti_CallbackId id, const CUpti_CallbackData& data) {
  if (data.symbolName != nullptr) return data.symbolName;
  CUfunction function = nullptr;
  if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
      id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
    function = static_cast<const cuLaunchKernel_params*>(data.functionParams)->f;
  } else if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
             id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
    function = static_cast<const cuLaunchKernelEx_params*>(data.functionParams)->f;
  }
  const char* name = nullptr;
  if (function != nullptr && cuFuncGetName(&name, function) == CUDA_SUCCESS) return name;
  return "";
}

}  // namespace

struct SassMetricsSession::State {
  CUpti_SubscriberHandle subscriber = nullptr;
  bool profiler_initialised = false;
  bool configured = false;
  bool enabled = false;
  bool collected = false;
  std::atomic<bool> armed{false};
  int graph_launches = 0;
  std::vector<std::string> launched_functions;  // after arm()
  std::vector<int> launches;                    // per launched function
  std::vector<LoadedModule> modules;
};

std::vector<std::string> default_sass_metric_names() {
  return {
      "smsp__sass_inst_executed",                 // warp-level executions of each instruction
      "smsp__sass_thread_inst_executed_pred_on",  // thread-level, predicate true
      "smsp__sass_inst_executed_op_shared_gmma",  // HGMMA/IGMMA/QGMMA/BGMMA (cross-check)
      "smsp__sass_inst_executed_op_tma",          // UTMALDG/UTMASTG/UTMAREDG/UBLKCP/UBLKRED
  };
}

std::uint64_t cubin_crc(const std::vector<std::uint8_t>& cubin) {
  PTXBENCH_CHECK(!cubin.empty(), "cubin_crc of an empty cubin");
  CUpti_GetCubinCrcParams params{};
  params.size = CUpti_GetCubinCrcParamsSize;
  params.cubinSize = cubin.size();
  params.cubin = cubin.data();
  PTXBENCH_CUPTI(cuptiGetCubinCrc(&params));
  return params.cubinCrc;
}

SassMetricsSession::SassMetricsSession(CUcontext context, SassMetricsConfig config)
    : context_(context), config_(std::move(config)), state_(std::make_unique<State>()) {
  PTXBENCH_CHECK(context_ != nullptr, "SassMetricsSession needs a CUDA context");
  PTXBENCH_CHECK(!config_.metric_names.empty(), "SassMetricsSession needs at least one metric");
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
  PTXBENCH_CUPTI(cuptiProfilerInitialize(&init));
  state_->profiler_initialised = true;

  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE, nullptr,
                                       static_cast<size_t>(config_.device_index), nullptr};
  PTXBENCH_CUPTI(cuptiDeviceGetChipName(&chip));

  std::vector<CUpti_SassMetrics_Config> configs;
  for (const std::string& name : config_.metric_names) {
    CUpti_SassMetrics_GetProperties_Params properties{};
    properties.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
    properties.pChipName = chip.pChipName;
    properties.pMetricName = name.c_str();
    PTXBENCH_CUPTI(cuptiSassMetricsGetProperties(&properties));
    metric_ids_.push_back(properties.metric.metricId);
    configs.push_back({properties.metric.metricId,
                       static_cast<uint8_t>(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU)});
  }
  CUpti_SassMetricsSetConfig_Params set{};
  set.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = static_cast<uint32_t>(config_.device_index);
  PTXBENCH_CUPTI(cuptiSassMetricsSetConfig(&set));
  state_->configured = true;

  // SASS metrics need an active subscription; ours also sees module loads and kernel launches
  // (only the launch callbacks: nothing else of the driver API).
  PTXBENCH_CUPTI(cuptiSubscribe(&state_->subscriber, &SassMetricsSession::on_callback, this));
  PTXBENCH_CUPTI(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                     CUPTI_CBID_RESOURCE_MODULE_LOADED));
  for (const auto& ids : {std::span<const CUpti_CallbackId>(kKernelLaunches),
                          std::span<const CUpti_CallbackId>(kGraphLaunches)}) {
    for (const CUpti_CallbackId id : ids) {
      PTXBENCH_CUPTI(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
    }
  }
}

SassMetricsSession::~SassMetricsSession() {
  if (state_->enabled) {
    CUpti_SassMetricsDisable_Params disable{};
    disable.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    disable.ctx = context_;
    ignore_cupti(cuptiSassMetricsDisable(&disable));
  }
  if (state_->configured) {
    CUpti_SassMetricsUnsetConfig_Params unset{};
    unset.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    unset.deviceIndex = static_cast<uint32_t>(config_.device_index);
    ignore_cupti(cuptiSassMetricsUnsetConfig(&unset));
  }
  if (state_->subscriber != nullptr) ignore_cupti(cuptiUnsubscribe(state_->subscriber));
  if (state_->profiler_initialised) {
    CUpti_Profiler_DeInitialize_Params deinit{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
                                              nullptr};
    ignore_cupti(cuptiProfilerDeInitialize(&deinit));
  }
}

void SassMetricsSession::arm() {
  PTXBENCH_CHECK(!state_->enabled, "SassMetricsSession armed twice");
  CUpti_SassMetricsEnable_Params enable{};
  enable.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
  enable.ctx = context_;
  enable.enableLazyPatching = 1;  // eager patching reported nothing on this driver
  PTXBENCH_CUPTI(cuptiSassMetricsEnable(&enable));
  state_->enabled = true;
  state_->armed.store(true);
}

void CUPTIAPI SassMetricsSession::on_callback(void* user, CUpti_CallbackDomain domain,
                                              CUpti_CallbackId id, const void* data) {
  auto* self = static_cast<SassMetricsSession*>(user);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
    if (module != nullptr) self->on_module_loaded(*module);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* api = static_cast<const CUpti_CallbackData*>(data);
  if (is_graph_launch(domain, id)) {
    if (api->callbackSite == CUPTI_API_ENTER && self->state_->armed.load()) {
      std::lock_guard lock(self->mutex_);
      ++self->state_->graph_launches;
    }
    return;
  }
  if (is_kernel_launch(domain, id))
    self->on_launch(launched_function_name(id, *api), api->callbackSite);
}

void SassMetricsSession::on_launch(const char* function_name, CUpti_ApiCallbackSite site) {
  if (site != CUPTI_API_ENTER || !state_->armed.load()) return;
  const std::string_view name(function_name);
  std::lock_guard lock(mutex_);
  auto& seen = state_->launched_functions;
  const auto found = std::find(seen.begin(), seen.end(), name);
  if (found == seen.end()) {
    seen.emplace_back(name);
    state_->launches.push_back(1);
  } else {
    ++state_->launches[static_cast<std::size_t>(found - seen.begin())];
  }
}

void SassMetricsSession::on_module_loaded(const CUpti_ModuleResourceData& module) {
  if (module.pCubin == nullptr || module.cubinSize == 0) return;
  // Only a copy here: no CUPTI call from inside the resource callback. The CRC is computed
  // when the modules are asked for.
  LoadedModule loaded;
  loaded.module_id = module.moduleId;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(module.pCubin);
  loaded.cubin.assign(bytes, bytes + module.cubinSize);
  std::lock_guard lock(mutex_);
  state_->modules.push_back(std::move(loaded));
}

std::vector<LoadedModule> SassMetricsSession::loaded_modules() const {
  std::vector<LoadedModule> modules;
  {
    std::lock_guard lock(mutex_);
    modules = state_->modules;
  }
  for (LoadedModule& module : modules) module.crc = cubin_crc(module.cubin);
  return modules;
}

SassMetricsResult SassMetricsSession::collect() {
  PTXBENCH_CHECK(!state_->collected, "SassMetricsSession collected twice");
  state_->collected = true;
  PTXBENCH_CHECK(state_->enabled, "SassMetricsSession collected before arm()");
  SassMetricsResult result;
  result.metric_names = config_.metric_names;
  PTXBENCH_CHECK(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize before the flush failed");

  CUpti_SassMetricsGetDataProperties_Params properties{};
  properties.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
  properties.ctx = context_;
  PTXBENCH_CUPTI(cuptiSassMetricsGetDataProperties(&properties));

  const std::size_t record_count = properties.numOfPatchedInstructionRecords;
  const std::size_t instances = properties.numOfInstances;
  if (record_count > 0 && instances > 0) {
    // Room for every metric's instances in each record, zeroed so that unused slots read as
    // metric id 0 and are ignored.
    const std::size_t slots = instances * metric_ids_.size();
    std::vector<CUpti_SassMetrics_InstanceValue> values(record_count * slots);
    std::vector<CUpti_SassMetrics_Data> data(record_count);
    for (std::size_t i = 0; i < record_count; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = values.data() + i * slots;
    }
    CUpti_SassMetricsFlushData_Params flush{};
    flush.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
    flush.ctx = context_;
    flush.numOfPatchedInstructionRecords = record_count;
    flush.numOfInstances = instances;
    flush.pMetricsData = data.data();
    PTXBENCH_CUPTI(cuptiSassMetricsFlushData(&flush));

    std::unordered_map<std::uint64_t, std::size_t> metric_index;
    for (std::size_t m = 0; m < metric_ids_.size(); ++m) metric_index[metric_ids_[m]] = m;
    result.records.reserve(record_count);
    for (std::size_t i = 0; i < record_count; ++i) {
      SassPcRecord record;
      record.cubin_crc = data[i].cubinCrc;
      record.function_name = data[i].functionName != nullptr ? data[i].functionName : "";
      record.pc_offset = data[i].pcOffset;
      record.counts.assign(metric_ids_.size(), 0);
      for (std::size_t s = 0; s < slots; ++s) {
        const auto found = metric_index.find(data[i].pInstanceValues[s].metricId);
        if (found != metric_index.end())
          record.counts[found->second] += data[i].pInstanceValues[s].value;
      }
      result.records.push_back(std::move(record));
    }
  }

  CUpti_SassMetricsDisable_Params disable{};
  disable.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
  disable.ctx = context_;
  PTXBENCH_CUPTI(cuptiSassMetricsDisable(&disable));
  state_->enabled = false;
  state_->armed.store(false);
  result.dropped_records = disable.numOfDroppedRecords;
  std::lock_guard lock(mutex_);
  result.graph_launches = state_->graph_launches;
  result.launched_functions = state_->launched_functions;
  if (!state_->launched_functions.empty()) {
    result.observed_function = state_->launched_functions.front();
    result.observed_launches = state_->launches.front();
  }
  return result;
}

}  // namespace ptxbench::eval::gpu
