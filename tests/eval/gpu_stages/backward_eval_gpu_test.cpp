// GPU test: the attention backward task through `ptxbench eval`, as a model's reply goes. The
// worker derives O and LSE with cuDNN's forward before run(); those library kernels (and what the
// sanitizer reports inside them) are not the candidate's. An honest naive backward is judged on
// its own merits at the core task's shape (B=4, H=48, D=128; the smallest workload, which the
// sanitizer runs, and the headline S4096); the same candidate calling cuDNN itself is FORBIDDEN.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A suite holding mha_bwd_d128 as the repository has it, its workloads cut to the smallest and
// the headline (the others add minutes of a naive kernel and no new case).
fs::path core_backward_suite(const fs::path& root) {
  auto text = util::read_file(fs::path(PTXBENCH_TASKS_DIR) / "mha_bwd" / "mha_bwd_d128.json");
  EXPECT_TRUE(text.has_value()) << (text ? "" : text.error().message);
  // ordered_json: the order of the inputs is the order of run()'s arguments (json sorts keys).
  auto task = nlohmann::ordered_json::parse(text ? *text : std::string("{\"workloads\": []}"));
  auto kept = nlohmann::ordered_json::array();
  for (const auto& w : task.at("workloads")) {
    if (w.at("name") == "S512" || w.value("headline", false)) kept.push_back(w);
  }
  EXPECT_EQ(kept.size(), 2u);
  task["workloads"] = kept;
  fs::create_directories(root / "mha_bwd");
  util::write_file_atomic(root / "mha_bwd" / "mha_bwd_d128.json", task.dump(2));
  return root;
}

json evaluate(const std::string& candidate, const fs::path& suite) {
  util::SystemProcessRunner runner;
  util::ProcessSpec spec;
  spec.argv = {PTXBENCH_CLI_PATH,
               "eval",
               (fs::path(PTXBENCH_EVAL_CANDIDATE_DIR) / candidate).string(),
               "--task",
               "mha_bwd_d128",
               "--arch",
               "hopper",
               "--tasks-dir",
               suite.string(),
               "--json"};
  spec.timeout = std::chrono::minutes(15);
  const util::ProcessResult result = runner.run(spec);
  EXPECT_TRUE(result.started) << result.spawn_error;
  std::printf("%s: %s\n%s\n", candidate.c_str(), result.describe_end().c_str(),
              result.stderr_text.c_str());
  for (std::string_view rest = result.stdout_text; !rest.empty();) {
    const auto end = rest.find('\n');
    const auto line = json::parse(rest.substr(0, end), nullptr, /*allow_exceptions=*/false);
    if (line.is_object() && line.contains("verdict")) return line;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  ADD_FAILURE() << "no verdict from ptxbench eval\nstdout:\n" << result.stdout_text;
  return json::object();
}

std::string stage_status(const json& record, const std::string& stage) {
  for (const auto& s : record.value("stages", json::array())) {
    if (s.value("stage", "") == stage) return s.value("status", "");
  }
  return "";
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

TEST(BackwardThroughEval, AnHonestCandidateIsJudgedOnItsOwnMeritsAndACudnnCallIsForbidden) {
  util::TempDir dir;
  const fs::path suite = core_backward_suite(dir.path() / "tasks");

  const json honest = evaluate("attention_bwd.cu", suite);
  const std::string verdict = honest.value("verdict", "");
  if (verdict == "NOT_RUN") GTEST_SKIP() << "no Hopper GPU here: " << honest.value("message", "");
  std::printf("attention_bwd.cu -> %s: %s\n", verdict.c_str(), honest.value("message", "").c_str());
  EXPECT_NE(verdict, "FORBIDDEN") << honest.dump(2);
  EXPECT_EQ(lower(honest.value("message", "")).find("cudnn"), std::string::npos)
      << "the verdict blames cuDNN's kernels on the candidate: " << honest.value("message", "");
  EXPECT_NE(stage_status(honest, "sanitize"), "failed") << honest.dump(2);
  // A naive kernel may fall short of the requested tensor-core families, nothing else.
  EXPECT_TRUE(verdict == "PASSED" || verdict == "INSTRUCTIONS_NOT_EXECUTED") << honest.dump(2);
  EXPECT_EQ(stage_status(honest, "correctness"), "passed") << honest.dump(2);

  const json library = evaluate("attention_bwd_cudnn.cu", suite);
  EXPECT_EQ(library.value("verdict", ""), "FORBIDDEN") << library.dump(2);
}

}  // namespace
}  // namespace ptxbench::eval
