#include "ptxbench/report/metrics.hpp"

#include <algorithm>

#include "ptxbench/util/hash.hpp"

namespace ptxbench::report {

TrajectoryState state_within(const TrajectoryRecord& trajectory, int turn_limit) {
  TrajectoryState state;
  bool not_run = false;
  bool judged_before_not_run = false;  // a turn was judged before the first NOT_RUN one
  for (const auto& turn : trajectory.turns) {
    if (turn.turn > turn_limit) break;
    state.compiled = state.compiled || turn.compiled;
    // Only a turn whose GPU stages could not run leaves correctness unknown; INSTRUCTIONS_ABSENT
    // on a GPU (a host-only run()) is a final verdict like any other failure.
    if (!turn.judged()) {
      not_run = true;
    } else if (!not_run) {
      judged_before_not_run = true;
    }
    state.unseen_judged = state.unseen_judged || turn.unseen_correct.has_value();
    if (!turn.correct()) continue;
    state.correct_unseen = state.correct_unseen || turn.unseen_correct.value_or(false);
    state.correct = true;
    state.verified = state.verified || turn.verified();
    state.verified_any = state.verified_any || turn.any_requested_executed;
    if (turn.speedup)
      state.best_speedup = std::max(state.best_speedup.value_or(*turn.speedup), *turn.speedup);
    if (turn.speed_of_light) {
      state.best_speed_of_light =
          std::max(state.best_speed_of_light.value_or(*turn.speed_of_light), *turn.speed_of_light);
    }
  }
  state.measured = state.correct || !not_run || judged_before_not_run;
  state.carried = !state.correct && not_run && judged_before_not_run;
  return state;
}

MetricsAt metrics_at(const TrajectorySet& trajectories, int turn_limit,
                     const BootstrapSettings& settings) {
  MetricsAt m{.turn_limit = turn_limit, .trajectories = static_cast<int>(trajectories.size())};
  for (const auto* trajectory : trajectories) {
    m.max_turns = std::max(m.max_turns, trajectory->max_turns);
    const auto state = state_within(*trajectory, turn_limit);
    m.compiled.k += state.compiled;
    if (!state.measured) {
      ++m.not_measured;
      continue;
    }
    m.carried += state.carried;
    m.correct.k += state.correct;
    m.verified.k += state.verified;
    m.verified_any.k += state.verified_any;
    m.correct_unseen.k += state.correct_unseen;
    m.unseen_judged += state.unseen_judged;
    if (state.best_speed_of_light) m.best_speed_of_light.push_back(*state.best_speed_of_light);
    if (!state.best_speedup) continue;
    m.best_speedups.push_back(*state.best_speedup);
    for (std::size_t i = 0; i < kFastThresholds.size(); ++i) {
      m.fast[i].k += *state.best_speedup > kFastThresholds[i];
    }
  }
  m.compiled.n = m.trajectories;
  for (auto* p : {&m.correct, &m.verified, &m.verified_any, &m.correct_unseen})
    p->n = m.trajectories - m.not_measured;
  for (auto& f : m.fast) f.n = m.trajectories - m.not_measured;
  std::sort(m.best_speedups.begin(), m.best_speedups.end());
  m.max_speedup = bootstrap(m.best_speedups, statistic_max, settings);
  m.median_speedup = bootstrap(m.best_speedups, statistic_median, settings);
  std::sort(m.best_speed_of_light.begin(), m.best_speed_of_light.end());
  m.median_speed_of_light = bootstrap(m.best_speed_of_light, statistic_median, settings);
  return m;
}

void Mean::add(std::optional<double> v) {
  if (!v) return;
  sum += *v;
  ++n;
}

std::optional<double> Mean::value() const {
  if (n == 0) return std::nullopt;
  return sum / n;
}

namespace {
std::optional<double> as_double(std::optional<std::int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}
}  // namespace

TurnBreakdown breakdown_at_turn(const TrajectorySet& trajectories, int turn, const Prices& prices) {
  TurnBreakdown b{.turn = turn, .trajectories = static_cast<int>(trajectories.size())};
  for (const auto* trajectory : trajectories) {
    auto it = std::find_if(trajectory->turns.begin(), trajectory->turns.end(),
                           [turn](const TurnRecord& r) { return r.turn == turn; });
    if (it == trajectory->turns.end()) {
      ++b.outcomes[outcome_index(Outcome{})];
      continue;
    }
    ++b.turns;
    b.compiled += it->compiled;
    ++b.outcomes[outcome_index(Outcome{it->verdict})];
    if (it->compile_error) ++b.compile_errors[compile_error_index(*it->compile_error)];
    b.prompt_tokens.add(as_double(it->prompt_tokens));
    b.completion_tokens.add(as_double(it->completion_tokens));
    b.reasoning_tokens.add(as_double(it->reasoning_tokens));
    b.latency_s.add(it->latency_s);
    if (it->latency_s) b.latencies_s.push_back(*it->latency_s);
    b.cost_usd.add(prices.cost(trajectory->model, *it));
  }
  return b;
}

int last_turn(const TrajectorySet& trajectories) {
  int last = 0;
  for (const auto* trajectory : trajectories) {
    last = std::max(last, trajectory->max_turns);
    if (!trajectory->turns.empty()) last = std::max(last, trajectory->turns.back().turn);
  }
  return last;
}

BootstrapSettings seeded_for(const BootstrapSettings& base, std::string_view group) {
  util::Fnv1a64 hash;
  hash.add(std::to_string(base.seed)).add(group);
  return {.resamples = base.resamples, .seed = hash.value()};
}

}  // namespace ptxbench::report
