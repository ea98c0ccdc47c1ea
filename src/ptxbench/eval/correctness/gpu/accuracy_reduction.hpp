// The streaming pass of the "as accurate as the library" rule on the GPU: one read of the
// candidate's output, the library's output (both in the task's dtype) and the fp32
// high-precision reference, reduced per block and summed on the host in block order (the same
// inputs give the same totals). Waits for the stream.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ptxbench/eval/correctness/accuracy_totals.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval::correctness::gpu {

// Floating output types only (bfloat16, float16, float32); others are a bug of the caller.
bool accuracy_reduction_supports(task::DType dtype);

AccuracyTotals reduce_accuracy(const void* candidate, const void* library, const float* reference,
                               task::DType dtype, std::int64_t elements,
                               const ElementBudget& budget, cudaStream_t stream);

}  // namespace ptxbench::eval::correctness::gpu
