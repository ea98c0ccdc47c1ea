// The provider reference of `run --help` against the code it describes: every documented replay
// key and layout is found by the replay loader, every key the loader tries is documented, and the
// `command` protocol rows name exactly what CommandProvider sends.
#include "ptxbench/cli/provider_help.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "ptxbench/model/command_provider.hpp"
#include "ptxbench/model/replay_provider.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::cli {
namespace {
using ::testing::HasSubstr;

const model::CallContext kCall{.trajectory_id = "me__gemm_a__hopper__isa__s2",
                               .task = "gemm_a",
                               .arch = "hopper",
                               .context_level = "isa",
                               .sample = 2,
                               .turn = 1};

// A documented pattern with kCall's values in its placeholders.
std::string instantiate(std::string pattern) {
  const std::pair<std::string, std::string> values[] = {{"<trajectory-id>", kCall.trajectory_id},
                                                        {"<task>", kCall.task},
                                                        {"<arch>", kCall.arch},
                                                        {"<context>", kCall.context_level},
                                                        {"<sample>", std::to_string(kCall.sample)}};
  for (const auto& [placeholder, value] : values) {
    for (auto at = pattern.find(placeholder); at != std::string::npos;
         at = pattern.find(placeholder))
      pattern.replace(at, placeholder.size(), value);
  }
  return pattern;
}

TEST(ProviderHelp, ReplayKeysAreTheLoadersKeysInItsOrder) {
  std::vector<std::string> documented;
  for (auto pattern : replay_key_patterns())
    documented.push_back(instantiate(std::string(pattern)));
  EXPECT_EQ(documented, model::replay_keys(kCall));
}

TEST(ProviderHelp, EveryDocumentedKeyFileIsFoundByTheLoader) {
  for (auto pattern : replay_key_patterns()) {
    if (pattern == "*") continue;
    util::TempDir dir;
    const std::string key = instantiate(std::string(pattern));
    util::write_file_atomic(dir.path() / (key + ".md"), "reply for " + key);
    auto book = model::load_replay_book(dir.path());
    ASSERT_TRUE(book.has_value()) << book.error().message;
    const auto* replies = book->find(kCall);
    ASSERT_NE(replies, nullptr) << pattern;
    EXPECT_EQ(replies->front().content, "reply for " + key);
  }
}

TEST(ProviderHelp, EveryDocumentedLayoutLoads) {
  const auto layouts = replay_layouts();
  auto documented = [&](std::string_view what) {
    return std::any_of(layouts.begin(), layouts.end(),
                       [&](const HelpRow& row) { return row.what == what; });
  };
  util::TempDir root;
  ASSERT_TRUE(documented("FILE"));
  util::write_file_atomic(root.path() / "one.md", "one");
  auto file = model::load_replay_book(root.path() / "one.md");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->find(kCall)->front().content, "one");

  ASSERT_TRUE(documented("DIR/<key>/turn-N.md"));
  util::write_file_atomic(root.path() / "dir" / "gemm_a" / "turn-1.md", "t1");
  util::write_file_atomic(root.path() / "dir" / "gemm_a" / "turn-2.md", "t2");
  auto turns = model::load_replay_book(root.path() / "dir");
  ASSERT_TRUE(turns.has_value()) << turns.error().message;
  ASSERT_EQ(turns->find(kCall)->size(), 2u);

  ASSERT_TRUE(documented("DIR/turn-N.md"));
  util::write_file_atomic(root.path() / "shared" / "turn-1.md", "s1");
  auto shared = model::load_replay_book(root.path() / "shared");
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->find(kCall)->front().content, "s1");

  ASSERT_TRUE(documented("RUN_DIR"));
  util::write_file_atomic(root.path() / "run" / "responses" / kCall.trajectory_id / "turn-1.md",
                          "r1");
  auto run = model::load_replay_book(root.path() / "run");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->find(kCall)->front().content, "r1");

  ASSERT_TRUE(documented(".cu, .cuh"));
  util::write_file_atomic(root.path() / "code" / "gemm_a.cu", "void run() {}");
  auto code = model::load_replay_book(root.path() / "code");
  ASSERT_TRUE(code.has_value());
  EXPECT_THAT(code->find(kCall)->front().content, HasSubstr("```cuda\nvoid run() {}"));
}

// Records what the provider asked for instead of running anything.
class RecordingRunner final : public util::ProcessRunner {
 public:
  util::ProcessSpec seen;
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    seen = spec;
    return {.started = true, .exit_code = 0, .stdout_text = "reply"};
  }
};

TEST(ProviderHelp, CommandProtocolNamesWhatTheProviderSends) {
  auto runner = std::make_shared<RecordingRunner>();
  model::ProviderConfig config{.name = "me", .kind = model::ProviderKind::kCommand};
  config.command = {"agent"};
  model::CommandProvider provider(config, runner);
  ASSERT_TRUE(provider.complete({{"user", "u"}}, kCall).ok());

  const auto protocol = command_protocol();
  std::vector<std::string> documented_env;
  std::string stdin_row;
  for (const auto& row : protocol) {
    if (row.what.starts_with("PTXBENCH_")) documented_env.emplace_back(row.what);
    if (row.what == "stdin") stdin_row = row.meaning;
  }
  std::vector<std::string> sent_env;
  for (const auto& [name, value] : runner->seen.env) sent_env.push_back(name);
  std::sort(documented_env.begin(), documented_env.end());
  std::sort(sent_env.begin(), sent_env.end());
  EXPECT_EQ(documented_env, sent_env);

  ASSERT_TRUE(runner->seen.stdin_text.has_value());
  auto request = nlohmann::json::parse(*runner->seen.stdin_text);
  for (const auto& [field, value] : request.items()) {
    EXPECT_THAT(stdin_row, HasSubstr("\"" + field + "\"")) << field;
    if (!value.is_object()) continue;
    for (const auto& [inner, ignored] : value.items())
      EXPECT_THAT(stdin_row, HasSubstr("\"" + inner + "\"")) << field << "." << inner;
  }
}

TEST(ProviderHelp, TheFooterHoldsEveryRow) {
  const std::string help = providers_help();
  for (const auto& row : replay_layouts()) EXPECT_THAT(help, HasSubstr(std::string(row.what)));
  for (const auto& row : command_protocol()) EXPECT_THAT(help, HasSubstr(std::string(row.what)));
  for (auto key : replay_key_patterns()) EXPECT_THAT(help, HasSubstr(std::string(key)));
}

}  // namespace
}  // namespace ptxbench::cli
