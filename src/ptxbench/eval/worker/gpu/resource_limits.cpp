#include "ptxbench/eval/worker/gpu/resource_limits.hpp"

namespace ptxbench::eval::gpu {

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
