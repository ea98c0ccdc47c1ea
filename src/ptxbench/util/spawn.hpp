// How ptxbench starts a child, shared by ProcessRunner::run (which waits for it) and
// ProcessRunner::start (a live process it talks to, live_process.hpp): the child gets its own
// process group led by a small keeper that waits for the program and kills the group when
// ptxbench dies (even by SIGKILL); its stdin is a pipe or /dev/null, its stdout and stderr pipes;
// limits, inherited descriptors, environment and working folder come from the spec.
#pragma once
#include <sys/types.h>

#include <string>
#include <utility>

#include "ptxbench/util/process.hpp"

namespace ptxbench::util::detail {

// Owns one file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset();

 private:
  int fd_ = -1;
};

struct Spawned {
  pid_t pid = -1;     // the keeper, whose id is the group's
  std::string error;  // why it did not start (then pid is -1)
  std::string exe;    // the program's resolved path
  Fd in;              // the write end of its stdin (none: /dev/null)
  Fd out;             // the read end of its stdout
  Fd err;             // the read end of its stderr
  bool started() const { return pid > 0; }
};

// Starts `spec`'s program; with `stdin_pipe` its stdin is a pipe (else /dev/null). The group is
// registered (child_processes.hpp): the caller unregisters it once reaped.
Spawned spawn(const ProcessSpec& spec, bool stdin_pipe);

// Appends what is readable on `fd` to `sink` up to `cap`; returns false at end of stream.
bool drain(int fd, std::string& sink, std::size_t cap, bool& truncated);

}  // namespace ptxbench::util::detail
