// The GPU side of the hostile suite: each attack as a real candidate through `ptxbench eval
// --sandbox strict` on the GPU, followed in the same invocation by an honest candidate. For
// each: the judge survives (a normal exit with JSON), the attack gets a failing verdict, the
// honest one passes, the secret of the judge's environment appears nowhere, and nothing is left
// on the host (files in /tmp, /var/tmp, $HOME; processes of the worker).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::sandbox {
namespace {

namespace fs = std::filesystem;
constexpr const char* kSecret = "sk-ptxbench-fake-api-key-gpu-0123456789";

// Workers and the bwrap processes that hold them: a process whose program (argv[0]) is
// ptxbench-worker, or a bwrap whose command line runs one. Any other command line that merely
// names the worker (the GPU scripts' `timeout ... worker=.../ptxbench-worker ...`) is not one.
int workers_alive() {
  int alive = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), {});
    const std::string program = fs::path(text.substr(0, text.find('\0'))).filename().string();
    if (program == "ptxbench-worker" ||
        (program == "bwrap" && text.find("ptxbench-worker") != std::string::npos))
      ++alive;
  }
  return alive;
}

class GpuHostileCandidate : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuHostileCandidate, FailsAndLeavesTheHostAsItWas) {
  const std::string attack = GetParam();
  util::TempDir dir("ptxbench-gpu-hostile-");
  std::ifstream source(std::string(PTXBENCH_TEST_DATA_DIR) + "/gpu/gemm_hostile.cu");
  const std::string body((std::istreambuf_iterator<char>(source)), {});
  const auto hostile = dir.path() / ("hostile_" + attack + ".cu");
  util::write_file_atomic(hostile, "#define HOSTILE_" + attack + "\n" + body);
  for (const char* path :
       {"/tmp/ptxbench_pwned", "/var/tmp/ptxbench_pwned", "/root/.ptxbench_pwned"})
    fs::remove(path);

  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(47613);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool listening = ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                         ::listen(listener, 4) == 0;

  util::SystemProcessRunner runner;
  auto r = runner.run(
      {.argv = {PTXBENCH_CLI_PATH, "eval", hostile.string(), PTXBENCH_HONEST_CANDIDATE, "--task",
                "gemm_n7168_k5120", "--arch", "hopper", "--json", "--sandbox", "strict"},
       .timeout = std::chrono::minutes(8),
       .env = {{"PTXBENCH_FAKE_API_KEY", kSecret}}});
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.term_signal, 0) << "the judge was killed: " << r.describe_end();
  EXPECT_EQ(r.stdout_text.find(kSecret), std::string::npos);
  EXPECT_EQ(r.stderr_text.find(kSecret), std::string::npos);
  // `--json` writes JSON Lines, one record per candidate in the order verdicts complete.
  nlohmann::json hostile_record, honest_record;
  std::istringstream lines(r.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    auto record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.contains("source_name")) continue;
    const auto name = record.at("source_name").get<std::string>();
    (name == hostile.string() ? hostile_record : honest_record) = record;
  }
  ASSERT_TRUE(hostile_record.is_object()) << r.stderr_text << r.stdout_text;
  ASSERT_TRUE(honest_record.is_object()) << r.stderr_text << r.stdout_text;
  EXPECT_NE(hostile_record.at("verdict"), "PASSED") << hostile_record.dump(2);
  EXPECT_EQ(hostile_record.at("sandbox"), "full");
  EXPECT_EQ(honest_record.at("verdict"), "PASSED") << honest_record.dump(2);

  if (listening) {
    ::fcntl(listener, F_SETFL, O_NONBLOCK);
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0) << "the candidate reached the judge's port";
  }
  ::close(listener);
  for (const char* path :
       {"/tmp/ptxbench_pwned", "/var/tmp/ptxbench_pwned", "/root/.ptxbench_pwned", "/tmp/fill0"})
    EXPECT_FALSE(fs::exists(path)) << path;
  // Counts every ptxbench-worker of the machine: run this suite alone on the GPU.
  EXPECT_EQ(workers_alive(), 0);
}

INSTANTIATE_TEST_SUITE_P(Attacks, GpuHostileCandidate,
                         ::testing::Values("KILL_PARENT", "OUTLIVE", "WRITE_OUTSIDE",
                                           "READ_SECRETS", "PTRACE", "SOCKET", "FORK_BOMB",
                                           "FILL_DISK", "SPIN_AFTER_RETURN"));

}  // namespace
}  // namespace ptxbench::sandbox
