// Choosing among a library's alternatives (cuBLASLt algorithms, cuDNN plans) by timing them.
// The alternatives are timed interleaved, round by round, each call after an L2 flush, so clock
// and temperature drift over the search affect all of them alike; the library's own first choice
// is kept unless another is faster by more than a margin (a noisy win is not worth a worse pick
// under sustained load).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace ptxbench::eval::gpu {

struct FastestChoice {
  std::size_t index = 0;
  std::vector<double> median_ms;  // per alternative
};

// `run(i, stream)` enqueues alternative i once. Each is warmed up once, then timed `rounds` times.
FastestChoice choose_fastest(std::size_t count,
                             const std::function<void(std::size_t, cudaStream_t)>& run, int rounds,
                             double margin, cudaStream_t stream);

}  // namespace ptxbench::eval::gpu
