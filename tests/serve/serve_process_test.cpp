// `ptxbench serve --no-gpu` as a separate process: SIGTERM while the second of three
// evaluations compiles exits 0 with the first recorded and the other two (the one stopped
// under way included) accepted in the journal; the next start runs exactly those two, and the
// first is not run again.
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/util/fs.hpp"

extern char** environ;

namespace ptxbench::serve {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
constexpr const char* kToken = "process-test-token-0123456789";

// The service process; killed (SIGKILL) if a test leaves it running.
class ServeProcess {
 public:
  ServeProcess(const fs::path& dir) : port_file_(dir / "port") {
    fs::remove(port_file_);
    std::vector<std::string> args{PTXBENCH_EXE,
                                  "serve",
                                  "--no-gpu",
                                  "--workers",
                                  "1",
                                  "--port",
                                  "0",
                                  "--port-file",
                                  port_file_.string(),
                                  "--journal",
                                  (dir / "journal").string(),
                                  "--tokens",
                                  (dir / "tokens").string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // The port once the service listens, 0 after 60 s.
  int wait_port() const {
    for (int i = 0; i < 600; ++i) {
      if (auto text = util::read_file(port_file_); text && !text->empty()) return std::stoi(*text);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return 0;
  }
  // SIGTERM, then the exit status (-1 when it did not exit normally).
  int terminate() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  fs::path port_file_;
  pid_t pid_ = -1;
};

std::size_t files_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(ServeProcess, SigtermDrainsAndARestartRunsWhatStayedQueuedOnce) {
  if (!compile::find_nvcc()) GTEST_SKIP() << "nvcc not installed: the static stages need it";
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "tokens", std::string("tester ") + kToken + " 8\n");
  const auto journal = dir.path() / "journal";
  std::vector<std::string> ids;
  {
    ServeProcess serve(dir.path());
    const int port = serve.wait_port();
    ASSERT_GT(port, 0);
    httplib::Client http("127.0.0.1", port);
    http.set_bearer_token_auth(kToken);
    for (int i = 0; i < 3; ++i) {
      const json body{
          {"task", "gemm_n7168_k5120"},
          {"arch", "hopper"},
          {"code", std::string(prompt::abi_example()) + "\n// copy " + std::to_string(i)}};
      auto submitted = http.Post("/v1/evaluations", body.dump(), "application/json");
      ASSERT_TRUE(submitted);
      ASSERT_EQ(submitted->status, 202) << submitted->body;
      ids.push_back(json::parse(submitted->body)["id"]);
    }
    // Wait until the first is done and the second is being compiled, then stop the service.
    for (int i = 0;
         i < 6000 && !(files_in(journal / "done") == 1 && files_in(journal / "running") == 1); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(files_in(journal / "done"), 1u);
    EXPECT_EQ(serve.terminate(), 0);
  }
  EXPECT_EQ(files_in(journal / "running"), 0u);
  EXPECT_EQ(files_in(journal / "done"), 1u);      // the first, recorded
  EXPECT_EQ(files_in(journal / "accepted"), 2u);  // the stopped second and the third
  const auto first_done = util::read_file(journal / "done" / (ids[0] + ".json"));
  ASSERT_TRUE(first_done.has_value());

  ServeProcess serve(dir.path());
  const int port = serve.wait_port();
  ASSERT_GT(port, 0);
  httplib::Client http("127.0.0.1", port);
  http.set_bearer_token_auth(kToken);
  for (const auto& id : ids) {
    json polled;
    for (int i = 0; i < 1200; ++i) {
      polled = json::parse(http.Get(("/v1/evaluations/" + id).c_str())->body);
      if (polled["state"] == "done") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(polled["state"], "done") << id;
    EXPECT_EQ(polled["record"]["verdict"], "NOT_RUN") << polled.dump(2);
  }
  EXPECT_EQ(files_in(journal / "done"), 3u);
  EXPECT_EQ(files_in(journal / "accepted"), 0u);
  // The job done before the restart was not run again: its record is byte for byte the same.
  EXPECT_EQ(*util::read_file(journal / "done" / (ids[0] + ".json")), *first_done);
  EXPECT_EQ(serve.terminate(), 0);
}

}  // namespace
}  // namespace ptxbench::serve
