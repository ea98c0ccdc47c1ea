// The bwrap command line that runs one ProcessSpec inside the sandbox: a pure function of the
// policy, the layers to apply and the spec, so that it can be read and tested without running.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/sandbox/layers.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::sandbox {

using Environment = std::vector<std::pair<std::string, std::string>>;

struct BwrapSetup {
  std::filesystem::path bwrap;
  // Inside the sandbox, `setpriv` leaves root for policy.unprivileged_uid (root runs bwrap);
  // nullopt: bwrap runs as the caller's own user in a user namespace.
  std::optional<std::filesystem::path> setpriv;
  std::optional<int> seccomp_fd;
};

// The environment the sandboxed process gets: the allow-listed variables of `parent`, the
// spec's own (set by ptxbench, trusted), and PATH, HOME=/tmp, TMPDIR=/tmp.
Environment sandbox_environment(const Policy& policy, const util::ProcessSpec& spec,
                                const Environment& parent);
Environment current_environment();

// The paths to make visible read-only for `spec`: the policy's, the spec's, the executable and
// every absolute path named in argv that exists.
std::vector<std::filesystem::path> read_only_paths(const Policy& policy,
                                                   const util::ProcessSpec& spec);

std::vector<std::string> bwrap_argv(const BwrapSetup& setup, const Policy& policy,
                                    const util::ProcessSpec& spec, const Environment& environment);

// The rlimits of the policy (core dumps off, processes, open files, file size, memory).
std::vector<util::ResourceLimit> resource_limits(const Policy& policy);

}  // namespace ptxbench::sandbox
