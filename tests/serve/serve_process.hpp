// `ptxbench serve` as a separate process on a free port, with a journal and a clients file in
// a folder of the test; killed (SIGKILL) if a test leaves it running.
#pragma once
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"

extern char** environ;

namespace ptxbench::testing {

inline constexpr const char* kServeToken = "process-test-token-0123456789";

// The executable under test: this build's, or PTXBENCH_SERVE_UNDER_TEST (another build's, e.g.
// the one before a fix, to see a test fail there).
inline std::string serve_executable() {
  const char* other = std::getenv("PTXBENCH_SERVE_UNDER_TEST");
  return other && *other ? other : PTXBENCH_EXE;
}

class ServeProcess {
 public:
  // `dir` holds `tokens` (written here), `journal/` and `port`; `env` overrides variables;
  // `--port` or `--journal` in `flags` replace the defaults (a free port, dir/journal).
  ServeProcess(const std::filesystem::path& dir, std::vector<std::string> flags,
               const std::map<std::string, std::string>& env = {})
      : port_file_(dir / "port"), log_(dir / "serve.log") {
    std::filesystem::remove(port_file_);
    util::write_file_atomic(dir / "tokens", std::string("tester ") + kServeToken + " 8\n");
    auto given = [&](const char* name) {
      return std::find(flags.begin(), flags.end(), name) != flags.end();
    };
    std::vector<std::string> args{serve_executable(),  "serve",    "--port-file",
                                  port_file_.string(), "--tokens", (dir / "tokens").string()};
    if (!given("--port")) args.insert(args.end(), {"--port", "0"});
    if (!given("--journal")) args.insert(args.end(), {"--journal", (dir / "journal").string()});
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<std::string> variables;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (!env.contains(entry.substr(0, entry.find('=')))) variables.push_back(entry);
    }
    for (const auto& [name, value] : env) variables.push_back(name + "=" + value);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    for (auto& v : variables) envp.push_back(v.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    // Its stderr goes to dir/serve.log (log()); a test prints it when it needs to.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // stdout too: a service left running by a test that died must not hold the test's pipe.
    for (int fd : {1, 2})
      posix_spawn_file_actions_addopen(&actions, fd, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                       0600);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // The port once the service listens; 0 after 60 s or when it exited.
  int wait_port() {
    for (int i = 0; i < 600; ++i) {
      if (auto text = util::read_file(port_file_); text && !text->empty()) return std::stoi(*text);
      if (pid_ > 0 && ::waitpid(pid_, &status_, WNOHANG) == pid_) {
        pid_ = -1;
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return 0;
  }
  // A client of the service with the test's token.
  std::unique_ptr<httplib::Client> client(int port) const {
    auto http = std::make_unique<httplib::Client>("127.0.0.1", port);
    http->set_bearer_token_auth(kServeToken);
    http->set_read_timeout(60, 0);
    return http;
  }
  pid_t pid() const { return pid_; }
  std::string log() const {
    auto text = util::read_file(log_);
    return text ? *text : "";
  }
  void signal(int number) const {
    if (pid_ > 0) ::kill(pid_, number);
  }
  // Waits for the exit (SIGKILL after `limit`); the exit status, -1 when it did not exit.
  int wait_exit(std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (pid_ > 0 && ::waitpid(pid_, &status_, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > until) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status_, 0);
        pid_ = -1;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    pid_ = -1;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }
  int terminate() {
    signal(SIGTERM);
    return wait_exit();
  }

 private:
  std::filesystem::path port_file_, log_;
  pid_t pid_ = -1;
  int status_ = 0;
};

// Submits a candidate source; its id ("" when refused).
inline std::string submit_code(httplib::Client& http, const std::string& code,
                               const std::string& source_name = "kernel.cu") {
  const nlohmann::json body{{"task", "gemm_n7168_k5120"},
                            {"arch", "hopper"},
                            {"code", code},
                            {"source_name", source_name}};
  auto submitted = http.Post("/v1/evaluations", body.dump(), "application/json");
  if (!submitted || submitted->status != 202) return "";
  return nlohmann::json::parse(submitted->body).at("id").get<std::string>();
}

// The evaluation's state and record once done (after `limit` as it then is).
inline nlohmann::json poll_done(httplib::Client& http, const std::string& id,
                                std::chrono::seconds limit = std::chrono::seconds(300)) {
  nlohmann::json polled;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto got = http.Get("/v1/evaluations/" + id);
    if (got && got->status == 200) {
      polled = nlohmann::json::parse(got->body);
      if (polled["state"] == "done") break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return polled;
}

inline std::size_t files_in(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

}  // namespace ptxbench::testing
