#include "ptxbench/model/replay_provider.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::model {
namespace {

namespace fs = std::filesystem;

CallContext context_for(int turn, std::string id = "m__t__hopper__none__s0") {
  return CallContext{.trajectory_id = std::move(id),
                     .task = "t",
                     .arch = "hopper",
                     .context_level = "none",
                     .sample = 0,
                     .turn = turn};
}

TEST(ReplayBook, MostSpecificKeyWins) {
  ReplayBook book;
  book.add("*", {{.content = "any"}});
  book.add("t", {{.content = "task"}});
  book.add("t__hopper", {{.content = "task-arch"}});
  book.add("m__t__hopper__none__s0", {{.content = "exact"}});
  EXPECT_EQ(book.find(context_for(1))->front().content, "exact");
  EXPECT_EQ(book.find(context_for(1, "other__t__hopper__none__s0"))->front().content, "task-arch");
  CallContext blackwell = context_for(1, "x");
  blackwell.arch = "blackwell";
  EXPECT_EQ(book.find(blackwell)->front().content, "task");
  CallContext other_task = context_for(1, "x");
  other_task.task = "u";
  EXPECT_EQ(book.find(other_task)->front().content, "any");
}

TEST(ReplayProvider, RepliesPerTurnThenIsExhausted) {
  ReplayBook book;
  book.add("t", {{.content = "one", .source = "a.md"}, {.content = "two"}});
  ReplayProvider provider(std::move(book));
  auto first = provider.complete({}, context_for(1));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.reply().content, "one");
  EXPECT_EQ(first.reply().source, "a.md");
  EXPECT_EQ(provider.complete({}, context_for(2)).reply().content, "two");
  auto third = provider.complete({}, context_for(3));
  ASSERT_FALSE(third.ok());
  EXPECT_TRUE(third.error().exhausted);
  CallContext unknown = context_for(1, "x");
  unknown.task = "nothing";
  EXPECT_TRUE(provider.complete({}, unknown).error().exhausted);
}

TEST(ReplayBook, LoadsDirectoryLayouts) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "turn-1.md", "shared one");
  util::write_file_atomic(dir.path() / "t__hopper" / "turn-1.md", "th1");
  util::write_file_atomic(dir.path() / "t__hopper" / "turn-2.md", "th2");
  util::write_file_atomic(dir.path() / "t__hopper" / ".turn-2.json", "{}");  // hidden: ignored
  util::write_file_atomic(dir.path() / "u.cu", "__global__ void k() {}");
  auto book = load_replay_book(dir.path());
  ASSERT_TRUE(book) << book.error().message;
  EXPECT_EQ(book->size(), 3u);
  const auto& turns = book->entries().at("t__hopper");
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[1].content, "th2");
  EXPECT_EQ(book->entries().at("*").front().content, "shared one");
  EXPECT_EQ(book->entries().at("u").front().content, "```cuda\n__global__ void k() {}\n```\n");
}

TEST(ReplayBook, ReadsARunDirectorysResponses) {
  util::TempDir run;
  util::write_file_atomic(run.path() / "run.json", "{}");
  util::write_file_atomic(run.path() / "responses" / "m__t__hopper__none__s0" / "turn-1.md", "r1");
  auto book = load_replay_book(run.path());
  ASSERT_TRUE(book) << book.error().message;
  EXPECT_EQ(book->find(context_for(1))->front().content, "r1");
}

TEST(ReplayBook, ReportsGapsMissingAndEmpty) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "k" / "turn-2.md", "two");
  auto gap = load_replay_book(dir.path());
  ASSERT_FALSE(gap);
  EXPECT_NE(gap.error().message.find("turn-1 missing"), std::string::npos);
  EXPECT_FALSE(load_replay_book(dir.path() / "absent"));
  util::TempDir empty;
  EXPECT_FALSE(load_replay_book(empty.path()));
}

TEST(ReplayBook, OneFileRepliesToEveryTrajectory) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "reply.md", "hello");
  auto book = load_replay_book(dir.path() / "reply.md");
  ASSERT_TRUE(book);
  EXPECT_EQ(book->find(context_for(1, "anything"))->front().content, "hello");
}

}  // namespace
}  // namespace ptxbench::model
