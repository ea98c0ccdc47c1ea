// `ptxbench serve` as a separate process, draining on SIGTERM, with a stand-in nvcc that is
// slow (it logs each call with the candidate's marker and its pid): the evaluation under way
// finishes and is recorded, new submissions get 503 with Retry-After, the queued one stays in
// the journal and runs exactly once after a restart; an evaluation that outlasts
// --drain-timeout is stopped and stays queued. Either way the process exits 0 and leaves no
// child process and no temporary folder.
#include <gtest/gtest.h>

#include <fstream>
#include <utility>
#include <vector>

#include "serve_process.hpp"

namespace ptxbench::serve {
namespace {
namespace fs = std::filesystem;
using namespace ptxbench::testing;
using nlohmann::json;

// A folder with a stand-in `nvcc`: it answers --version, appends "MARKER PID" of the candidate in
// its working directory to `log`, runs `body`, then answers `-M` with an empty rule and fails
// every compile (the candidate's verdict is COMPILE_ERROR, after one call). The tests run with
// --sandbox off: the sandbox's own user may not execute a file in the test's owner-only folder.
fs::path stand_in_nvcc(const fs::path& dir, const fs::path& log, const std::string& body) {
  const auto bin = dir / "bin";
  fs::create_directories(bin);
  util::write_file_atomic(
      bin / "nvcc",
      "#!/bin/sh\n"
      "if [ \"$1\" = --version ]; then echo 'release 13.0'; exit 0; fi\n"
      "echo \"$(grep -o 'job-[0-9]*' candidate.cu | head -1) $$\" >> " +
          log.string() + "\n" + body +
          "for a in \"$@\"; do [ \"$a\" = -M ] && { echo 'candidate.o : candidate.cu'; exit 0; }; "
          "done\n"
          "echo 'candidate.cu(1): error: the stand-in compiles nothing' >&2\nexit 1\n");
  fs::permissions(bin / "nvcc", fs::perms::owner_all);
  return bin;
}

// The log's lines as (marker, pid).
std::vector<std::pair<std::string, pid_t>> calls(const fs::path& log) {
  std::vector<std::pair<std::string, pid_t>> out;
  std::ifstream in(log);
  std::string marker;
  pid_t pid = 0;
  while (in >> marker >> pid) out.emplace_back(marker, pid);
  return out;
}

int calls_for(const fs::path& log, const std::string& marker) {
  int count = 0;
  for (const auto& [m, pid] : calls(log)) count += m == marker;
  return count;
}

// Whether the process still runs (a zombie waiting for its reaper does not), asked for up to
// five seconds: a killed process needs a moment to die.
bool alive(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (pid <= 0 || !(stat >> pid_field >> name >> state) || state == "Z") return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

class ServeDrain : public ::testing::Test {
 protected:
  // The stand-in with `body`, PATH and TMPDIR of the service set to the test's folders.
  std::map<std::string, std::string> environment(const std::string& body) {
    const auto bin = stand_in_nvcc(dir_.path(), log_, body);
    fs::create_directories(tmp_);
    return {{"PATH", bin.string() + ":/usr/bin:/bin"}, {"TMPDIR", tmp_.string()}};
  }
  void expect_nothing_left() {
    for (const auto& [marker, pid] : calls(log_)) EXPECT_FALSE(alive(pid)) << marker;
    EXPECT_TRUE(fs::is_empty(tmp_)) << "a temporary folder was left behind";
    EXPECT_EQ(files_in(journal_ / "running"), 0u);
  }
  util::TempDir dir_;
  fs::path log_ = dir_.path() / "nvcc.log", tmp_ = dir_.path() / "tmp",
           journal_ = dir_.path() / "journal";
  std::vector<std::string> flags_{"--no-gpu", "--workers", "1", "--sandbox", "off"};
};

TEST_F(ServeDrain, SigtermLetsTheEvaluationUnderWayFinishAndKeepsTheQueuedOneForARestart) {
  const auto env = environment("sleep 3\n");
  std::string running_id, queued_id;
  {
    ServeProcess serve(dir_.path(), flags_, env);
    const int port = serve.wait_port();
    ASSERT_GT(port, 0);
    auto http = serve.client(port);
    running_id = submit_code(*http, "int x; // job-1\n");
    queued_id = submit_code(*http, "int x; // job-2\n");
    ASSERT_FALSE(running_id.empty());
    ASSERT_FALSE(queued_id.empty());
    for (int i = 0; i < 300 && calls(log_).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(calls_for(log_, "job-1"), 1) << "the first evaluation never reached nvcc";
    serve.signal(SIGTERM);
    json health = json::object();
    for (int i = 0; i < 100 && health.value("status", "") != "draining"; ++i) {
      auto got = http->Get("/v1/health");
      if (got) health = json::parse(got->body);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(health.value("status", ""), "draining");
    const json late{{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"code", "int y;"}};
    auto refused = http->Post("/v1/evaluations", late.dump(), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 503) << refused->body;
    EXPECT_FALSE(refused->get_header_value("Retry-After").empty());
    EXPECT_EQ(serve.wait_exit(), 0);
  }
  // The evaluation under way was finished and recorded; the queued one never started.
  auto done = util::read_file(journal_ / "done" / (running_id + ".json"));
  ASSERT_TRUE(done.has_value()) << "the evaluation under way was not recorded";
  EXPECT_EQ(json::parse(*done)["record"]["verdict"], "COMPILE_ERROR");
  EXPECT_TRUE(fs::exists(journal_ / "accepted" / (queued_id + ".json")));
  EXPECT_EQ(files_in(journal_ / "done"), 1u);
  const int per_evaluation = calls_for(log_, "job-1");  // nvcc calls of one evaluation
  EXPECT_GE(per_evaluation, 1);
  EXPECT_EQ(calls_for(log_, "job-2"), 0);
  expect_nothing_left();

  {
    ServeProcess serve(dir_.path(), flags_, env);
    const int port = serve.wait_port();
    ASSERT_GT(port, 0);
    auto http = serve.client(port);
    EXPECT_EQ(poll_done(*http, queued_id)["record"]["verdict"], "COMPILE_ERROR");
    EXPECT_EQ(poll_done(*http, running_id)["record"]["verdict"], "COMPILE_ERROR");
    EXPECT_EQ(serve.terminate(), 0);
  }
  EXPECT_EQ(calls_for(log_, "job-1"), per_evaluation) << "the recorded evaluation ran again";
  EXPECT_EQ(calls_for(log_, "job-2"), per_evaluation)
      << "the queued evaluation did not run exactly once";
  EXPECT_EQ(files_in(journal_ / "done"), 2u);
  EXPECT_EQ(files_in(journal_ / "accepted"), 0u);
  expect_nothing_left();
}

// An evaluation that does not finish in time (the drain's bound is over, or a second signal
// came): nvcc, which started a child of its own and waits, is stopped with its whole group, and
// the evaluation stays queued, unrecorded.
struct Impatience {
  const char* name;
  std::vector<std::string> flags;
  int signals;
};

class ServeDrainCutShort : public ServeDrain, public ::testing::WithParamInterface<Impatience> {};

TEST_P(ServeDrainCutShort, StopsTheEvaluationAndKeepsItQueued) {
  const auto env = environment("sleep 300 &\necho \"child $!\" >> " + log_.string() + "\nwait\n");
  flags_.insert(flags_.end(), GetParam().flags.begin(), GetParam().flags.end());
  std::string id;
  {
    ServeProcess serve(dir_.path(), flags_, env);
    const int port = serve.wait_port();
    ASSERT_GT(port, 0);
    auto http = serve.client(port);
    id = submit_code(*http, "int x; // job-1\n");
    ASSERT_FALSE(id.empty());
    for (int i = 0; i < 300 && calls(log_).size() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(calls(log_).size(), 2u) << "nvcc and its child never started";
    const auto start = std::chrono::steady_clock::now();
    serve.signal(SIGTERM);
    if (GetParam().signals == 2) {
      json health = json::object();
      for (int i = 0; i < 100 && health.value("status", "") != "draining"; ++i) {
        if (auto got = http->Get("/v1/health")) health = json::parse(got->body);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      EXPECT_EQ(health.value("status", ""), "draining");
      serve.signal(SIGTERM);
    }
    EXPECT_EQ(serve.wait_exit(), 0);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  }
  EXPECT_TRUE(fs::exists(journal_ / "accepted" / (id + ".json")));
  EXPECT_EQ(files_in(journal_ / "done"), 0u);
  expect_nothing_left();
}

INSTANTIATE_TEST_SUITE_P(ServeDrain, ServeDrainCutShort,
                         ::testing::Values(Impatience{"DrainTimeout", {"--drain-timeout", "1"}, 1},
                                           Impatience{"SecondSignal", {}, 2}),
                         [](const auto& impatience) { return std::string(impatience.param.name); });

}  // namespace
}  // namespace ptxbench::serve
