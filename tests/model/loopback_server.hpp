// A cpp-httplib server on 127.0.0.1 at a free port, started by a test and stopped with it.
// Handlers are registered before it starts; requests it saw are kept for assertions.
#pragma once
#include <httplib.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ptxbench::testing {

struct SeenRequest {
  std::string path;
  std::multimap<std::string, std::string, httplib::detail::ci> headers;
  std::string body;

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class LoopbackServer {
 public:
  // `handle` answers every POST; `index` counts requests from 0.
  using Handler = std::function<void(int index, const httplib::Request&, httplib::Response&)>;

  explicit LoopbackServer(Handler handle) : handle_(std::move(handle)) {
    server_.Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
      int index = 0;
      {
        std::lock_guard lock(mutex_);
        index = static_cast<int>(seen_.size());
        seen_.push_back(
            {request.path, {request.headers.begin(), request.headers.end()}, request.body});
      }
      handle_(index, request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    // bind_to_any_port already listens: connections queue until the thread accepts them.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is ignored until the accept loop runs, so wait for it (bounded).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!server_.is_running()) throw std::runtime_error("loopback server did not start");
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<SeenRequest> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  Handler handle_;
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<SeenRequest> seen_;
};

}  // namespace ptxbench::testing
