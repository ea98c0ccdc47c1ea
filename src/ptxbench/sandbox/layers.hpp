// The layers of the sandbox, what this machine supports of them, and the one-line description
// that every evaluation record carries ("full", "partial: <what is missing>", "off").
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptxbench/sandbox/policy.hpp"

namespace ptxbench::sandbox {

// Which layers a sandboxed process gets.
struct Layers {
  bool namespaces = false;  // bwrap: own PID, network, IPC, UTS, mount (+ user) namespaces
  bool seccomp = false;     // the seccomp filter
  bool other_user = false;  // runs as a host user other than root
  bool limits = true;       // rlimits and the environment allow-list (need nothing)
};

// What was found on this machine, once.
struct Support {
  std::optional<std::filesystem::path> bwrap;    // PTXBENCH_BWRAP, else PATH
  std::optional<std::filesystem::path> setpriv;  // to leave root inside the sandbox
  bool running_as_root = false;
  Layers usable;                 // the layers that were tried and work
  std::vector<std::string> why;  // one reason per missing layer
};

// "full" when `layers` has every layer, "off" in off mode, else "partial: " + the reasons.
std::string describe(Mode mode, const Support& support);
bool complete(const Layers& layers);

}  // namespace ptxbench::sandbox
