// The queue: limits refuse instead of dropping, drain leaves queued jobs in the journal, and a
// restarted queue runs each of them exactly once and none that were done.
#include "ptxbench/serve/job_queue.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"
#include "serve_fakes.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;

const std::vector<task::Task>& suite() {
  static const auto loaded = task::load_suite(task::default_tasks_dir());
  return *loaded;
}

Job job(const std::string& text) {
  return {.task = "gemm_n7168_k5120", .arch = arch::Arch::kHopper, .text = text};
}

TEST(JobQueue, RunsAJobAndRecordsItsEvaluation) {
  util::TempDir dir;
  JobJournal journal(dir.path());
  GatedEvaluator evaluator;
  JobQueue queue(journal, suite(), evaluator.function(), {.capacity = 4, .workers = 1});
  auto submitted = queue.submit(job(pass_reply(1.5)), kTrainer);
  ASSERT_EQ(submitted.status, SubmitStatus::kAccepted) << submitted.message;
  auto record = queue.wait_done(submitted.id);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->at("verdict"), "PASSED");
  EXPECT_EQ(journal.state_of(submitted.id), JobState::kDone);
  EXPECT_EQ(queue.find(submitted.id)->client, "trainer");
}

TEST(JobQueue, RefusesAnUnknownTask) {
  util::TempDir dir;
  JobJournal journal(dir.path());
  GatedEvaluator evaluator;
  JobQueue queue(journal, suite(), evaluator.function(), {});
  Job bad = job("x");
  bad.task = "gemm_nope";
  EXPECT_EQ(queue.submit(bad, kTrainer).status, SubmitStatus::kUnknownTask);
}

TEST(JobQueue, AFullQueueAndAClientAtItsLimitAreRefused) {
  util::TempDir dir;
  JobJournal journal(dir.path());
  GatedEvaluator evaluator(false);
  JobQueue queue(journal, suite(), evaluator.function(), {.capacity = 2, .workers = 1});
  ASSERT_EQ(queue.submit(job(pass_reply(1, 1)), kAgent).status, SubmitStatus::kAccepted);
  ASSERT_TRUE(evaluator.wait_started(1));  // running, so the queue holds none yet
  ASSERT_EQ(queue.submit(job(pass_reply(1, 2)), kAgent).status, SubmitStatus::kAccepted);
  EXPECT_EQ(queue.submit(job(pass_reply(1, 3)), kAgent).status, SubmitStatus::kClientLimit);
  ASSERT_EQ(queue.submit(job(pass_reply(1, 4)), kTrainer).status, SubmitStatus::kAccepted);
  EXPECT_EQ(queue.submit(job(pass_reply(1, 5)), kTrainer).status, SubmitStatus::kQueueFull);
  evaluator.open();
}

TEST(JobQueue, DrainFinishesRunningJobsAndKeepsQueuedOnesForTheNextStart) {
  util::TempDir dir;
  GatedEvaluator first(false);
  std::vector<std::string> ids;
  {
    JobJournal journal(dir.path());
    JobQueue queue(journal, suite(), first.function(), {.capacity = 8, .workers = 1});
    for (int i = 0; i < 4; ++i) ids.push_back(queue.submit(job(pass_reply(1, i)), kTrainer).id);
    ASSERT_TRUE(first.wait_started(1));
    std::thread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      first.open();
    });
    queue.drain();
    opener.join();
    EXPECT_EQ(queue.submit(job("late"), kTrainer).status, SubmitStatus::kDraining);
    EXPECT_EQ(journal.state_of(ids[0]), JobState::kDone);
    for (int i = 1; i < 4; ++i) EXPECT_EQ(journal.state_of(ids[i]), JobState::kQueued);
  }
  EXPECT_EQ(first.evaluated().size(), 1u);

  GatedEvaluator second;
  JobJournal journal(dir.path());
  JobQueue queue(journal, suite(), second.function(), {.capacity = 8, .workers = 2});
  for (const auto& id : ids) ASSERT_TRUE(queue.wait_done(id)) << id;
  const auto evaluated = second.evaluated();
  EXPECT_EQ(evaluated.size(), 3u);  // the three left queued, not the one done before
  for (const auto& [text, times] : evaluated) EXPECT_EQ(times, 1) << text;
  EXPECT_EQ(evaluated.count(pass_reply(1, 0)), 0u);
  // A job submitted after the restart gets a fresh id after the recovered ones.
  auto later = queue.submit(job(pass_reply(1, 9)), kTrainer);
  EXPECT_GT(later.id, ids.back());
}

TEST(JobJournal, AJobCaughtRunningByACrashRunsAgainAndAFinishedOneDoesNot) {
  util::TempDir dir;
  JobJournal journal(dir.path());
  Job interrupted = job("interrupted");
  interrupted.id = make_job_id(1);
  interrupted.sequence = 1;
  Job finished = job("finished");
  finished.id = make_job_id(2);
  finished.sequence = 2;
  for (const auto* j : {&interrupted, &finished}) {
    journal.accept(*j);
    journal.start(j->id);
  }
  // A crash between writing the record and removing running/: the record counts.
  util::write_file_atomic(dir.path() / "done" / (finished.id + ".json"),
                          nlohmann::json{{"job", to_json(finished)}, {"record", {}}}.dump());
  util::write_file_atomic(dir.path() / "accepted" / "0000000003-bad.json", "{not json");
  auto recovered = journal.recover();
  ASSERT_EQ(recovered.queued.size(), 1u);
  EXPECT_EQ(recovered.queued[0].id, interrupted.id);
  EXPECT_EQ(recovered.next_sequence, 3u);
  EXPECT_EQ(journal.state_of(finished.id), JobState::kDone);
  ASSERT_EQ(recovered.problems.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "rejected" / "0000000003-bad.json"));
}

// `serve --journal` at a file or a device is the user's mistake, said as such before the
// service starts (not a filesystem exception from the journal's constructor).
TEST(JobJournal, AJournalAtAFileOrDeviceIsRefused) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "file", "x");
  for (const std::filesystem::path& at :
       {dir.path() / "file", std::filesystem::path("/dev/null"), dir.path() / "file" / "journal"}) {
    auto journal = prepare_journal_dir(at);
    ASSERT_FALSE(journal.has_value()) << at;
    EXPECT_EQ(journal.error().message.rfind(at.string() + ": ", 0), 0u) << journal.error().message;
  }
  auto fresh = prepare_journal_dir(dir.path() / "journal");
  ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "journal" / "accepted"));
  util::write_file_atomic(dir.path() / "broken" / "running", "a file where a folder belongs");
  auto broken = prepare_journal_dir(dir.path() / "broken");
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message.find("running"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::serve
