// setmaxnreg: moves registers between the warpgroups of a CTA (sm_90a). Takes effect only when
// the kernel has a register cap at entry (__launch_bounds__(threads, 1)); every warp of the
// warpgroup executes the same instruction.
//
// Single source of truth: solutions embed the block between the markers verbatim and
// tests/solutions checks every copy against this file.
#pragma once
#include <cstdint>

// ptx-begin: setmaxnreg
namespace ptx {

// setmaxnreg.inc.sync.aligned.u32 — warpgroup; grows each thread's register budget to kRegs
// (blocks until the pool has them, e.g. after another warpgroup's dec).
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// setmaxnreg.dec.sync.aligned.u32 — warpgroup; shrinks each thread's budget to kRegs and
// returns the rest to the CTA's pool.
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

}  // namespace ptx
// ptx-end: setmaxnreg
