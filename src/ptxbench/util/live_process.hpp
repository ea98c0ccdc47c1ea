// A child that keeps running while its parent talks to it line by line: the trusted judge that
// outlives candidates, an interactive candidate worker, a worker started early that waits for its
// turn on the GPU. Started by ProcessRunner::start with the same launch as run() (its own process
// group with a keeper, limits, inherited descriptors, environment; spawn.hpp); stdin and stdout
// stay pipes, stderr is read in the background up to the spec's cap. Destroying it kills the
// group and reaps it: no child outlives its handle.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ptxbench/util/process.hpp"

namespace ptxbench::util {

class LiveProcess {
 public:
  virtual ~LiveProcess() = default;
  // One line to the child's stdin ('\n' added); false when the child no longer reads it.
  virtual bool write_line(std::string_view line) = 0;
  // The child's next stdout line (without '\n'); nullopt at end of output, past `timeout`, or
  // when the spec's `stop` is set (timed_out() says which).
  virtual std::optional<std::string> read_line(std::chrono::milliseconds timeout) = 0;
  virtual bool timed_out() const = 0;  // the last read_line ran past its timeout
  // Closes stdin, waits up to `timeout` for the exit (then kills the group) and reports as
  // run() does: stdout holds what no read_line took, stderr what was kept.
  virtual ProcessResult finish(std::chrono::milliseconds timeout) = 0;
  // Kills the group now (finish() then reports the kill).
  virtual void kill() = 0;
  virtual pid_t pid() const = 0;
  // Keeps `holder` alive as long as the process (a sandbox's handed-over folders).
  virtual void keep_alive(std::shared_ptr<void> holder) = 0;
};

// The live process of `spec` on this machine; an Error when it could not start.
Expected<std::unique_ptr<LiveProcess>> start_live_process(const ProcessSpec& spec);

}  // namespace ptxbench::util
