#include "ptxbench/eval/worker/worker_client.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace ptxbench::eval::worker {
namespace {

util::ProcessResult finished(std::string stdout_text, int exit_code = 0, int signal = 0) {
  util::ProcessResult r;
  r.started = true;
  r.exit_code = exit_code;
  r.term_signal = signal;
  r.stdout_text = std::move(stdout_text);
  r.wall = std::chrono::milliseconds(1500);
  return r;
}

WorkerCall untrusted() {
  return WorkerCall{.mode = "candidate", .trust = Trust::kUntrusted};
}
WorkerCall trusted() {
  return WorkerCall{.mode = "judge", .trust = Trust::kTrusted};
}

TEST(WorkerClient, OkReply) {
  auto outcome = judge_worker_process(finished(format_reply(ReplyStatus::kOk, "")), untrusted());
  EXPECT_TRUE(outcome.ok());
  ASSERT_TRUE(outcome.reply.has_value());
  EXPECT_DOUBLE_EQ(outcome.seconds, 1.5);
}

TEST(WorkerClient, CrashOfTheCandidateIsARuntimeError) {
  auto r = finished("partial output", -1, SIGSEGV);
  r.stderr_text = "line one\nSegmentation fault\n";
  auto outcome = judge_worker_process(r, untrusted());
  EXPECT_EQ(outcome.verdict, Verdict::kRuntimeError);
  EXPECT_NE(outcome.message.find("signal"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("Segmentation fault"), std::string::npos) << outcome.message;
}

TEST(WorkerClient, CrashOfTrustedCodeIsOurs) {
  auto outcome = judge_worker_process(finished("", -1, SIGSEGV), trusted());
  EXPECT_EQ(outcome.verdict, Verdict::kInternalError);
}

TEST(WorkerClient, DeadlineIsATimeoutForTheCandidate) {
  auto r = finished("");
  r.timed_out = true;
  EXPECT_EQ(judge_worker_process(r, untrusted()).verdict, Verdict::kTimeout);
  EXPECT_EQ(judge_worker_process(r, trusted()).verdict, Verdict::kInternalError);
}

TEST(WorkerClient, ExitWithoutReplyOrGarbage) {
  auto quiet = judge_worker_process(finished("", 0), untrusted());
  EXPECT_EQ(quiet.verdict, Verdict::kRuntimeError);
  EXPECT_NE(quiet.message.find("without a reply"), std::string::npos) << quiet.message;
  auto garbage = judge_worker_process(finished("\x01\x02 PTXBENCH-WORKER-REPLY {"), untrusted());
  EXPECT_EQ(garbage.verdict, Verdict::kRuntimeError);
}

TEST(WorkerClient, ReplyStatusesMapToVerdicts) {
  EXPECT_EQ(judge_worker_process(finished(format_reply(ReplyStatus::kRuntimeError, "raised: boom")),
                                 untrusted())
                .verdict,
            Verdict::kRuntimeError);
  EXPECT_EQ(judge_worker_process(finished(format_reply(ReplyStatus::kTimeout, "slow")), untrusted())
                .verdict,
            Verdict::kTimeout);
  EXPECT_EQ(
      judge_worker_process(finished(format_reply(ReplyStatus::kForbidden, "nvjet")), untrusted())
          .verdict,
      Verdict::kForbidden);
  // A trusted process cannot blame the candidate.
  EXPECT_EQ(judge_worker_process(finished(format_reply(ReplyStatus::kRuntimeError, "x")), trusted())
                .verdict,
            Verdict::kInternalError);
  auto message =
      judge_worker_process(finished(format_reply(ReplyStatus::kRuntimeError, "raised: boom")),
                           untrusted())
          .message;
  EXPECT_EQ(message, "raised: boom");
}

TEST(WorkerClient, NotStarted) {
  util::ProcessResult r;
  r.spawn_error = "no such file";
  auto outcome = judge_worker_process(r, untrusted());
  EXPECT_EQ(outcome.verdict, Verdict::kInternalError);
  EXPECT_NE(outcome.message.find("no such file"), std::string::npos);
}

TEST(WorkerClient, StderrTailKeepsTheLastLines) {
  util::ProcessResult r;
  r.stderr_text = "1\n2\n3\n4\n5\n6\n7\n8\n";
  EXPECT_EQ(stderr_tail(r, 3), "6\n7\n8");
  r.stderr_text = "";
  EXPECT_EQ(stderr_tail(r), "");
}

}  // namespace
}  // namespace ptxbench::eval::worker
