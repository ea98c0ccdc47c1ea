#include "ptxbench/arch/arch.hpp"

#include <fmt/format.h>
#include <array>

namespace ptxbench::arch {
namespace {
constexpr std::array<ArchInfo, 2> kArchs{{
    {Arch::kHopper, "hopper", "sm_90a", "compute_90a", 9, 0, "H100, H200"},
    {Arch::kBlackwell, "blackwell", "sm_100a", "compute_100a", 10, 0, "B200, GB200"},
}};
}  // namespace

const ArchInfo& info(Arch arch) {
  return kArchs[static_cast<std::size_t>(arch)];
}
std::string_view to_string(Arch arch) {
  return info(arch).name;
}

std::optional<Arch> parse(std::string_view name) {
  for (const auto& a : kArchs) {
    if (a.name == name || a.sm == name) return a.arch;
  }
  return std::nullopt;
}

const std::vector<Arch>& all() {
  static const std::vector<Arch> archs{Arch::kHopper, Arch::kBlackwell};
  return archs;
}

std::string gencode_flag(Arch arch) {
  const auto& a = info(arch);
  return fmt::format("-gencode=arch={},code={}", a.compute, a.sm);
}

}  // namespace ptxbench::arch
