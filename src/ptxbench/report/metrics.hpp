// The report's metrics over a set of trajectories: at a turn limit t (compile, correct@t,
// verified@t in its strict and loose forms, best speedups, fast_p) and per turn (error taxonomy,
// tokens, latency, cost). docs/reports.md defines each one.
#pragma once
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ptxbench/report/compile_error_kind.hpp"
#include "ptxbench/report/outcome.hpp"
#include "ptxbench/report/prices.hpp"
#include "ptxbench/report/statistics.hpp"
#include "ptxbench/report/trajectory_record.hpp"

namespace ptxbench::report {

inline constexpr std::array<double, 5> kFastThresholds{0.0, 0.5, 0.8, 1.0, 1.2};

// One trajectory as it stands after its first t turns. A trajectory with fewer turns keeps its
// last state (one that stopped at a target keeps its result); turns are taken by number, so a
// missing turn simply contributes nothing.
struct TrajectoryState {
  bool compiled = false;        // some turn <= t compiled
  bool correct = false;         // some turn <= t was correct
  bool verified = false;        // strict: some turn <= t PASSED
  bool verified_any = false;    // loose: some turn <= t correct with any requested family executed
  bool correct_unseen = false;  // some turn <= t correct on the shown and every unseen workload
  bool unseen_judged = false;   // some turn <= t had its unseen workloads judged
  std::optional<double> best_speedup;  // best headline speedup of a correct turn <= t
  // The largest headline fraction of the speed of light of a correct turn <= t.
  std::optional<double> best_speed_of_light;
  // False when no turn <= t was correct and the first turn was not judged (its GPU stages did
  // not run: TurnRecord::judged):
  // whether it would have been correct is unknown, so it counts in no rate but compiled.
  bool measured = true;
  // True when a turn <= t was NOT_RUN but an earlier turn was judged: the trajectory keeps the
  // state of its last judged turn (not correct), and the tables count it as carried forward.
  bool carried = false;
};
TrajectoryState state_within(const TrajectoryRecord& trajectory, int turn_limit);

using TrajectorySet = std::vector<const TrajectoryRecord*>;

struct MetricsAt {
  int turn_limit = 0;
  int trajectories = 0;
  int max_turns = 0;     // largest max_turns the trajectories were run with
  int not_measured = 0;  // trajectories left out of every rate but compiled (state.measured)
  int carried = 0;       // of the measured ones, those keeping an earlier turn's state
  Proportion compiled;   // of all trajectories; the other rates are of the measured ones
  Proportion correct;
  Proportion verified;
  Proportion verified_any;
  Proportion correct_unseen;  // "correct on unseen shapes"
  int unseen_judged = 0;      // trajectories with a turn whose unseen workloads were judged
  std::array<Proportion, kFastThresholds.size()> fast;  // correct and speedup > p
  std::vector<double> best_speedups;  // one per trajectory with a timed correct kernel
  Estimate max_speedup;               // bootstrap over those trajectories
  Estimate median_speedup;
  std::vector<double> best_speed_of_light;  // one per trajectory with a bounded correct kernel
  Estimate median_speed_of_light;
};
MetricsAt metrics_at(const TrajectorySet& trajectories, int turn_limit,
                     const BootstrapSettings& settings);

struct Mean {
  double sum = 0;
  int n = 0;
  void add(std::optional<double> value);
  std::optional<double> value() const;
};

struct TurnBreakdown {
  int turn = 0;
  int trajectories = 0;  // all of the set; those without this turn count as NO_TURN
  std::array<int, kOutcomes.size()> outcomes{};
  std::array<int, std::size(kAllCompileErrorKinds)> compile_errors{};
  int turns = 0;     // trajectories that have this turn
  int compiled = 0;  // of those turns, the ones that compiled
  Mean prompt_tokens;
  Mean completion_tokens;
  Mean reasoning_tokens;
  Mean latency_s;
  std::vector<double> latencies_s;
  Mean cost_usd;
};
TurnBreakdown breakdown_at_turn(const TrajectorySet& trajectories, int turn, const Prices& prices);

// The largest turn number any of the trajectories recorded or was allowed.
int last_turn(const TrajectorySet& trajectories);

// A bootstrap seed for one group, so that adding groups to a report does not move the
// intervals of the others.
BootstrapSettings seeded_for(const BootstrapSettings& base, std::string_view group);

}  // namespace ptxbench::report
