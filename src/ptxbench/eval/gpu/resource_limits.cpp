#include "ptxbench/eval/gpu/resource_limits.hpp"

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace ptxbench::eval::gpu {

std::optional<std::uint64_t> data_segment_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmData:", 0) == 0) {
      return std::stoull(line.substr(7)) * 1024;  // the file gives kB
    }
  }
  return std::nullopt;
}

bool limit_host_memory(std::uint64_t budget_bytes) {
  auto current = data_segment_bytes();
  if (!current) return false;
  rlimit limit{*current + budget_bytes, *current + budget_bytes};
  return ::setrlimit(RLIMIT_DATA, &limit) == 0;
}

DeviceMemoryCap::DeviceMemoryCap(std::uint64_t budget_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  PTXBENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Allocation granularity and the driver's own needs: leave a little slack beyond the budget.
  constexpr std::uint64_t kSlack = 64u << 20;
  if (free_bytes > budget_bytes + kSlack) {
    auto reserved = DeviceBuffer::try_allocate(free_bytes - budget_bytes - kSlack);
    if (reserved) reserved_ = std::move(reserved.value());
  }
}

}  // namespace ptxbench::eval::gpu
