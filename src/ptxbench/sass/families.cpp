// Which SASS opcodes belong to the instruction families ptxbench tracks. Spellings were read
// from nvdisasm 13.x output of nvcc 13.0 cubins: Hopper HGMMA.64x128x16.F32.BF16,
// QGMMA.64x128x32.F32.E4M3.E4M3, UTMALDG.2D, UBLKCP.S.G, UTMACMDFLUSH, SYNCS.EXCH.64 /
// ARRIVE.TRANS64 / PHASECHK.TRANS64.TRYWAIT, WARPGROUP.ARRIVE / DEPBAR.LE, USETMAXREG,
// STSM.16.M88; Blackwell UTCHMMA (tcgen05.mma kind::f16), UTCQMMA (kind::f8f6f4), UTCBAR
// (tcgen05.commit), LDTM.x32 / STTM (tcgen05.ld / st), UTCCP (tcgen05.cp), UTCSHIFT
// (tcgen05.shift), UTCATOMSWS.FIND_AND_SET / .AND (tcgen05.alloc / dealloc).
#include <algorithm>
#include <array>
#include <regex>

#include "ptxbench/sass/sass.hpp"

namespace ptxbench::sass {
namespace {

std::string_view base_of(std::string_view opcode) {
  return opcode.substr(0, opcode.find('.'));
}

bool starts_with_any(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [text](std::string_view p) { return text.starts_with(p); });
}

// Families whose opcodes are spelled the same on Hopper and Blackwell.
std::string common_family(std::string_view base) {
  if (starts_with_any(base, {"UTMA", "UBLK"})) return "TMA";
  if (base == "SYNCS") return "SYNCS";
  return "";
}

std::string hopper_family(std::string_view base) {
  // FP8 operands (QGMMA.64x128x32.F32.E4M3.E4M3) are a family of their own, so that a task
  // can demand them: a kernel that converts FP8 to bf16 first issues HGMMA instead.
  if (base == "QGMMA") return "QGMMA";
  if (base == "HGMMA" || base == "IGMMA" || base == "BGMMA") return "GMMA";
  if (base == "WARPGROUP") return "WARPGROUP";
  if (base == "USETMAXREG") return "SETMAXNREG";
  if (base == "STSM") return "STSM";
  return common_family(base);
}

std::string blackwell_family(std::string_view base) {
  if (base == "UTCQMMA") return "UTCQMMA";  // tcgen05.mma kind::f8f6f4
  if (base.starts_with("UTC") && base.find("MMA") != std::string_view::npos) return "UTCMMA";
  if (base == "UTCBAR") return "UTCBAR";
  if (base == "LDTM" || base == "STTM" || base == "UTCCP" || base == "UTCSHIFT" ||
      base.starts_with("UTCATOMSWS"))
    return "TMEM";
  return common_family(base);
}

}  // namespace

std::string family_of(std::string_view opcode, arch::Arch arch) {
  const auto base = base_of(opcode);
  return arch == arch::Arch::kHopper ? hopper_family(base) : blackwell_family(base);
}

const std::vector<std::string>& tracked_families(arch::Arch arch) {
  static const std::vector<std::string> hopper{"GMMA",      "QGMMA",      "TMA", "SYNCS",
                                               "WARPGROUP", "SETMAXNREG", "STSM"};
  static const std::vector<std::string> blackwell{"UTCMMA", "UTCQMMA", "UTCBAR",
                                                  "TMEM",   "TMA",     "SYNCS"};
  return arch == arch::Arch::kHopper ? hopper : blackwell;
}

bool is_tensor_core_family(std::string_view family) {
  return family == "GMMA" || family == "QGMMA" || family == "UTCMMA" || family == "UTCQMMA";
}

std::optional<double> flops_per_execution(std::string_view opcode) {
  static const std::regex shape(R"(^(\d+)x(\d+)x(\d+)$)");
  const auto base = base_of(opcode);
  if (!base.ends_with("GMMA")) return std::nullopt;
  std::size_t start = base.size();
  while (start < opcode.size()) {
    const std::size_t end = std::min(opcode.find('.', start + 1), opcode.size());
    const std::string modifier(opcode.substr(start + 1, end - start - 1));
    std::smatch match;
    if (std::regex_match(modifier, match, shape)) {
      return 2.0 * std::stod(match[1]) * std::stod(match[2]) * std::stod(match[3]);
    }
    start = end;
  }
  return std::nullopt;
}

const SassKernel* SassModule::find_kernel(std::string_view name) const {
  auto it = std::find_if(kernels.begin(), kernels.end(),
                         [name](const SassKernel& k) { return k.name == name; });
  return it == kernels.end() ? nullptr : &*it;
}

std::int64_t SassModule::family_count(std::string_view family) const {
  std::int64_t total = 0;
  for (const auto& kernel : kernels) {
    auto it = kernel.family_counts.find(std::string(family));
    if (it != kernel.family_counts.end()) total += it->second;
  }
  return total;
}

}  // namespace ptxbench::sass
