// Metric computations on hand-made trajectory sets with answers worked out by hand.
#include "ptxbench/report/metrics.hpp"

#include <gtest/gtest.h>

#include "trajectory_builder.hpp"

namespace ptxbench::report {
namespace {
using eval::Verdict;
using testing::fails;
using testing::passed;
using testing::TrajectorySpec;
using testing::TurnSpec;

class Set {
 public:
  Set& add(TrajectorySpec spec) {
    spec.sample = static_cast<int>(records_.size());
    records_.push_back(record_of(testing::make_trajectory(spec)));
    return *this;
  }
  TrajectorySet view() const {
    TrajectorySet set;
    for (const auto& r : records_) set.push_back(&r);
    return set;
  }

 private:
  std::vector<TrajectoryRecord> records_;
};

const BootstrapSettings kBootstrap{.resamples = 400, .seed = 3};

TEST(Metrics, ZeroTrajectories) {
  const auto m = metrics_at({}, 4, kBootstrap);
  EXPECT_EQ(m.trajectories, 0);
  EXPECT_FALSE(m.correct.rate());
  EXPECT_FALSE(m.correct.interval());
  EXPECT_TRUE(m.best_speedups.empty());
  EXPECT_FALSE(m.median_speedup.value);
  EXPECT_FALSE(m.max_speedup.value);
  EXPECT_EQ(last_turn({}), 0);
  const auto b = breakdown_at_turn({}, 1, Prices{});
  EXPECT_EQ(b.trajectories, 0);
  EXPECT_EQ(b.turns, 0);
}

TEST(Metrics, AllFailures) {
  Set set;
  set.add({.turns = {fails(Verdict::kNoCode), fails(Verdict::kCompileError)}})
      .add({.turns = {fails(Verdict::kIncorrectNumerical), fails(Verdict::kRuntimeError)}})
      .add({.turns = {fails(Verdict::kNoCode), fails(Verdict::kCompileError),
                      fails(Verdict::kTimeout)}});
  const auto m = metrics_at(set.view(), 8, kBootstrap);
  EXPECT_EQ(m.correct.k, 0);
  EXPECT_EQ(m.correct.n, 3);
  EXPECT_EQ(m.not_measured, 0);
  EXPECT_DOUBLE_EQ(*m.correct.rate(), 0.0);
  EXPECT_NEAR(m.correct.interval()->hi, 0.5615, 1e-4);  // Wilson 0/3
  EXPECT_EQ(m.verified.k, 0);
  EXPECT_EQ(m.verified_any.k, 0);
  EXPECT_EQ(m.compiled.k, 2);  // the second and third compiled, the first never did
  for (const auto& f : m.fast) EXPECT_EQ(f.k, 0);
  EXPECT_TRUE(m.best_speedups.empty());
}

// The best fraction of the speed of light per trajectory comes from its correct turns only; a
// trajectory without any bounded correct turn adds nothing.
TEST(Metrics, SpeedOfLightIsTheBestCorrectTurnsFraction) {
  TurnSpec bounded = passed(1.2);
  bounded.speed_of_light = 0.3;
  TurnSpec better = passed(0.9);  // slower than the baseline but nearer the bound
  better.speed_of_light = 0.5;
  TurnSpec wrong = fails(Verdict::kIncorrectNumerical);
  wrong.speed_of_light = 0.9;
  Set set;
  set.add({.turns = {bounded, better}})
      .add({.turns = {wrong, bounded}})
      .add({.turns = {passed(2)}});
  const auto t1 = metrics_at(set.view(), 1, kBootstrap);
  EXPECT_EQ(t1.best_speed_of_light, (std::vector<double>{0.3}));
  const auto t2 = metrics_at(set.view(), 2, kBootstrap);
  EXPECT_EQ(t2.best_speed_of_light, (std::vector<double>{0.3, 0.5}));
  ASSERT_TRUE(t2.median_speed_of_light.value);
  EXPECT_DOUBLE_EQ(*t2.median_speed_of_light.value, 0.4);
  EXPECT_FALSE(metrics_at({}, 2, kBootstrap).median_speed_of_light.value);
}

// NOT_RUN says nothing about correctness: such a trajectory is in no rate but compiled until a
// turn of it is correct.
TEST(Metrics, NotRunIsNotMeasuredNeverIncorrect) {
  Set set;
  set.add({.turns = {fails(Verdict::kNotRun), fails(Verdict::kNotRun)}})
      .add({.turns = {fails(Verdict::kCompileError), fails(Verdict::kCompileError)}})
      .add({.turns = {fails(Verdict::kNotRun), passed(1.5)}});
  const auto t1 = metrics_at(set.view(), 1, kBootstrap);
  EXPECT_EQ(t1.not_measured, 2);
  EXPECT_EQ(t1.compiled.k, 2);
  EXPECT_EQ(t1.compiled.n, 3);
  EXPECT_EQ(t1.correct.k, 0);
  EXPECT_EQ(t1.correct.n, 1);  // only the compile-error trajectory was measured
  EXPECT_EQ(t1.verified.n, 1);
  EXPECT_EQ(t1.fast[0].n, 1);
  const auto t2 = metrics_at(set.view(), 2, kBootstrap);
  EXPECT_EQ(t2.not_measured, 1);
  EXPECT_EQ(t2.correct.k, 1);
  EXPECT_EQ(t2.correct.n, 2);
  EXPECT_FALSE(state_within(*set.view()[0], 2).measured);
  EXPECT_TRUE(state_within(*set.view()[2], 2).measured);

  // A judged failure followed by NOT_RUN keeps the judged state at later limits (carried),
  // instead of turning from "not correct" at t=1 into "not measured" at t=2.
  Set judged_then_not_run;
  judged_then_not_run.add(
      {.turns = {fails(Verdict::kIncorrectNumerical), fails(Verdict::kNotRun)}});
  const auto judged_t1 = metrics_at(judged_then_not_run.view(), 1, kBootstrap);
  const auto judged_t2 = metrics_at(judged_then_not_run.view(), 2, kBootstrap);
  EXPECT_EQ(judged_t1.not_measured, 0);
  EXPECT_EQ(judged_t1.carried, 0);
  EXPECT_EQ(judged_t2.not_measured, 0);
  EXPECT_EQ(judged_t2.carried, 1);
  EXPECT_EQ(judged_t2.correct.n, 1);
  EXPECT_EQ(judged_t2.correct.k, 0);

  Set only_not_run;
  only_not_run.add({.turns = {fails(Verdict::kNotRun)}});
  const auto none = metrics_at(only_not_run.view(), 1, kBootstrap);
  EXPECT_EQ(none.correct.n, 0);
  EXPECT_FALSE(none.correct.rate());  // not 0%
}

// INSTRUCTIONS_ABSENT on a GPU (a host-only run(): no device code) is a final verdict and counts
// in every denominator; only the same verdict decided where the GPU stages could not run leaves
// them, and not_measured says how many did.
TEST(Metrics, InstructionsAbsentOnAGpuIsJudged) {
  TurnSpec host_only = fails(Verdict::kInstructionsAbsent);
  TurnSpec absent_without_gpu = fails(Verdict::kInstructionsAbsent);
  absent_without_gpu.gpu = false;
  Set set;
  set.add({.turns = {passed(1.5)}}).add({.turns = {host_only}});
  const auto on_gpu = metrics_at(set.view(), 1, kBootstrap);
  EXPECT_EQ(on_gpu.not_measured, 0);
  EXPECT_EQ(on_gpu.correct.k, 1);
  EXPECT_EQ(on_gpu.correct.n, 2);
  EXPECT_EQ(on_gpu.verified.n, 2);
  EXPECT_EQ(on_gpu.verified_any.n, 2);
  for (const auto& f : on_gpu.fast) EXPECT_EQ(f.n, 2);
  EXPECT_TRUE(state_within(*set.view()[1], 1).measured);

  set.add({.turns = {absent_without_gpu}});
  const auto mixed = metrics_at(set.view(), 1, kBootstrap);
  EXPECT_EQ(mixed.not_measured, 1);
  EXPECT_EQ(mixed.correct.n, 2);
  EXPECT_FALSE(state_within(*set.view()[2], 1).measured);
}

TEST(Metrics, CorrectWithinTAndLastStateOfShortTrajectories) {
  Set set;
  // Stops early at a target: correct from turn 3 on, and it keeps that at t = 8.
  set.add(
      {.max_turns = 8,
       .turns = {fails(Verdict::kCompileError), fails(Verdict::kIncorrectNumerical), passed(1.1)}});
  // Correct at turn 1, but a requested family never executed substantially (loose rule holds).
  set.add({.turns = {TurnSpec{.verdict = Verdict::kInstructionsNotExecuted,
                              .speedup = 0.5,
                              .family_executed = true},
                     fails(Verdict::kRuntimeError)}});
  // Correct at turn 2 with no requested family executed: neither verified rule holds.
  set.add(
      {.turns = {fails(Verdict::kTimeout), TurnSpec{.verdict = Verdict::kInstructionsNotExecuted,
                                                    .speedup = 0.7,
                                                    .family_executed = false}}});
  // Never correct.
  set.add({.turns = {fails(Verdict::kIncorrectShape)}});

  const auto t1 = metrics_at(set.view(), 1, kBootstrap);
  EXPECT_EQ(t1.correct.k, 1);
  EXPECT_EQ(t1.verified.k, 0);
  EXPECT_EQ(t1.verified_any.k, 1);

  const auto t2 = metrics_at(set.view(), 2, kBootstrap);
  EXPECT_EQ(t2.correct.k, 2);
  EXPECT_EQ(t2.verified_any.k, 1);

  const auto t4 = metrics_at(set.view(), 4, kBootstrap);
  EXPECT_EQ(t4.correct.k, 3);
  EXPECT_EQ(t4.verified.k, 1);
  EXPECT_EQ(t4.verified_any.k, 2);
  EXPECT_EQ(t4.correct.n, 4);

  const auto t8 = metrics_at(set.view(), 8, kBootstrap);
  EXPECT_EQ(t8.correct.k, t4.correct.k);
  EXPECT_EQ(t8.verified.k, t4.verified.k);
  EXPECT_EQ(t8.best_speedups, (std::vector<double>{0.5, 0.7, 1.1}));
  EXPECT_EQ(*t8.max_speedup.value, 1.1);
  EXPECT_EQ(*t8.median_speedup.value, 0.7);
  EXPECT_EQ(t8.fast[0].k, 3);  // p = 0
  EXPECT_EQ(t8.fast[1].k, 2);  // p = 0.5: 0.5 itself is not faster
  EXPECT_EQ(t8.fast[3].k, 1);  // p = 1.0
  EXPECT_EQ(t8.fast[4].k, 0);  // p = 1.2
}

TEST(Metrics, SpeedupTiesAndIncorrectTimedTurnsIgnored) {
  Set set;
  set.add({.turns = {passed(1.0)}});
  set.add({.turns = {passed(1.0), passed(0.9)}});  // best of the trajectory, not the last
  set.add(
      {.turns = {TurnSpec{.verdict = Verdict::kIncorrectNumerical, .speedup = 5.0}, passed(1.2)}});
  const auto m = metrics_at(set.view(), 8, kBootstrap);
  EXPECT_EQ(m.best_speedups, (std::vector<double>{1.0, 1.0, 1.2}));
  EXPECT_EQ(*m.max_speedup.value, 1.2);
  EXPECT_EQ(*m.median_speedup.value, 1.0);
  EXPECT_EQ(m.fast[2].k, 3);  // > 0.8
  EXPECT_EQ(m.fast[3].k, 1);  // > 1.0: ties at exactly 1.0 do not count
  ASSERT_TRUE(m.median_speedup.interval);
  EXPECT_LE(m.median_speedup.interval->lo, 1.0);
  EXPECT_GE(m.median_speedup.interval->hi, 1.0);
  EXPECT_LE(m.max_speedup.interval->hi, 1.2);
}

TEST(Metrics, MissingTurnsCountByNumber) {
  Set set;
  // Turn 2 was never recorded; turn 3 is correct.
  set.add({.turns = {fails(Verdict::kCompileError),
                     TurnSpec{.verdict = Verdict::kPassed, .speedup = 1.3, .turn = 3}}});
  EXPECT_FALSE(state_within(*set.view()[0], 2).correct);
  EXPECT_TRUE(state_within(*set.view()[0], 3).correct);
  const auto b2 = breakdown_at_turn(set.view(), 2, Prices{});
  EXPECT_EQ(b2.outcomes[outcome_index(Outcome{})], 1);
  EXPECT_EQ(b2.turns, 0);
  EXPECT_EQ(last_turn(set.view()), 8);  // the turn budget
}

TEST(Metrics, RunsWithDifferentTurnBudgets) {
  Set set;
  set.add({.max_turns = 4,
           .turns = {fails(Verdict::kCompileError), fails(Verdict::kCompileError),
                     fails(Verdict::kCompileError), passed(0.8)}});
  set.add({.max_turns = 8,
           .turns = {fails(Verdict::kNoCode), fails(Verdict::kNoCode), fails(Verdict::kNoCode),
                     fails(Verdict::kNoCode), fails(Verdict::kNoCode), passed(0.6)}});
  const auto t4 = metrics_at(set.view(), 4, kBootstrap);
  const auto t8 = metrics_at(set.view(), 8, kBootstrap);
  EXPECT_EQ(t4.correct.k, 1);
  EXPECT_EQ(t8.correct.k, 2);
  EXPECT_EQ(t8.max_turns, 8);
  // Turn 6 of the four-turn trajectory does not exist.
  const auto b6 = breakdown_at_turn(set.view(), 6, Prices{});
  EXPECT_EQ(b6.outcomes[outcome_index(Outcome{})], 1);
  EXPECT_EQ(b6.outcomes[outcome_index(Outcome{Verdict::kPassed})], 1);
}

TEST(Metrics, TaxonomyCompileKindsUsageAndCost) {
  Set set;
  set.add({.model = "priced",
           .turns = {TurnSpec{.verdict = Verdict::kCompileError,
                              .compile_log = "k.cu(3): error: identifier \"x\" is undefined",
                              .prompt_tokens = 2000,
                              .completion_tokens = 1000,
                              .reasoning_tokens = 600,
                              .latency_s = 20},
                     passed(1.0)}});
  set.add({.model = "unpriced",
           .turns = {TurnSpec{.verdict = Verdict::kCompileError,
                              .compile_log = "ptxas /tmp/x.ptx, line 3; error   : Unknown symbol",
                              .prompt_tokens = 4000,
                              .completion_tokens = 3000,
                              .latency_s = 40,
                              .cost_usd = 0.25}}});
  auto prices = Prices::parse(
      R"({"models": {"priced": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 10.0}}})");
  ASSERT_TRUE(prices) << prices.error().message;
  const auto b1 = breakdown_at_turn(set.view(), 1, *prices);
  EXPECT_EQ(b1.outcomes[outcome_index(Outcome{Verdict::kCompileError})], 2);
  EXPECT_EQ(b1.compile_errors[compile_error_index(CompileErrorKind::kUndefinedIdentifier)], 1);
  EXPECT_EQ(b1.compile_errors[compile_error_index(CompileErrorKind::kPtxas)], 1);
  EXPECT_EQ(b1.compiled, 0);
  EXPECT_DOUBLE_EQ(*b1.prompt_tokens.value(), 3000);
  EXPECT_DOUBLE_EQ(*b1.completion_tokens.value(), 2000);
  EXPECT_DOUBLE_EQ(*b1.reasoning_tokens.value(), 600);  // only one turn reported it
  EXPECT_DOUBLE_EQ(*b1.latency_s.value(), 30);
  // 2000 x $1/M + 1000 x $10/M = $0.012; the other turn recorded $0.25.
  EXPECT_NEAR(*b1.cost_usd.value(), (0.012 + 0.25) / 2, 1e-12);
  const auto b2 = breakdown_at_turn(set.view(), 2, *prices);
  EXPECT_EQ(b2.outcomes[outcome_index(Outcome{Verdict::kPassed})], 1);
  EXPECT_EQ(b2.outcomes[outcome_index(Outcome{})], 1);
  EXPECT_EQ(b2.compiled, 1);
}

TEST(Prices, RejectsMalformedFiles) {
  EXPECT_FALSE(Prices::parse("[]"));
  EXPECT_FALSE(
      Prices::parse(R"({"models": {"m": {"input_usd_per_mtok": -1, "output_usd_per_mtok": 1}}})"));
  EXPECT_FALSE(Prices::parse(R"({"models": {"m": {"input_usd_per_mtok": 1}}})"));
  auto fallback =
      Prices::parse(R"({"default": {"input_usd_per_mtok": 2, "output_usd_per_mtok": 4}})");
  ASSERT_TRUE(fallback);
  EXPECT_NE(fallback->find("anything"), nullptr);
  EXPECT_TRUE(Prices{}.empty());
}

TEST(Seeds, DependOnTheGroupOnly) {
  const BootstrapSettings base{.resamples = 10, .seed = 1};
  EXPECT_EQ(seeded_for(base, "a").seed, seeded_for(base, "a").seed);
  EXPECT_NE(seeded_for(base, "a").seed, seeded_for(base, "b").seed);
  EXPECT_NE(seeded_for(base, "a").seed, seeded_for({.resamples = 10, .seed = 2}, "a").seed);
}

}  // namespace
}  // namespace ptxbench::report

namespace ptxbench::report {
namespace {

// "correct on unseen shapes": a correct turn whose unseen workloads were all correct.
TEST(Metrics, CorrectOnUnseenShapes) {
  auto trajectory = [](std::vector<TurnRecord> turns) {
    TrajectoryRecord t;
    t.turns = std::move(turns);
    t.max_turns = static_cast<int>(t.turns.size());
    return t;
  };
  using eval::Verdict;
  const std::vector<TrajectoryRecord> records{
      // correct on the shown workloads only (`--unseen report`), then on every one
      trajectory({{.turn = 1, .verdict = Verdict::kPassed, .unseen_correct = false},
                  {.turn = 2, .verdict = Verdict::kPassed, .unseen_correct = true}}),
      // an unseen failure under `--unseen require`: not correct at all
      trajectory({{.turn = 1, .verdict = Verdict::kIncorrectNumerical, .unseen_correct = false}}),
      // an old record: nothing judged
      trajectory({{.turn = 1, .verdict = Verdict::kPassed}}),
  };
  TrajectorySet set;
  for (const auto& r : records) set.push_back(&r);
  const BootstrapSettings bootstrap{.resamples = 10, .seed = 1};
  const auto t1 = metrics_at(set, 1, bootstrap);
  EXPECT_EQ(t1.correct.k, 2);
  EXPECT_EQ(t1.correct_unseen.k, 0);
  EXPECT_EQ(t1.correct_unseen.n, 3);
  EXPECT_EQ(t1.unseen_judged, 2);
  const auto t2 = metrics_at(set, 2, bootstrap);
  EXPECT_EQ(t2.correct_unseen.k, 1);
  // INSTRUCTIONS_ABSENT decided without a GPU leaves correctness unknown: not measured.
  const auto absent = trajectory(
      {{.turn = 1, .verdict = Verdict::kInstructionsAbsent, .gpu_stages_not_run = true}});
  EXPECT_FALSE(state_within(absent, 1).measured);
  EXPECT_EQ(metrics_at({&absent}, 1, bootstrap).unseen_judged, 0);
}

}  // namespace
}  // namespace ptxbench::report
