// The seccomp layer: a BPF program, compiled with libseccomp, that bwrap loads (--seccomp FD)
// into the sandboxed process before it executes anything. It refuses what a candidate never
// needs and an attacker would: tracing or reading other processes, new namespaces and mounts,
// kernel keyrings, BPF, io_uring, module loading, and sockets other than AF_UNIX (with
// `ip_sockets`, AF_INET and AF_INET6 too: ncu talks to the process it profiles over TCP on
// loopback, and the sandbox's network namespace holds nothing but its own loopback). 32-bit and
// x32 system calls are killed (the filter is for the native ABI only).
#pragma once
#include <utility>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::sandbox {

// An in-memory file holding the compiled filter, positioned at its start; closed on
// destruction. bwrap reads it once, so each sandboxed process gets its own.
class FilterFile {
 public:
  explicit FilterFile(int fd) : fd_(fd) {}
  FilterFile(FilterFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FilterFile& operator=(FilterFile&&) = delete;
  FilterFile(const FilterFile&) = delete;
  FilterFile& operator=(const FilterFile&) = delete;
  ~FilterFile();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// Whether this build has libseccomp (else the layer is reported missing).
bool seccomp_built_in();

util::Expected<FilterFile> compile_seccomp_filter(bool ip_sockets = false);

}  // namespace ptxbench::sandbox
