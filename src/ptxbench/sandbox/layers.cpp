#include "ptxbench/sandbox/layers.hpp"

namespace ptxbench::sandbox {

bool complete(const Layers& layers) {
  return layers.namespaces && layers.seccomp && layers.other_user && layers.limits;
}

std::string describe(Mode mode, const Support& support) {
  if (mode == Mode::kOff) return "off";
  if (complete(support.usable)) return "full";
  std::string text = "partial:";
  for (std::size_t i = 0; i < support.why.size(); ++i)
    text += (i == 0 ? " " : "; ") + support.why[i];
  if (support.why.empty()) text += " unknown layer missing";
  return text;
}

}  // namespace ptxbench::sandbox
