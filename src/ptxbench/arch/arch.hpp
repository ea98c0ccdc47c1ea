// The target architectures: what a candidate is compiled for and which GPUs can run it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::arch {

enum class Arch { kHopper, kBlackwell };

struct ArchInfo {
  Arch arch;
  std::string_view name;         // "hopper": the name in task files, CLI and results
  std::string_view sm;           // "sm_90a": the cubin's target
  std::string_view compute;      // "compute_90a"
  int compute_capability_major;  // a GPU of this major version runs the cubin
  int compute_capability_minor;
  std::string_view gpus;  // for humans: "H100, H200"
};

const ArchInfo& info(Arch arch);
std::string_view to_string(Arch arch);
std::optional<Arch> parse(std::string_view name);
const std::vector<Arch>& all();

// "-gencode=arch=compute_90a,code=sm_90a"
std::string gencode_flag(Arch arch);

}  // namespace ptxbench::arch
