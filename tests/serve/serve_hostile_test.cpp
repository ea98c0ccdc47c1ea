// `ptxbench serve` against hostile clients, as a process on 127.0.0.1 (bounded in count and
// time): bodies are bounded whatever their encoding and never read before the token is checked,
// slow heads hold no request thread, a port or journal in use is refused, limits and request
// fields are range-checked, and under a mix of slow, oversized and unauthenticated clients the
// honest ones are still served. PTXBENCH_SERVE_UNDER_TEST runs them against another build.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <atomic>
#include <fstream>
#include <thread>
#include <utility>
#include <vector>

#include "serve_process.hpp"

namespace ptxbench::serve {
namespace {
namespace fs = std::filesystem;
using namespace ptxbench::testing;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// A client socket to 127.0.0.1:port with send and receive timeouts; closed with the object.
class RawConnection {
 public:
  explicit RawConnection(int port, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const timeval tv{.tv_sec = timeout.count() / 1000, .tv_usec = (timeout.count() % 1000) * 1000};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) close();
  }
  ~RawConnection() { close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  RawConnection& operator=(RawConnection&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }

  bool ok() const { return fd_ >= 0; }
  // Sends all of `data`; false once the peer stopped taking it (closed, or a timeout).
  bool send(std::string_view data) {
    while (!data.empty() && fd_ >= 0) {
      const auto sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return fd_ >= 0;
  }
  bool readable() const {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    return fd_ >= 0 && ::poll(&p, 1, 0) > 0;
  }
  // What the peer sent until it closed or went quiet (the receive timeout).
  std::string receive() {
    std::string out;
    char buffer[4096];
    for (;;) {
      const auto got = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (got <= 0) break;
      out.append(buffer, static_cast<std::size_t>(got));
      if (out.find("\r\n\r\n") != std::string::npos && response_complete(out)) break;
    }
    return out;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  static bool response_complete(const std::string& text) {
    const auto head_end = text.find("\r\n\r\n");
    const auto at = text.find("Content-Length: ");
    if (at == std::string::npos || at > head_end) return false;
    return text.size() >= head_end + 4 + std::stoul(text.substr(at + 16));
  }
  int fd_ = -1;
};

std::string chunk(std::string_view data) {
  return fmt::format("{:x}\r\n{}\r\n", data.size(), data);
}

std::string chunked_head(const std::string& path, bool with_token) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         (with_token ? std::string("Authorization: Bearer ") + kServeToken + "\r\n" : "") +
         "Transfer-Encoding: chunked\r\n\r\n";
}

long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

class ServeHostile : public ::testing::Test {
 protected:
  // A service with `flags` (and the CPU-only defaults); its port, 0 when it did not start.
  int start(std::vector<std::string> flags = {},
            const std::map<std::string, std::string>& env = {}) {
    flags.insert(flags.end(), {"--no-gpu", "--sandbox", "off", "--workers", "1"});
    serve_ = std::make_unique<ServeProcess>(dir_.path(), flags, env);
    return serve_->wait_port();
  }
  // PATH with a stand-in nvcc that fails every compile at once (honest submissions finish fast).
  std::map<std::string, std::string> fast_nvcc() {
    const auto bin = dir_.path() / "bin";
    fs::create_directories(bin);
    util::write_file_atomic(bin / "nvcc",
                            "#!/bin/sh\n"
                            "if [ \"$1\" = --version ]; then echo 'release 13.0'; exit 0; fi\n"
                            "echo 'candidate.cu(1): error: the stand-in compiles nothing' >&2\n"
                            "exit 1\n");
    fs::permissions(bin / "nvcc", fs::perms::owner_all);
    return {{"PATH", bin.string() + ":/usr/bin:/bin"}};
  }
  util::TempDir dir_;
  std::unique_ptr<ServeProcess> serve_;
};

// An unauthenticated chunked body of (up to) 256 MiB gets its 401 before the service reads it:
// the client is refused after a few MiB at most and the service's memory stays put.
TEST_F(ServeHostile, AnUnauthenticatedChunkedBodyIsRefusedBeforeItIsRead) {
  const int port = start();
  ASSERT_GT(port, 0) << serve_->log();
  const long before = resident_kib(serve_->pid());
  RawConnection attacker(port, std::chrono::seconds(2));
  ASSERT_TRUE(attacker.ok());
  ASSERT_TRUE(attacker.send(chunked_head("/v1/evaluations", false)));
  const std::string mebibyte(1 << 20, 'x');
  std::size_t sent_mib = 0;
  const auto until = Clock::now() + std::chrono::seconds(20);
  while (sent_mib < 256 && Clock::now() < until && !attacker.readable() &&
         attacker.send(chunk(mebibyte)))
    ++sent_mib;
  const auto answer = attacker.receive();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 401")) << answer.substr(0, 200);
  EXPECT_LT(sent_mib, 32u) << "the service read the body before checking the token";
  const long after = resident_kib(serve_->pid());
  EXPECT_LT(after - before, 32 * 1024)
      << "resident memory grew from " << before << " to " << after << " KiB";
}

// An authenticated chunked body over --max-body-bytes gets 413 (a body of the same size with a
// Content-Length got it already).
TEST_F(ServeHostile, AChunkedBodyOverTheLimitGets413) {
  const int port = start({"--max-body-bytes", "1048576"});
  ASSERT_GT(port, 0) << serve_->log();
  RawConnection client(port);
  ASSERT_TRUE(client.send(chunked_head("/v1/evaluations", true)));
  const json body{
      {"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"code", std::string(2 << 20, 'x')}};
  const auto text = body.dump();
  for (std::size_t at = 0; at < text.size(); at += 64 * 1024) {
    if (!client.send(chunk(std::string_view(text).substr(at, 64 * 1024)))) break;
  }
  client.send("0\r\n\r\n");
  const auto answer = client.receive();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer.substr(0, 300);
  EXPECT_NE(answer.find("--max-body-bytes"), std::string::npos) << answer;
}

// curl -d sends a JSON body as application/x-www-form-urlencoded; httplib holds a form to
// 8 KiB. A kernel over 8 KiB sent that way is accepted like any JSON body (docs/serve.md's
// example).
TEST_F(ServeHostile, AJsonBodySentAsAFormIsReadAsJson) {
  const int port = start();
  ASSERT_GT(port, 0) << serve_->log();
  auto http = serve_->client(port);
  const json body{{"task", "gemm_n7168_k5120"},
                  {"arch", "hopper"},
                  {"code", "// " + std::string(20'000, 'k') + "\nint x;\n"}};
  auto submitted = http->Post("/v1/evaluations", body.dump(), "application/x-www-form-urlencoded");
  ASSERT_TRUE(submitted);
  EXPECT_EQ(submitted->status, 202) << submitted->body;
}

// 40 connections trickling header lines (more than the request threads) do not keep
// /v1/health or an authenticated request from being answered.
TEST_F(ServeHostile, ConnectionsTricklingHeadersDoNotBlockOthers) {
  const int port = start();
  ASSERT_GT(port, 0) << serve_->log();
  std::vector<RawConnection> slow;
  for (int i = 0; i < 40; ++i) {
    slow.emplace_back(port);
    ASSERT_TRUE(slow.back().send("GET /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  }
  std::atomic<bool> trickling{true};
  // Joined however the test ends (a failed ASSERT returns early).
  struct Trickle {
    std::atomic<bool>& on;
    std::thread thread;
    ~Trickle() {
      on = false;
      thread.join();
    }
  } trickle{trickling, std::thread([&] {
              for (int line = 0; trickling && line < 100; ++line) {
                for (auto& c : slow) c.send("X-Slow: " + std::to_string(line) + "\r\n");
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
              }
            })};
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // every slow one is connected
  httplib::Client health("127.0.0.1", port);
  health.set_read_timeout(2, 0);
  health.set_connection_timeout(2, 0);
  auto http = serve_->client(port);
  http->set_read_timeout(2, 0);
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    auto got = health.Get("/v1/health");
    ASSERT_TRUE(got) << "/v1/health was not answered within 2 s";
    EXPECT_EQ(got->status, 200);
    auto tasks = http->Get("/v1/tasks");
    ASSERT_TRUE(tasks) << "/v1/tasks was not answered within 2 s";
    EXPECT_EQ(tasks->status, 200);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  }
}

// A head not complete within --header-timeout is answered 408 and its connection closed.
TEST_F(ServeHostile, AHeadThatTakesTooLongIsCutOff) {
  const int port = start({"--header-timeout", "1"});
  ASSERT_GT(port, 0) << serve_->log();
  RawConnection slow(port, std::chrono::seconds(4));
  const auto start = Clock::now();
  ASSERT_TRUE(slow.send("GET /v1/health HTTP/1.1\r\n"));
  for (int i = 0; i < 30 && slow.send("X-Slow: 1\r\n"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto answer = slow.receive();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408")) << answer;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
}

// An authenticated body that stops coming is answered 408 after --body-timeout.
TEST_F(ServeHostile, ABodyThatTakesTooLongIsCutOff) {
  const int port = start({"--body-timeout", "1"});
  ASSERT_GT(port, 0) << serve_->log();
  RawConnection slow(port, std::chrono::seconds(4));
  const auto start = Clock::now();
  ASSERT_TRUE(slow.send(std::string("POST /v1/env/reset HTTP/1.1\r\nHost: 127.0.0.1\r\n") +
                        "Authorization: Bearer " + kServeToken +
                        "\r\nContent-Length: 100\r\n\r\n{\"arch\":"));
  const auto answer = slow.receive();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408")) << answer;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
}

// Connections from one address beyond --max-connections-per-address are refused at once.
TEST_F(ServeHostile, ConnectionsOverThePerAddressLimitAreRefused) {
  const int port = start({"--max-connections-per-address", "4"});
  ASSERT_GT(port, 0) << serve_->log();
  std::vector<RawConnection> idle;
  for (int i = 0; i < 4; ++i) idle.emplace_back(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  RawConnection fifth(port);
  ASSERT_TRUE(fifth.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  EXPECT_TRUE(fifth.receive().starts_with("HTTP/1.1 503"));
  idle.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  httplib::Client health("127.0.0.1", port);
  auto got = health.Get("/v1/health");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
}

// A refused client that sends a whole request before reading still gets the 503 and its
// Retry-After: the service reads and discards the request rather than resetting the connection
// (a reset turned the 503 into a broken pipe for a trainer with too many connections).
TEST_F(ServeHostile, ARefusedClientSendingABodyStillReadsTheRefusal) {
  const int port = start({"--max-connections-per-address", "1"});
  ASSERT_GT(port, 0) << serve_->log();
  RawConnection held(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  RawConnection refused(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // its 503 is already written
  const std::string body(512 * 1024, 'x');                      // more than the socket buffers hold
  EXPECT_TRUE(refused.send("POST /v1/batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body));
  const auto answer = refused.receive();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 503")) << answer.substr(0, 200);
  EXPECT_NE(answer.find("Retry-After: 5"), std::string::npos) << answer.substr(0, 200);
}

// A second service on the port of a running one, or on its journal, does not start.
TEST_F(ServeHostile, ASecondServiceOnAPortOrJournalInUseDoesNotStart) {
  const int port = start();
  ASSERT_GT(port, 0) << serve_->log();
  util::TempDir other;
  ServeProcess same_port(other.path(),
                         {"--port", std::to_string(port), "--no-gpu", "--sandbox", "off"});
  EXPECT_EQ(same_port.wait_port(), 0) << "a second service listens on port " << port;
  EXPECT_EQ(same_port.wait_exit(std::chrono::seconds(30)), 2);
  EXPECT_NE(same_port.log().find("in use"), std::string::npos) << same_port.log();

  util::TempDir third;
  ServeProcess same_journal(third.path(), {"--journal", (dir_.path() / "journal").string(),
                                           "--no-gpu", "--sandbox", "off"});
  EXPECT_EQ(same_journal.wait_port(), 0) << "a second service runs on the same journal";
  EXPECT_EQ(same_journal.wait_exit(std::chrono::seconds(30)), 2);
  EXPECT_NE(same_journal.log().find("another ptxbench serve"), std::string::npos)
      << same_journal.log();
}

// Limits of zero are usage errors, not services that refuse everything.
TEST_F(ServeHostile, ZeroLimitsAreUsageErrors) {
  for (const auto& flag : {"--queue-capacity", "--max-body-bytes"}) {
    util::TempDir dir;
    ServeProcess serve(dir.path(), {flag, "0", "--no-gpu", "--sandbox", "off"});
    EXPECT_EQ(serve.wait_port(), 0) << flag << " 0 was accepted";
    EXPECT_EQ(serve.wait_exit(std::chrono::seconds(30)), 2) << flag;
  }
}

// A number out of range is an error, not a number that wrapped around (4294967297 -> 1).
TEST_F(ServeHostile, ResetFieldsAreRangeChecked) {
  const int port = start();
  ASSERT_GT(port, 0) << serve_->log();
  auto http = serve_->client(port);
  for (const json& turns : {json(4294967297LL), json(0), json(-1), json(2.5)}) {
    const json reset{{"arch", "hopper"}, {"task", "gemm_n7168_k5120"}, {"max_turns", turns}};
    auto got = http->Post("/v1/env/reset", reset.dump(), "application/json");
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 400) << "max_turns " << turns.dump() << ": " << got->body;
  }
}

// For a few seconds, slow heads, oversized and unauthenticated bodies hammer the service while an
// honest client asks for its health and tasks and submits evaluations: every honest request is
// answered, each within 2 s. PTXBENCH_HOSTILE_SECONDS lengthens it (default 4).
TEST_F(ServeHostile, HonestClientsAreServedUnderAttack) {
  const int port = start({"--max-body-bytes", "1048576", "--queue-capacity", "1000"}, fast_nvcc());
  ASSERT_GT(port, 0) << serve_->log();
  const char* given = std::getenv("PTXBENCH_HOSTILE_SECONDS");
  const auto length = std::chrono::seconds(given ? std::max(1, std::atoi(given)) : 4);
  const auto until = Clock::now() + length;
  std::atomic<int> attacks{0};
  std::vector<std::thread> attackers;
  // Slow heads: 40 connections (more than the request threads) trickling header lines,
  // reconnecting when cut off.
  attackers.emplace_back([&] {
    std::vector<RawConnection> slow;
    while (Clock::now() < until) {
      while (slow.size() < 40) {
        slow.emplace_back(port, std::chrono::milliseconds(200));
        slow.back().send("GET /v1/tasks HTTP/1.1\r\n");
      }
      std::erase_if(slow, [](RawConnection& c) { return !c.send("X-Slow: 1\r\n"); });
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ++attacks;
    }
  });
  // Oversized chunked bodies with a token, and large ones without.
  for (bool with_token : {true, false}) {
    for (int i = 0; i < 2; ++i) {
      attackers.emplace_back([&, with_token] {
        const std::string piece(256 * 1024, 'y');
        while (Clock::now() < until) {
          RawConnection c(port, std::chrono::seconds(1));
          if (!c.send(chunked_head("/v1/evaluations", with_token))) continue;
          for (int k = 0; k < 16 && !c.readable() && c.send(chunk(piece)); ++k) {
          }
          c.receive();
          ++attacks;
        }
      });
    }
  }
  int honest = 0;
  std::vector<std::string> failures;
  auto slowest = Clock::duration::zero();
  auto http = serve_->client(port);
  http->set_read_timeout(2, 0);
  http->set_connection_timeout(2, 0);
  while (Clock::now() < until) {
    const auto start = Clock::now();
    auto health = http->Get("/v1/health");
    auto tasks = http->Get("/v1/tasks");
    const auto id = submit_code(*http, "int x; // honest " + std::to_string(honest) + "\n");
    const auto took = Clock::now() - start;
    slowest = std::max(slowest, took);
    if (!health || health->status != 200) failures.push_back("health");
    if (!tasks || tasks->status != 200) failures.push_back("tasks");
    if (id.empty()) failures.push_back("submission");
    ++honest;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& a : attackers) a.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " honest requests failed, first "
                                << failures.front();
  EXPECT_GE(honest, 3);
  EXPECT_GT(attacks.load(), 10);
  EXPECT_LT(slowest, std::chrono::seconds(2))
      << "the slowest honest round took "
      << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count() << " ms";
  std::printf("hostile load: %d honest rounds (slowest %lld ms) beside %d attacks\n", honest,
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count()),
              attacks.load());
}

}  // namespace
}  // namespace ptxbench::serve
