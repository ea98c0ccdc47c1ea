#include "ptxbench/serve/http_front.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxbench::serve {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kWriteTimeout = std::chrono::seconds(10);
constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::string_view kHeadEnd = "\r\n\r\n";

// What the handlers of the request under way on this thread tell the front (see the header).
struct RequestFlags {
  bool close_after = false;
  int status = 0;  // of the response, set by the post-routing handler
  BodyProblem body = BodyProblem::kNone;
};
thread_local RequestFlags* current_request = nullptr;

// One client connection. Owned by the poll loop while it waits for a head, by one worker while a
// request of it is answered; the descriptor is closed exactly once, by whoever owns it then.
struct Connection {
  int fd = -1;
  std::string peer;     // the peer's address, for the per-peer bound
  std::string pending;  // read from the socket, not yet given to httplib
  Clock::time_point deadline;
  std::size_t requests = 0;
};

int wait_for(int fd, short events, Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  pollfd p{.fd = fd, .events = events, .revents = 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
  } while (ready < 0 && errno == EINTR);
  return ready;
}

void address_of(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

// httplib reads one request through this: the head from what the poll loop collected, then at
// most `max_body_wire_bytes` of body within `body_timeout`.
class GuardedStream : public httplib::Stream {
 public:
  GuardedStream(Connection& connection, const FrontLimits& limits, RequestFlags& flags)
      : c_(connection), limits_(limits), flags_(flags) {}

  bool is_readable() const override {
    return !c_.pending.empty() || wait_for(c_.fd, POLLIN, deadline()) > 0;
  }
  bool is_writable() const override {
    return wait_for(c_.fd, POLLOUT, Clock::now() + kWriteTimeout) > 0;
  }

  ssize_t read(char* ptr, std::size_t size) override {
    if (failed_ || size == 0) return failed_ ? -1 : 0;
    if (c_.pending.empty()) {
      if (wait_for(c_.fd, POLLIN, deadline()) <= 0) return fail(BodyProblem::kTooSlow);
      char chunk[kReadChunk];
      const auto got = ::recv(c_.fd, chunk, sizeof(chunk), 0);
      if (got <= 0) return got;
      c_.pending.append(chunk, static_cast<std::size_t>(got));
    }
    std::size_t n = std::min(size, c_.pending.size());
    if (in_head_) {
      // Hand out the head up to its end, then the body under its own bounds.
      for (std::size_t i = 0; i < n; ++i) {
        matched_ = c_.pending[i] == kHeadEnd[matched_] ? matched_ + 1
                   : c_.pending[i] == '\r'             ? 1
                                                       : 0;
        if (matched_ == kHeadEnd.size()) {
          n = i + 1;
          in_head_ = false;
          body_deadline_ = Clock::now() + limits_.body_timeout;
          break;
        }
      }
    } else {
      if (body_bytes_ + n > limits_.max_body_wire_bytes) return fail(BodyProblem::kTooLarge);
      body_bytes_ += n;
    }
    std::memcpy(ptr, c_.pending.data(), n);
    c_.pending.erase(0, n);
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (!is_writable()) return -1;
    return ::send(c_.fd, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getpeername(c_.fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      address_of(address, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      address_of(address, ip, port);
  }
  socket_t socket() const override { return c_.fd; }
  bool failed() const { return failed_; }

 private:
  Clock::time_point deadline() const { return in_head_ ? c_.deadline : body_deadline_; }
  ssize_t fail(BodyProblem problem) {
    failed_ = true;
    if (!in_head_) flags_.body = problem;
    return -1;
  }

  Connection& c_;
  const FrontLimits& limits_;
  RequestFlags& flags_;
  bool in_head_ = true, failed_ = false;
  std::size_t matched_ = 0, body_bytes_ = 0;
  Clock::time_point body_deadline_;
};

// A short answer written by the front itself (the connection closes after it).
void answer_only(int fd, int status, std::string_view reason, std::string_view message) {
  const auto body = fmt::format("{{\"error\": \"{}\"}}", message);
  const auto text = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}Connection: "
      "close\r\n\r\n{}",
      status, reason, body.size(), status == 503 ? "Retry-After: 5\r\n" : "", body);
  (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void answer_and_close(int fd, int status, std::string_view reason, std::string_view message) {
  answer_only(fd, status, reason, message);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

// A connection refused at admission: its 503 is written and the sending side closed at once,
// but the socket stays open to read and discard the request the client sends meanwhile. Closed
// at once, the unread request would make the kernel reset the connection, and the client would
// see a broken pipe instead of the 503 and its Retry-After.
struct Refused {
  int fd = -1;
  Clock::time_point deadline;
};
constexpr std::size_t kMaxRefusedLingering = 256;  // beyond this a refusal closes at once
constexpr auto kRefusedLinger = std::chrono::seconds(1);

bool set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return false;
  return ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) == 0;
}

}  // namespace

void close_connection_after_response() {
  if (current_request) current_request->close_after = true;
}

BodyProblem body_problem() {
  return current_request ? current_request->body : BodyProblem::kNone;
}

struct HttpFront::Impl {
  Impl(Router& r, FrontLimits l) : router(r), limits(l) {
    limits.threads = std::max(1, limits.threads);
    limits.max_requests_per_connection =
        std::max<std::size_t>(1, limits.max_requests_per_connection);
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) wake[0] = wake[1] = -1;
    // What httplib's Keep-Alive response header tells clients.
    router.set_keep_alive_timeout(std::max<time_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(limits.header_timeout).count()));
    router.set_keep_alive_max_count(limits.max_requests_per_connection);
    router.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
      if (current_request) current_request->status = res.status;
    });
  }
  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    for (int fd : wake)
      if (fd >= 0) ::close(fd);
  }

  void poke() {
    if (wake[1] >= 0) (void)!::write(wake[1], "x", 1);
  }

  // Admission: within the bounds, or refused with 503 at once.
  void admit(int fd, const sockaddr_storage& address, std::vector<Connection>& waiting,
             std::vector<Refused>& refused) {
    std::string ip;
    int port = 0;
    address_of(address, ip, port);
    {
      std::lock_guard lock(mutex);
      std::string why;
      if (open_total >= limits.max_connections)
        why = "too many connections to the service";
      else if (open_per_peer[ip] >= limits.max_connections_per_peer)
        why = fmt::format("too many connections from {}", ip);
      if (!why.empty()) {
        if (refused.size() >= kMaxRefusedLingering) {
          answer_and_close(fd, 503, "Service Unavailable", why);
          return;
        }
        answer_only(fd, 503, "Service Unavailable", why);
        ::shutdown(fd, SHUT_WR);
        refused.push_back({.fd = fd, .deadline = Clock::now() + kRefusedLinger});
        return;
      }
      ++open_total;
      ++open_per_peer[ip];
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    waiting.push_back({.fd = fd, .peer = ip, .deadline = Clock::now() + limits.header_timeout});
  }

  void uncount(const std::string& peer) {
    std::lock_guard lock(mutex);
    --open_total;
    if (--open_per_peer[peer] == 0) open_per_peer.erase(peer);
  }
  void release(Connection& c) {
    ::shutdown(c.fd, SHUT_RDWR);
    ::close(c.fd);
    c.fd = -1;
    uncount(c.peer);
  }

  // A connection refused with its body unread: closing it at once would reset it, and the client
  // could lose the answer it has not read yet. So the front stops sending, takes what is in
  // flight for a moment (bounded in bytes and time), then closes.
  void linger_then_release(Connection& c) {
    ::shutdown(c.fd, SHUT_WR);
    const auto until = Clock::now() + std::chrono::milliseconds(250);
    std::size_t drained = 0;
    char chunk[kReadChunk];
    while (drained < (1u << 20) && wait_for(c.fd, POLLIN, until) > 0) {
      const auto got = ::recv(c.fd, chunk, sizeof(chunk), MSG_DONTWAIT);
      if (got <= 0) break;
      drained += static_cast<std::size_t>(got);
    }
    release(c);
  }

  // Reads and discards what refused connections sent (fds from `first` on, in order); closes
  // each at its end of input, on an error or at its deadline.
  static void drain_refused(std::vector<Refused>& refused, const std::vector<pollfd>& fds,
                            std::size_t first) {
    char chunk[kReadChunk];
    std::vector<Refused> still;
    for (std::size_t i = 0; i < refused.size(); ++i) {
      auto& r = refused[i];
      bool done = Clock::now() >= r.deadline;
      if (!done && fds[first + i].revents) {
        const auto got = ::recv(r.fd, chunk, sizeof(chunk), MSG_DONTWAIT);
        done = got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
      }
      if (done) {
        ::close(r.fd);
        continue;
      }
      still.push_back(r);
    }
    refused = std::move(still);
  }

  bool head_complete(const Connection& c) const {
    return c.pending.find(kHeadEnd) != std::string::npos;
  }

  void to_workers(Connection c) {
    {
      std::lock_guard lock(mutex);
      ready.push_back(std::move(c));
    }
    work.notify_one();
  }

  // Reads what a waiting connection sent; false when it is done with (closed or handed on).
  bool read_head(Connection& c) {
    char chunk[kReadChunk];
    for (;;) {
      const auto got = ::recv(c.fd, chunk, sizeof(chunk), MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        release(c);
        return false;
      }
      if (got < 0) break;
      c.pending.append(chunk, static_cast<std::size_t>(got));
      if (head_complete(c) || c.pending.size() > limits.max_header_bytes) break;
    }
    if (head_complete(c) && c.pending.find(kHeadEnd) + kHeadEnd.size() <= limits.max_header_bytes) {
      to_workers(std::move(c));
      return false;
    }
    if (c.pending.size() > limits.max_header_bytes) {
      answer_and_close(c.fd, 431, "Request Header Fields Too Large",
                       fmt::format("request head: larger than {} bytes", limits.max_header_bytes));
      c.fd = -1;
      uncount(c.peer);
      return false;
    }
    return true;
  }

  void poll_loop() {
    std::vector<Connection> waiting;
    std::vector<Refused> refused;
    while (!stopping) {
      {
        std::lock_guard lock(mutex);
        for (auto& c : handed_back) {
          c.deadline = Clock::now() + limits.header_timeout;
          waiting.push_back(std::move(c));
        }
        handed_back.clear();
      }
      // A kept-alive connection may already hold its next head (pipelining).
      std::erase_if(waiting, [&](Connection& c) {
        if (!head_complete(c)) return false;
        to_workers(std::move(c));
        return true;
      });
      std::vector<pollfd> fds{{.fd = listen_fd, .events = POLLIN, .revents = 0},
                              {.fd = wake[0], .events = POLLIN, .revents = 0}};
      auto next = Clock::now() + std::chrono::seconds(1);
      for (const auto& c : waiting) {
        fds.push_back({.fd = c.fd, .events = POLLIN, .revents = 0});
        next = std::min(next, c.deadline);
      }
      for (const auto& r : refused) {
        fds.push_back({.fd = r.fd, .events = POLLIN, .revents = 0});
        next = std::min(next, r.deadline);
      }
      const auto wait_ms = std::max<long long>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count());
      if (::poll(fds.data(), fds.size(), static_cast<int>(wait_ms) + 1) < 0 && errno != EINTR)
        break;
      if (fds[1].revents) {
        char drained[64];
        while (::read(wake[0], drained, sizeof(drained)) > 0) {
        }
      }
      const std::size_t waiting_count = waiting.size();
      std::vector<Connection> still;
      for (std::size_t i = 0; i < waiting.size(); ++i) {
        auto& c = waiting[i];
        if (fds[i + 2].revents && !read_head(c)) continue;
        if (Clock::now() >= c.deadline) {
          if (!c.pending.empty()) {
            answer_and_close(c.fd, 408, "Request Timeout", "request head: not complete in time");
            c.fd = -1;
            uncount(c.peer);
          } else {
            release(c);  // an idle kept-alive connection
          }
          continue;
        }
        still.push_back(std::move(c));
      }
      waiting = std::move(still);
      drain_refused(refused, fds, 2 + waiting_count);
      if (fds[0].revents) {
        for (;;) {
          sockaddr_storage address{};
          socklen_t length = sizeof(address);
          const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&address), &length,
                                   SOCK_CLOEXEC | SOCK_NONBLOCK);
          if (fd < 0) break;  // EAGAIN, or out of descriptors: the next round tries again
          admit(fd, address, waiting, refused);
        }
      }
    }
    for (auto& c : waiting) release(c);
    for (auto& r : refused) ::close(r.fd);
    ::close(listen_fd);  // new clients are refused at once, not left in the backlog
    listen_fd = -1;
  }

  void worker() {
    for (;;) {
      Connection c;
      {
        std::unique_lock lock(mutex);
        work.wait(lock, [&] { return !ready.empty() || stopping; });
        if (ready.empty()) return;
        c = std::move(ready.front());
        ready.pop_front();
      }
      answer(c);
    }
  }

  void answer(Connection& c) {
    set_blocking(c.fd, true);
    const timeval write_timeout{.tv_sec = kWriteTimeout.count(), .tv_usec = 0};
    ::setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &write_timeout, sizeof(write_timeout));
    RequestFlags flags;
    current_request = &flags;
    GuardedStream stream(c, limits, flags);
    const bool last = stopping || c.requests + 1 >= limits.max_requests_per_connection;
    bool closed_by_client = false;
    bool ok = false;
    try {
      ok = router.process_request(stream, last, closed_by_client, nullptr);
    } catch (const std::exception&) {
      ok = false;  // a handler's exception; httplib answered 500 where it could
    }
    current_request = nullptr;
    ++c.requests;
    // A refused request may have left its body unread: the connection cannot be trusted to
    // frame the next one.
    if (flags.close_after || stream.failed()) {
      linger_then_release(c);
      return;
    }
    if (!ok || last || closed_by_client || flags.status >= 400 || stopping) {
      release(c);
      return;
    }
    set_blocking(c.fd, false);
    {
      std::lock_guard lock(mutex);
      handed_back.push_back(std::move(c));
    }
    poke();
  }

  Router& router;
  FrontLimits limits;
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable work;
  std::deque<Connection> ready;         // complete heads waiting for a worker
  std::vector<Connection> handed_back;  // kept alive, back to the poll loop
  std::size_t open_total = 0;
  std::map<std::string, std::size_t> open_per_peer;
};

HttpFront::HttpFront(Router& router, FrontLimits limits)
    : impl_(std::make_unique<Impl>(router, limits)) {}

HttpFront::~HttpFront() {
  stop();
}

util::Expected<int> HttpFront::bind(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const auto service = std::to_string(port);
  if (const int error = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); error != 0)
    return util::make_error(fmt::format("{}: {}", host, ::gai_strerror(error)));
  std::string why = fmt::format("{}:{}: no address to listen on", host, port);
  int fd = -1;
  for (auto* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR lets a restart bind while old connections linger in TIME_WAIT; on Linux it
    // never lets two sockets listen on one port (SO_REUSEPORT would, and is not set).
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      why =
          errno == EADDRINUSE
              ? fmt::format("{}:{}: the port is in use (another service listens on it)", host, port)
              : fmt::format("{}:{}: cannot listen: {}", host, port, std::strerror(errno));
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) return util::make_error(why);
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  std::string ip;
  int bound = 0;
  address_of(address, ip, bound);
  impl_->listen_fd = fd;
  return bound;
}

void HttpFront::serve() {
  if (impl_->listen_fd < 0 || impl_->stopping) return;
  impl_->router.set_serving(true);
  std::vector<std::thread> workers;
  for (int i = 0; i < impl_->limits.threads; ++i) workers.emplace_back([this] { impl_->worker(); });
  impl_->poll_loop();
  { std::lock_guard lock(impl_->mutex); }
  impl_->work.notify_all();
  for (auto& w : workers) w.join();
  // Connections answered after the loop ended were closed by their workers; any handed back
  // meanwhile are closed here.
  std::lock_guard lock(impl_->mutex);
  for (auto& c : impl_->handed_back) {
    ::shutdown(c.fd, SHUT_RDWR);
    ::close(c.fd);
  }
  impl_->handed_back.clear();
}

void HttpFront::stop() {
  impl_->stopping = true;
  impl_->router.set_serving(false);        // open event streams end
  { std::lock_guard lock(impl_->mutex); }  // a worker between its check and its wait sees it
  impl_->work.notify_all();
  impl_->poke();
}

}  // namespace ptxbench::serve
