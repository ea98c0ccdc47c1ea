// A function of one candidate as the queue's evaluation stream: it runs on its threads at once,
// each verdict reaches the sink under its candidate's id, a throwing evaluation is the verdict
// INTERNAL_ERROR, and what the source or the sink throws ends the stream with that exception.
#include "ptxbench/serve/stream_evaluation.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "serve_fakes.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;

const task::Task& gemm() {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  return *task::find_task(*suite, "gemm_n7168_k5120");
}

// Yields the candidates of `replies` with ids 10, 11, ... then ends.
eval::CandidateSource source_of(const std::vector<std::string>& replies) {
  auto next = std::make_shared<std::size_t>(0);
  return [replies, next]() -> std::optional<eval::StreamCandidate> {
    if (*next == replies.size()) return std::nullopt;
    const auto i = (*next)++;
    return eval::StreamCandidate{.id = 10 + i, .task = &gemm(), .input = {.text = replies[i]}};
  };
}

TEST(EvaluateEach, RunsOnItsThreadsAtOnceAndSinksEachVerdictUnderItsId) {
  std::atomic<int> running{0}, most{0};
  auto evaluate = [&](const task::Task& task, arch::Arch arch, const eval::CandidateInput& in) {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --running;
    if (in.text == "throw") throw std::runtime_error("the judge broke");
    return fake_evaluate(task, arch, in);
  };
  std::map<std::size_t, std::string> verdicts;
  evaluate_each(evaluate, 3)(source_of({pass_reply(1.5), "throw", pass_reply(2), "no code"}),
                             [&](std::size_t id, const eval::Evaluation& e) {
                               verdicts[id] = std::string(eval::to_string(e.verdict));
                               if (id == 11) {
                                 EXPECT_NE(e.message.find("the judge broke"), e.message.npos);
                               }
                             });
  EXPECT_EQ(verdicts,
            (std::map<std::size_t, std::string>{
                {10, "PASSED"}, {11, "INTERNAL_ERROR"}, {12, "PASSED"}, {13, "NO_CODE"}}));
  EXPECT_EQ(most.load(), 3);
}

TEST(EvaluateEach, WhatTheSinkThrowsEndsTheStream) {
  auto stream = evaluate_each(fake_evaluate, 2);
  EXPECT_THROW(stream(source_of({pass_reply(1), pass_reply(2), pass_reply(3)}),
                      [](std::size_t, const eval::Evaluation&) {
                        throw std::runtime_error("journal: disk full");
                      }),
               std::runtime_error);
}

}  // namespace
}  // namespace ptxbench::serve
