// The GPU kernels that handle tensors on the trusted side of a trial: counter-based random
// fill (normal, uniform, spiky), NaN poisoning, an order-sensitive hash, and the element-rule
// comparison of a candidate's output against the reference. Host entry points, stream-ordered.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ptxbench/eval/correctness/output_comparison.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval::gpu {

// Element `i` of a tensor filled with (distribution, seed) depends only on (seed, i):
//   normal  N(0, 1);  uniform U(-1, 1);  spiky N(0, 1) + 100·N(0, 1)·Bernoulli(0.001);
//   large 1024·N(0, 1);  equal_scores N(0, 1), one row repeated along the second-to-last
//   axis;  near_ties k/8 with k uniform in [-16, 16].
// Integer tensors get uniform integers in [-100, 100].
// `rows` and `cols`: the tensor's last two extents (equal_scores repeats one row of `cols`
// values `rows` times; 0: the tensor is one row).
void fill_random(void* data, task::DType dtype, std::int64_t elements,
                 task::Distribution distribution, std::uint64_t seed, cudaStream_t stream,
                 std::int64_t rows = 0, std::int64_t cols = 0);

// Floating types: quiet NaN in every element; integers: their maximum value.
void fill_poison(void* data, task::DType dtype, std::int64_t elements, cudaStream_t stream);

// Order-sensitive 64-bit hash of `bytes` bytes (waits for the stream).
std::uint64_t hash_bytes(const void* data, std::size_t bytes, cudaStream_t stream);

// Applies the element rule (correctness/element_rule.hpp) to every element (waits for the stream).
worker::ComparisonTotals compare_tensors(const void* candidate, const void* reference,
                                         task::DType dtype, std::int64_t elements, double atol,
                                         double rtol, cudaStream_t stream);

}  // namespace ptxbench::eval::gpu
