#include "ptxbench/eval/worker/control_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ptxbench::eval::worker {

ReceivedFd::ReceivedFd(ReceivedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

ReceivedFd& ReceivedFd::operator=(ReceivedFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ReceivedFd::~ReceivedFd() {
  if (fd_ >= 0) ::close(fd_);
}

ControlSocket::ControlSocket(ControlSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      pending_(std::move(other.pending_)),
      pending_fds_(std::move(other.pending_fds_)) {}

ControlSocket::~ControlSocket() {
  if (fd_ >= 0) ::close(fd_);
}

util::Expected<std::pair<ControlSocket, ControlSocket>> ControlSocket::pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return util::make_error(std::string("socketpair: ") + std::strerror(errno));
  return std::pair<ControlSocket, ControlSocket>(ControlSocket(fds[0]), ControlSocket(fds[1]));
}

void ControlSocket::inheritable() {
  ::fcntl(fd_, F_SETFD, 0);
}

bool ControlSocket::send(std::string_view line, const std::vector<int>& fds) {
  std::string text(line);
  text += '\n';
  std::size_t sent = 0;
  bool first = true;
  while (sent < text.size()) {
    iovec io{text.data() + sent, text.size() - sent};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
    if (first && !fds.empty() && fds.size() <= kMaxFds) {
      message.msg_control = control;
      message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t n = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    first = false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

util::Expected<ControlMessage> ControlSocket::receive(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto newline = pending_.find('\n'); newline != std::string::npos) {
      ControlMessage message{.line = pending_.substr(0, newline), .fds = std::move(pending_fds_)};
      pending_.erase(0, newline + 1);
      pending_fds_.clear();
      return message;
    }
    if (pending_.size() > kMaxLineBytes) return util::make_error("a control line over 64 MiB");
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return util::make_error("timed out");
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (polled < 0 && errno != EINTR) return util::make_error(std::strerror(errno));
    if (polled <= 0) continue;
    char buffer[65536];
    iovec io{buffer, sizeof buffer};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd_, &message, MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return util::make_error(std::strerror(errno));
    }
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
         header = CMSG_NXTHDR(&message, header)) {
      if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
        ReceivedFd owned(fd);  // closed unless kept
        if (pending_fds_.size() < kMaxFds) pending_fds_.push_back(std::move(owned));
      }
    }
    if (n == 0) return util::make_error("the peer closed the socket");
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace ptxbench::eval::worker
