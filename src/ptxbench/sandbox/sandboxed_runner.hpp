// A ProcessRunner decorator that runs every process inside the sandbox of its Policy (bwrap with
// namespaces, the seccomp filter, another host user, rlimits, an allow-listed environment), and
// fails closed in strict mode: a process that cannot be sandboxed fully is not started, and its
// result says why. What the machine supports is probed once, on first use.
#pragma once
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ptxbench/sandbox/layers.hpp"
#include "ptxbench/sandbox/policy.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::sandbox {

class SandboxedProcessRunner final : public util::ProcessRunner {
 public:
  SandboxedProcessRunner(std::shared_ptr<util::ProcessRunner> inner, Policy policy);

  util::ProcessResult run(const util::ProcessSpec& spec) override;
  util::Expected<std::unique_ptr<util::LiveProcess>> start(const util::ProcessSpec& spec) override;

  // What this machine supports (probes on first call).
  const Support& support();
  // "full", "partial: ...", "off": the value of the evaluation record's "sandbox" field.
  std::string description();
  // Adds a path that every later process sees read-only (an evaluator's artefact folder).
  void show_read_only(const std::filesystem::path& path);

 private:
  struct Wrapped;
  Wrapped wrap(const util::ProcessSpec& spec);
  Wrapped wrap_sandboxed(const util::ProcessSpec& spec, const Layers& layers);
  util::ProcessResult run_with(const util::ProcessSpec& spec, const Layers& layers);  // probes
  Support probe();

  std::shared_ptr<util::ProcessRunner> inner_;
  std::mutex policy_mutex_;  // guards policy_.read_only_paths
  Policy policy_;
  std::once_flag probed_;
  Support support_;
};

// Lets the sandbox's unprivileged user (root runs it as uid 65534) enter and read `folder`,
// e.g. an artefact folder made by mkdtemp (mode 0700); the files in it keep their modes.
void open_to_sandbox_user(const std::filesystem::path& folder);

// The error text of a process that strict mode refused to start.
inline constexpr std::string_view kNotSandboxedError = "sandbox could not be set up";

}  // namespace ptxbench::sandbox
