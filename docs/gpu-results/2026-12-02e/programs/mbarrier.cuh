// The mbarrier wait the tool-facts programs share: spin on try_wait.parity until the phase of
// that parity has completed.
#pragma once
#include <cstdint>

__device__ inline void wait_parity(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  }
}
