// The valid KV lengths of a decode task's batch, made from KV_LEN's draw (uniform integers in
// [-100, 100], tensor_kernels.hpp): sequence 0 is full (length S, so the capacity is always
// exercised) and sequence b > 0 gets 1 + (drawn + 100)·(S − 1) / 200, spread over [1, S], so
// lengths differ within a batch, change every trial and are rarely a multiple of a tile. The
// trusted side applies it (the decode baseline's derive_inputs) before the candidate is called.
#pragma once
#include <algorithm>
#include <cstdint>

namespace ptxbench::eval::correctness {

constexpr std::int32_t kv_length_from_draw(std::int32_t drawn, std::int64_t sequence,
                                           std::int64_t capacity) {
  if (capacity <= 1) return 1;
  if (sequence == 0) return static_cast<std::int32_t>(capacity);
  const std::int64_t unit = std::clamp<std::int64_t>(drawn, -100, 100) + 100;  // [0, 200]
  return static_cast<std::int32_t>(1 + unit * (capacity - 1) / 200);
}

}  // namespace ptxbench::eval::correctness
