#include "ptxbench/eval/timing/gpu_neighbours.hpp"

#include <dlfcn.h>
#include <sys/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ptxbench::eval {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlErrorNotFound = 6;
constexpr int kNvmlErrorInsufficientSize = 7;

// nvmlProcessUtilizationSample_t (nvml.h), declared here: the header is the driver's, not the
// toolkit's.
struct UtilizationSample {
  unsigned int pid;
  unsigned long long time_stamp;  // microseconds, the CPU's wall clock
  unsigned int sm_util;
  unsigned int mem_util;
  unsigned int enc_util;
  unsigned int dec_util;
};

using Device = struct nvmlDevice_st*;

std::string process_name(pid_t pid) {
  std::ifstream comm(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(comm, name);
  return name.empty() ? "?" : name;
}

class NvmlNeighbours final : public GpuNeighbours {
 public:
  NvmlNeighbours(void* library, Device device) : library_(library), device_(device) {
    utilization_ = reinterpret_cast<decltype(utilization_)>(
        ::dlsym(library_, "nvmlDeviceGetProcessUtilization"));
  }
  ~NvmlNeighbours() override {
    if (auto shutdown = reinterpret_cast<int (*)()>(::dlsym(library_, "nvmlShutdown"))) shutdown();
    ::dlclose(library_);
  }

  std::uint64_t now() const override {
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1000000ull +
           static_cast<std::uint64_t>(tv.tv_usec);
  }

  util::Expected<std::vector<std::string>> others_since(std::uint64_t since,
                                                        pid_t own) const override {
    if (utilization_ == nullptr)
      return util::make_error("NVML has no nvmlDeviceGetProcessUtilization");
    unsigned int count = 0;
    int status = utilization_(device_, nullptr, &count, since);
    if (status == kNvmlErrorNotFound) return std::vector<std::string>{};  // no process sampled
    if (status != kNvmlSuccess && status != kNvmlErrorInsufficientSize)
      return util::make_error(fmt::format("nvmlDeviceGetProcessUtilization: error {}", status));
    std::vector<UtilizationSample> samples(count + 8);
    count = static_cast<unsigned int>(samples.size());
    status = utilization_(device_, samples.data(), &count, since);
    if (status == kNvmlErrorNotFound) return std::vector<std::string>{};
    if (status != kNvmlSuccess)
      return util::make_error(fmt::format("nvmlDeviceGetProcessUtilization: error {}", status));
    const auto tree = process_tree(own);
    const std::set<pid_t> mine(tree.begin(), tree.end());
    std::map<pid_t, unsigned int> busiest;
    for (unsigned int i = 0; i < count; ++i) {
      const auto& s = samples[i];
      const auto pid = static_cast<pid_t>(s.pid);
      if (s.time_stamp < since || s.sm_util == 0 || mine.contains(pid)) continue;
      busiest[pid] = std::max(busiest[pid], s.sm_util);
    }
    std::vector<std::string> others;
    for (const auto& [pid, util] : busiest)
      others.push_back(fmt::format("pid {} ({}): {}% SM", pid, process_name(pid), util));
    return others;
  }

 private:
  void* library_;
  Device device_;
  int (*utilization_)(Device, UtilizationSample*, unsigned int*, unsigned long long) = nullptr;
};

// The device as NVML should find it: the given name, else the first CUDA_VISIBLE_DEVICES entry,
// else index 0.
std::string device_name(const std::string& device) {
  if (!device.empty()) return device;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string list = visible != nullptr ? visible : "";
  const std::string first = list.substr(0, list.find(','));
  return first.empty() ? std::string("0") : first;
}

}  // namespace

std::vector<pid_t> process_tree(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    children.emplace(parent, static_cast<pid_t>(std::stol(name)));
  }
  std::vector<pid_t> tree{root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  return tree;
}

util::Expected<std::shared_ptr<GpuNeighbours>> open_gpu_neighbours(const std::string& device) {
  void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return util::make_error("no NVML (libnvidia-ml.so.1)");
  auto init = reinterpret_cast<int (*)()>(::dlsym(library, "nvmlInit_v2"));
  if (init == nullptr || init() != kNvmlSuccess) {
    ::dlclose(library);
    return util::make_error("NVML did not initialise");
  }
  const std::string name = device_name(device);
  Device handle = nullptr;
  int status = 0;
  if (name.starts_with("GPU-") || name.starts_with("MIG-")) {
    auto by_uuid = reinterpret_cast<int (*)(const char*, Device*)>(
        ::dlsym(library, "nvmlDeviceGetHandleByUUID"));
    status = by_uuid != nullptr ? by_uuid(name.c_str(), &handle) : -1;
  } else {
    auto by_index = reinterpret_cast<int (*)(unsigned int, Device*)>(
        ::dlsym(library, "nvmlDeviceGetHandleByIndex_v2"));
    status = by_index != nullptr && std::all_of(name.begin(), name.end(), ::isdigit)
                 ? by_index(static_cast<unsigned int>(std::stoul(name)), &handle)
                 : -1;
  }
  if (status != kNvmlSuccess || handle == nullptr) {
    ::dlclose(library);
    return util::make_error(fmt::format("NVML has no GPU {}", name));
  }
  return std::shared_ptr<GpuNeighbours>(std::make_shared<NvmlNeighbours>(library, handle));
}

}  // namespace ptxbench::eval
