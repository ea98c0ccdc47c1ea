// Static SASS: the disassembly of a candidate's cubin, per kernel and per instruction, and the
// instruction families ptxbench tracks (Hopper GMMA/TMA/SYNCS/..., Blackwell UTCMMA/TMEM/...).
// Needs no GPU.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::sass {

struct SassInstruction {
  std::uint32_t offset = 0;  // byte offset within the kernel's code, as nvdisasm/cuobjdump print
                             // it and as CUPTI's pcOffset reports it
  std::string opcode;        // with modifiers: "HGMMA.64x128x16.F32.BF16"
  std::string family;        // "GMMA", "TMA", ... or empty when untracked
};

struct SassKernel {
  std::string name;  // mangled function name
  std::vector<SassInstruction> instructions;
  std::map<std::string, std::int64_t> family_counts;  // static count per tracked family
};

struct SassModule {
  std::vector<SassKernel> kernels;
  std::string tool_version;     // the disassembler's version line
  std::filesystem::path cubin;  // the cubin that was disassembled; empty when read from text

  const SassKernel* find_kernel(std::string_view name) const;
  // Static count of a family summed over all kernels.
  std::int64_t family_count(std::string_view family) const;
};

// Tracked family of an opcode for an arch ("" when untracked). Families:
//   Hopper:    GMMA (HGMMA/IGMMA/BGMMA), QGMMA (FP8 operands), TMA
//   (UTMALDG/UTMASTG/UTMAREDG/UTMAPF/UBLKCP/UBLKRED),
//              SYNCS (mbarrier), WARPGROUP (WARPGROUP.ARRIVE/DEPBAR), SETMAXNREG (USETMAXREG),
//              STSM (stmatrix)
//   Blackwell: UTCMMA (UTC*MMA but UTCQMMA), UTCQMMA (tcgen05.mma kind::f8f6f4),
//              UTCBAR (tcgen05.commit), TMEM (LDTM/STTM/UTMEM*/tcgen05.alloc), TMA, SYNCS
std::string family_of(std::string_view opcode, arch::Arch arch);
// The families family_of can return for an arch, in the order above.
const std::vector<std::string>& tracked_families(arch::Arch arch);

// Tensor-core families whose executed FLOPs are counted against the task's FLOPs.
bool is_tensor_core_family(std::string_view family);
// FLOPs of one execution of a tensor-core instruction, from its shape modifier
// (HGMMA.64x128x16 -> 2*64*128*16: the whole warpgroup MMA); nullopt when the shape cannot be read.
// Blackwell's UTC*MMA opcodes carry no shape (it lives in the instruction descriptor register), so
// they give nullopt. Caution for executed counts: every warp of the warpgroup issues the HGMMA,
// so a per-warp counter (smsp__sass_inst_executed) may see one warpgroup MMA four times; check
// the counter's convention on a GPU before multiplying it by this value.
std::optional<double> flops_per_execution(std::string_view opcode);

// Parses nvdisasm/cuobjdump -sass text into kernels and instructions.
util::Expected<SassModule> parse_disassembly(std::string_view text, arch::Arch arch);

// Extracts the cubin for the arch from a shared object (or takes a cubin as is) and
// disassembles it with the cuobjdump/nvdisasm of the PyPI wheels or the CUDA toolkit.
util::Expected<SassModule> disassemble(util::ProcessRunner& runner,
                                       const std::filesystem::path& binary, arch::Arch arch,
                                       const std::filesystem::path& work_dir);

}  // namespace ptxbench::sass
