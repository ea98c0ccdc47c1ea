// One end of a Unix stream socket between ptxbench and its warm judge (or a test's stand-in):
// JSON lines, each of which may carry open file descriptors (SCM_RIGHTS) — how the judge hands
// over the exchange memory it shares with a candidate process. Reading never trusts the peer
// beyond the line: a line is bounded, descriptors beyond a few per line are closed, and a peer
// that goes silent past the deadline is reported as such.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

// An owned descriptor received from the peer (closed on destruction unless released).
class ReceivedFd {
 public:
  ReceivedFd() = default;
  explicit ReceivedFd(int fd) : fd_(fd) {}
  ReceivedFd(ReceivedFd&& other) noexcept;
  ReceivedFd& operator=(ReceivedFd&& other) noexcept;
  ReceivedFd(const ReceivedFd&) = delete;
  ReceivedFd& operator=(const ReceivedFd&) = delete;
  ~ReceivedFd();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

struct ControlMessage {
  std::string line;
  std::vector<ReceivedFd> fds;
};

class ControlSocket {
 public:
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
  static constexpr std::size_t kMaxFds = 8;

  explicit ControlSocket(int fd) : fd_(fd) {}  // takes ownership
  ControlSocket(ControlSocket&& other) noexcept;
  ControlSocket& operator=(ControlSocket&&) = delete;
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;
  ~ControlSocket();

  // A connected pair (close-on-exec): one end stays here, the other goes to a child.
  static util::Expected<std::pair<ControlSocket, ControlSocket>> pair();

  int fd() const { return fd_; }
  // Sends one line ('\n' added) with `fds` attached; false when the peer is gone.
  bool send(std::string_view line, const std::vector<int>& fds = {});
  // The next line and the descriptors that came with it; an Error at end of stream, past the
  // deadline ("timed out"), or for a line over kMaxLineBytes.
  util::Expected<ControlMessage> receive(std::chrono::milliseconds timeout);
  // Lets a child inherit this end: clears close-on-exec.
  void inheritable();

 private:
  int fd_ = -1;
  std::string pending_;
  std::vector<ReceivedFd> pending_fds_;
};

}  // namespace ptxbench::eval::worker
