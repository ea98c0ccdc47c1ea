// Running other programs (nvcc, cuobjdump, compute-sanitizer, the GPU worker, a `command`
// model provider). Always from an argv vector, never a shell string; the child gets its own
// process group (killed whole on deadline), stdin from the given text or /dev/null, and its
// output captured up to a byte cap. The group's leader is a small keeper process that waits
// for the program and exits as it did; it kills the whole group when ptxbench dies (even by
// SIGKILL), so no compiler keeps running after a killed run.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

// One resource limit set in the child before exec (setrlimit; soft = hard = value).
struct ResourceLimit {
  int resource = 0;  // RLIMIT_*
  std::uint64_t value = 0;
};

struct ProcessSpec {
  std::vector<std::string> argv;          // argv[0] is looked up in PATH if it has no '/'
  std::optional<std::string> stdin_text;  // nullopt: stdin is /dev/null
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::size_t output_cap_bytes = 4u << 20;  // per stream; the rest is counted, not kept
  std::vector<std::pair<std::string, std::string>> env;    // added to / replacing the parent's
  std::filesystem::path working_dir;                       // empty: the parent's
  std::optional<std::uint64_t> address_space_limit_bytes;  // RLIMIT_AS for the child
  std::vector<ResourceLimit> limits;                       // further rlimits for the child
  std::vector<int> inherited_fds;  // open descriptors the child keeps (at the same numbers)
  // What the child needs besides the system: a plain runner ignores these, a sandboxing runner
  // (sandbox/) makes only these visible, read-only or writable.
  std::vector<std::filesystem::path> read_paths;
  std::vector<std::filesystem::path> write_paths;
  // The program talks to a child of its own over TCP on loopback (ncu and the process it
  // profiles): a sandboxing runner lets it open IP sockets, in a network namespace that holds
  // nothing but its own loopback.
  bool loopback_ip_sockets = false;
  // Set to true by the caller when the process is no longer wanted: its group is killed within a
  // second, as at the deadline, and the result says `stopped`.
  std::shared_ptr<const std::atomic<bool>> stop;
  // While this reads true, the deadline waits: the process may run past `timeout` for as long as
  // the caller's other work lasts (a check beside another costs no time while that one runs).
  std::shared_ptr<const std::atomic<bool>> hold_deadline;
};

struct ProcessResult {
  bool started = false;  // false: could not be spawned (see spawn_error)
  std::string spawn_error;
  int exit_code = -1;      // valid when exited normally
  int term_signal = 0;     // non-zero when killed by a signal
  bool timed_out = false;  // killed by us at the deadline
  bool stopped = false;    // killed by us because spec.stop was set
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::string stdout_text;
  std::string stderr_text;
  std::chrono::milliseconds wall{0};

  bool succeeded() const {
    return started && !timed_out && !stopped && term_signal == 0 && exit_code == 0;
  }
  // One line saying how the process ended, e.g. "exit 2", "killed by SIGSEGV", "timed out after 30
  // s".
  std::string describe_end() const;
};

class LiveProcess;  // live_process.hpp

// The seam for tests: a FakeProcessRunner answers without running anything.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
  // A process the caller talks to while it runs (live_process.hpp); the spec's stdin_text and
  // timeout are not used (the caller writes lines and bounds each read). A runner that cannot
  // start one says so (the default).
  virtual Expected<std::unique_ptr<LiveProcess>> start(const ProcessSpec& spec);
};

class SystemProcessRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
  Expected<std::unique_ptr<LiveProcess>> start(const ProcessSpec& spec) override;
};

// Finds an executable by name in PATH; nullopt when absent.
std::optional<std::filesystem::path> find_in_path(const std::string& name);

}  // namespace ptxbench::util
