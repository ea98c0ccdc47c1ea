// Which CUPTI wiring lets SASS metrics report records on this driver: the raw call sequence of
// SassMetricsSession with each ingredient switchable, so one device run can compare them.
//
//   sass_metrics_matrix subscribe=<none|empty|resource|launch|driver> order=<subscribe-first|
//     config-first> crc_in_callback=<0|1> metrics=<1|4> enable=<now|callback> context=<primary|
//     created> warmup=<0|1> lazy=<0|1> init_first=<0|1>
// Launches ffma then wgmma (twice each); with enable=callback the window opens at the first
// wgmma launch, with enable=now before the first ffma launch.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hopper_tile.cuh"

extern "C" __global__ void __launch_bounds__(128)
    matrix_wgmma(const __grid_constant__ CUtensorMap map_a,
                 const __grid_constant__ CUtensorMap map_b, float* c, int n, int k) {
  __shared__ hopper_tile::SharedTile s;
  hopper_tile::tile_tma_wgmma(s, &map_a, &map_b, c, n, k);
}

extern "C" __global__ void matrix_ffma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c,
                                       int m, int n, int k) {
  hopper_tile::element_ffma(a, b, c, m, n, k);
}

extern "C" __global__ void matrix_warmup(float* x) {
  x[threadIdx.x] = 1.f;
}

namespace {

std::map<std::string, std::string> options;
CUcontext context = nullptr;
bool enabled = false;
bool crc_in_callback = false;
bool enable_from_callback = false;
int modules_seen = 0;

#define CUPTI_OK(call)                                    \
  do {                                                    \
    CUptiResult r_ = (call);                              \
    if (r_ != CUPTI_SUCCESS) {                            \
      const char* s_ = nullptr;                           \
      cuptiGetResultString(r_, &s_);                      \
      std::printf("FAIL %s: %s\n", #call, s_ ? s_ : "?"); \
      std::exit(3);                                       \
    }                                                     \
  } while (0)

void enable_now() {
  if (enabled) return;
  enabled = true;
  CUpti_SassMetricsEnable_Params p{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  p.ctx = context;
  p.enableLazyPatching = options["lazy"] != "0";
  CUPTI_OK(cuptiSassMetricsEnable(&p));
}

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    ++modules_seen;
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
    if (crc_in_callback && module && module->pCubin) {
      CUpti_GetCubinCrcParams p{};
      p.size = CUpti_GetCubinCrcParamsSize;
      p.cubin = module->pCubin;
      p.cubinSize = module->cubinSize;
      cuptiGetCubinCrc(&p);
    }
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
    const auto* api = static_cast<const CUpti_CallbackData*>(data);
    if (enable_from_callback && api->callbackSite == CUPTI_API_ENTER && api->symbolName &&
        std::strcmp(api->symbolName, "matrix_wgmma") == 0) {
      enable_now();
    }
  }
}

CUpti_SubscriberHandle subscribe() {
  const std::string mode = options["subscribe"];
  CUpti_SubscriberHandle subscriber = nullptr;
  if (mode == "none") return subscriber;
  CUPTI_OK(cuptiSubscribe(&subscriber, callback, nullptr));
  if (mode == "resource" || mode == "launch" || mode == "driver") {
    CUPTI_OK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                 CUPTI_CBID_RESOURCE_MODULE_LOADED));
  }
  if (mode == "launch") {
    CUPTI_OK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                 CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  }
  if (mode == "driver") CUPTI_OK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  return subscriber;
}

void initialise() {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUPTI_OK(cuptiProfilerInitialize(&init));
}

void configure() {
  if (options["init_first"] != "1") initialise();
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CUPTI_OK(cuptiDeviceGetChipName(&chip));
  std::vector<std::string> names = {"smsp__sass_inst_executed"};
  if (options["metrics"] == "4") {
    names.push_back("smsp__sass_thread_inst_executed_pred_on");
    names.push_back("smsp__sass_inst_executed_op_shared_gmma");
    names.push_back("smsp__sass_inst_executed_op_tma");
  }
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const auto& name : names) {
    CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    p.pChipName = chip.pChipName;
    p.pMetricName = name.c_str();
    CUPTI_OK(cuptiSassMetricsGetProperties(&p));
    configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = 0;
  CUPTI_OK(cuptiSassMetricsSetConfig(&set));
}

CUtensorMap make_map(const __nv_bfloat16* base, int rows, int cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {64, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
                         const_cast<__nv_bfloat16*>(base), dims, strides, box, element_strides,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return map;
}

}  // namespace

int main(int argc, char** argv) {
  options = {{"subscribe", "driver"},  {"order", "subscribe-first"},
             {"crc_in_callback", "1"}, {"metrics", "4"},
             {"enable", "now"},        {"context", "primary"},
             {"warmup", "0"},          {"lazy", "1"}};
  for (int i = 1; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (eq) options[std::string(argv[i], static_cast<size_t>(eq - argv[i]))] = eq + 1;
  }
  crc_in_callback = options["crc_in_callback"] == "1";
  enable_from_callback = options["enable"] == "callback";
  for (const auto& [key, value] : options) std::printf("%s=%s ", key.c_str(), value.c_str());
  std::printf("\n");

  cuInit(0);
  if (options["init_first"] == "1") initialise();  // as CUPTI's own sample: before any context
  if (options["context"] == "created") {
    CUdevice device;
    cuDeviceGet(&device, 0);
    cuCtxCreate(&context, nullptr, 0, device);
  } else {
    cudaFree(nullptr);
    cuCtxGetCurrent(&context);
  }
  if (options["warmup"] == "1") {  // a module loaded and a kernel run before the config
    float* x;
    cudaMalloc(&x, 128 * sizeof(float));
    matrix_warmup<<<1, 32>>>(x);
    cudaDeviceSynchronize();
  }
  CUpti_SubscriberHandle subscriber = nullptr;
  if (options["order"] == "subscribe-first") subscriber = subscribe();
  configure();
  if (options["order"] != "subscribe-first") subscriber = subscribe();

  const int m = 128, n = 128, k = 256;
  std::vector<__nv_bfloat16> host(static_cast<size_t>(m) * k, __float2bfloat16(0.5f));
  __nv_bfloat16 *a, *b;
  float* c;
  cudaMalloc(&a, host.size() * 2);
  cudaMalloc(&b, host.size() * 2);
  cudaMalloc(&c, m * n * sizeof(float));
  cudaMemcpy(a, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  const CUtensorMap map_a = make_map(a, m, k), map_b = make_map(b, n, k);
  cudaDeviceSynchronize();

  if (!enable_from_callback) enable_now();
  for (int i = 0; i < 2; ++i) {
    matrix_ffma<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
    matrix_wgmma<<<dim3(n / 64, m / 64), 128>>>(map_a, map_b, c, n, k);
  }
  std::printf("sync %s\n", cudaGetErrorString(cudaDeviceSynchronize()));

  CUpti_SassMetricsGetDataProperties_Params props{
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = context;
  CUPTI_OK(cuptiSassMetricsGetDataProperties(&props));
  std::printf("enabled=%d modules_seen=%d records=%zu instances=%zu\n", static_cast<int>(enabled),
              modules_seen, props.numOfPatchedInstructionRecords, props.numOfInstances);
  if (props.numOfPatchedInstructionRecords > 0) {
    const size_t slots = props.numOfInstances * 4;
    std::vector<CUpti_SassMetrics_InstanceValue> values(props.numOfPatchedInstructionRecords *
                                                        slots);
    std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
    for (size_t i = 0; i < data.size(); ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = values.data() + i * slots;
    }
    CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    flush.ctx = context;
    flush.numOfPatchedInstructionRecords = data.size();
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = data.data();
    CUPTI_OK(cuptiSassMetricsFlushData(&flush));
    for (size_t i = 0; i < data.size() && i < 400; ++i) {
      std::printf("rec crc=%u fn=%s pc=0x%x", data[i].cubinCrc,
                  data[i].functionName ? data[i].functionName : "?", data[i].pcOffset);
      for (size_t s = 0; s < slots; ++s) {
        if (data[i].pInstanceValues[s].metricId != 0) {
          std::printf(" [%llx]=%llu",
                      static_cast<unsigned long long>(data[i].pInstanceValues[s].metricId),
                      static_cast<unsigned long long>(data[i].pInstanceValues[s].value));
        }
      }
      std::printf("\n");
    }
  }
  CUpti_SassMetricsDisable_Params disable{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  disable.ctx = context;
  CUPTI_OK(cuptiSassMetricsDisable(&disable));
  std::printf("dropped=%zu\n", disable.numOfDroppedRecords);
  if (subscriber) cuptiUnsubscribe(subscriber);
  return 0;
}
