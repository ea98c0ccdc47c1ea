// `ptxbench serve` evaluates through the same engine and sandbox as `ptxbench eval`: with the
// real nvcc and --no-gpu, the record of a candidate submitted to the service is the line
// `eval --json` prints for the same file, but for the figures that time the run; and the
// default (strict) sandbox keeps a host file out of a compile error sent back to the client.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/prompt/abi_example.hpp"
#include "ptxbench/sandbox/sandboxed_runner.hpp"
#include "serve_process.hpp"

namespace ptxbench::serve {
namespace {
namespace fs = std::filesystem;
using namespace ptxbench::testing;
using nlohmann::json;

// The figures that time the evaluation (when, how long; ptxas's "Compile time = 7.3 ms" in the
// compile log): they differ between any two runs.
json without_timing(json record) {
  record.erase("created_at");
  record.erase("wall_seconds");
  for (auto& stage : record.at("stages")) stage.erase("seconds");
  auto& compile = record.at("compile");
  compile.erase("seconds");
  static const std::regex ptxas_time("Compile time = [0-9.]+ ms");
  compile["log"] = std::regex_replace(compile.at("log").get<std::string>(), ptxas_time,
                                      "Compile time = (timing) ms");
  return record;
}

// `ptxbench eval FILE --json` with `flags`: the one record it prints.
json eval_record(const fs::path& file, const std::vector<std::string>& flags) {
  std::vector<std::string> argv{PTXBENCH_EXE,       "eval",   file.string(), "--task",
                                "gemm_n7168_k5120", "--arch", "hopper",      "--json"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  util::SystemProcessRunner runner;
  auto result = runner.run({.argv = argv, .timeout = std::chrono::seconds(300)});
  EXPECT_TRUE(result.started) << result.describe_end();
  std::istringstream lines(result.stdout_text);
  std::string line;
  std::getline(lines, line);
  auto record = json::parse(line, nullptr, false);
  EXPECT_FALSE(record.is_discarded()) << result.stdout_text << result.stderr_text;
  return record;
}

class ServeRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compile::find_nvcc()) GTEST_SKIP() << "nvcc not installed: the static stages need it";
  }
  util::TempDir dir_;
};

TEST_F(ServeRecord, IsTheRecordOfEvalJsonButForItsTiming) {
  const std::vector<std::pair<std::string, std::string>> candidates{
      {"abi_example.cu", std::string(prompt::abi_example())},  // compiles: INSTRUCTIONS_ABSENT
      {"syntax_error.cu", "__global__ void k() { this is not C++ }\n"}};
  const std::vector<std::string> common{"--no-gpu", "--sandbox", "best-effort"};
  auto flags = common;
  flags.insert(flags.end(), {"--workers", "2"});
  ServeProcess serve(dir_.path(), flags);
  const int port = serve.wait_port();
  ASSERT_GT(port, 0);
  auto http = serve.client(port);
  for (const auto& [name, code] : candidates) {
    const auto file = dir_.path() / name;
    util::write_file_atomic(file, code);
    // The service is told the file's name as its source name, as eval names it.
    const auto id = submit_code(*http, code, file.string());
    ASSERT_FALSE(id.empty()) << name;
    const auto served = poll_done(*http, id);
    ASSERT_EQ(served["state"], "done") << name;
    const auto evaluated = eval_record(file, common);
    EXPECT_NE(evaluated["verdict"], "INTERNAL_ERROR") << evaluated.dump(2);
    EXPECT_EQ(without_timing(served["record"]).dump(2), without_timing(evaluated).dump(2)) << name;
  }
  EXPECT_EQ(serve.terminate(), 0);
}

// With the default sandbox, a submission that includes a host file gets a compile error that
// says the file is not there (the sandbox shows none of /etc) and quotes nothing of it; without
// the sandbox, as root, the include would succeed and the file's lines be compiled and quoted.
TEST_F(ServeRecord, TheStrictSandboxKeepsHostFilesOutOfACompileError) {
  sandbox::SandboxedProcessRunner probe(std::make_shared<util::SystemProcessRunner>(),
                                        sandbox::compiler_policy(sandbox::Mode::kStrict));
  if (!sandbox::complete(probe.support().usable))
    GTEST_SKIP() << "this machine cannot sandbox fully: " << probe.description();
  ServeProcess serve(dir_.path(), {"--no-gpu"});  // --sandbox strict is the default
  const int port = serve.wait_port();
  ASSERT_GT(port, 0) << "ptxbench serve did not start with its default sandbox";
  auto http = serve.client(port);
  for (const std::string host_file : {"/etc/shadow", "/etc/passwd"}) {
    const auto id = submit_code(*http, "#include \"" + host_file + "\"\n");
    ASSERT_FALSE(id.empty());
    const auto record = poll_done(*http, id)["record"];
    EXPECT_EQ(record["verdict"], "COMPILE_ERROR") << record.dump(2);
    EXPECT_EQ(record["sandbox"], "full");
    const auto text = record.dump();
    EXPECT_NE(text.find(host_file + ": No such file or directory"), std::string::npos) << text;
    // No line of the host file (passwd's root line is the same attack, readable by anyone).
    std::ifstream host(host_file);
    for (std::string line; std::getline(host, line);) {
      if (line.size() >= 8) {
        EXPECT_EQ(text.find(line), std::string::npos) << host_file;
      }
    }
    EXPECT_EQ(text.find("root:x:0:0"), std::string::npos);
  }
  EXPECT_EQ(serve.terminate(), 0);
}

}  // namespace
}  // namespace ptxbench::serve
