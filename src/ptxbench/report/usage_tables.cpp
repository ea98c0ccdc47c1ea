// The error taxonomy, compile-error kinds and usage tables.
#include <fmt/format.h>

#include "ptxbench/report/table_columns.hpp"
#include "ptxbench/report/tables.hpp"

namespace ptxbench::report {
using namespace columns;  // NOLINT(google-build-using-namespace): the table vocabulary

Table error_taxonomy_table(const ReportData& data) {
  Table table{
      .name = "error_taxonomy",
      .title = "Error taxonomy per turn",
      .description =
          "How each turn ended, counted over the trajectories of a cell. NO_TURN: the trajectory "
          "had ended before this turn (a target reached or a provider failure). NOT_RUN means the "
          "GPU stages did not run and is never counted as a pass. COMPILE_ERROR_<kind> splits "
          "COMPILE_ERROR by the kind of the compiler's first error line.",
      .columns = with_key(integer("turn", "turn number"), integer("n", "trajectories"))};
  for (const auto& outcome : kOutcomes) {
    table.columns.push_back(
        integer(std::string(outcome_name(outcome)), std::string(outcome_meaning(outcome))));
  }
  for (auto kind : kAllCompileErrorKinds) {
    table.columns.push_back(integer(fmt::format("COMPILE_ERROR_{}", to_string(kind)),
                                    "compile errors whose first error line is of this kind"));
  }
  for (const auto& [key, set] : data.cells) {
    const int last = last_turn(set);
    for (int turn = 1; turn <= last; ++turn) {
      const auto b = breakdown_at_turn(set, turn, data.prices);
      auto row = key_cells(key);
      append(row, {std::int64_t{turn}, std::int64_t{b.trajectories}});
      for (int c : b.outcomes) row.emplace_back(std::int64_t{c});
      for (int c : b.compile_errors) row.emplace_back(std::int64_t{c});
      table.add_row(std::move(row));
    }
  }
  return table;
}

Table compile_errors_table(const ReportData& data) {
  Table table{.name = "compile_errors",
              .title = "Compile errors by kind",
              .description =
                  "Turns that ended in COMPILE_ERROR, by the kind of the first error "
                  "line of the compiler output, over all turns of a cell.",
              .columns = with_key(integer("compile_errors", "turns with a compile error"))};
  for (auto kind : kAllCompileErrorKinds) {
    table.columns.push_back(
        integer(std::string(to_string(kind)), "turns whose first error is of this kind"));
  }
  for (const auto& [key, set] : data.cells) {
    std::array<int, std::size(kAllCompileErrorKinds)> kinds{};
    int total = 0;
    for (const auto* t : set) {
      for (const auto& turn : t->turns) {
        if (!turn.compile_error) continue;
        ++kinds[compile_error_index(*turn.compile_error)];
        ++total;
      }
    }
    auto row = key_cells(key);
    row.push_back(std::int64_t{total});
    for (int k : kinds) row.emplace_back(std::int64_t{k});
    table.add_row(std::move(row));
  }
  return table;
}

Table usage_by_turn_table(const ReportData& data) {
  Table table{.name = "usage_by_turn",
              .title = "Tokens, latency and cost per turn",
              .description =
                  "Means over the trajectories that reached the turn. Cost is the recorded cost "
                  "of the turn, else its tokens at the configured prices; empty without either.",
              .columns = with_key(
                  integer("turn", "turn number"), integer("turns", "trajectories with this turn"),
                  measure("compile_rate", "share of these turns whose candidate compiled"),
                  number("prompt_tokens", "mean prompt tokens", 0),
                  number("completion_tokens", "mean completion tokens (reasoning included)", 0),
                  number("reasoning_tokens", "mean reasoning tokens", 0),
                  number("latency_s", "mean model latency, seconds", 1),
                  number("latency_median_s", "median model latency, seconds", 1),
                  number("cost_usd", "mean cost of the turn, US dollars", 4))};
  for (const auto& [key, set] : data.cells) {
    const int last = last_turn(set);
    for (int turn = 1; turn <= last; ++turn) {
      const auto b = breakdown_at_turn(set, turn, data.prices);
      if (b.turns == 0) continue;
      auto row = key_cells(key);
      append(
          row,
          {std::int64_t{turn}, std::int64_t{b.turns},
           measure_of(Proportion{.k = b.compiled, .n = b.turns}),
           optional_number(b.prompt_tokens.value()), optional_number(b.completion_tokens.value()),
           optional_number(b.reasoning_tokens.value()), optional_number(b.latency_s.value()),
           optional_number(median(b.latencies_s)), optional_number(b.cost_usd.value())});
      table.add_row(std::move(row));
    }
  }
  return table;
}

namespace {
struct Total {
  std::int64_t sum = 0;
  bool known = false;
  void add(std::optional<std::int64_t> value) {
    if (!value) return;
    sum += *value;
    known = true;
  }
  Cell cell() const { return known ? Cell(sum) : Cell(); }
};
}  // namespace

Table usage_totals_table(const ReportData& data) {
  const int t = data.last_turn_limit();
  Table table{.name = "usage_totals",
              .title = "Total tokens, time and cost",
              .description = fmt::format(
                  "Sums over every turn of a cell. cost_per_correct divides the total cost by the "
                  "trajectories correct within {} turns.",
                  t),
              .columns = with_key(
                  integer("n", "trajectories"), integer("turns", "turns"),
                  integer("prompt_tokens", "total prompt tokens (empty: no turn recorded them)"),
                  integer("completion_tokens", "total completion tokens"),
                  integer("reasoning_tokens", "total reasoning tokens"),
                  number("latency_h", "total model latency, hours", 2),
                  number("cost_usd", "total cost, US dollars (turns with a known cost)", 2),
                  number("cost_per_correct_usd", "total cost / correct trajectories", 2))};
  for (const auto& [key, set] : data.cells) {
    std::int64_t turns = 0;
    // Sums of what the turns recorded; a count no turn recorded is unknown ("–"), not 0.
    Total prompt, completion, reasoning;
    Mean latency, cost;
    for (const auto* trajectory : set) {
      for (const auto& turn : trajectory->turns) {
        ++turns;
        prompt.add(turn.prompt_tokens);
        completion.add(turn.completion_tokens);
        reasoning.add(turn.reasoning_tokens);
        latency.add(turn.latency_s);
        cost.add(data.prices.cost(trajectory->model, turn));
      }
    }
    const int correct = data.metrics(key, t).correct.k;
    Cell total_cost = cost.n > 0 ? Cell(cost.sum) : Cell();
    Cell per_correct = cost.n > 0 && correct > 0 ? Cell(cost.sum / correct) : Cell();
    Cell latency_h = latency.n > 0 ? Cell(latency.sum / 3600) : Cell();
    auto row = key_cells(key);
    append(row, {count(set.size()), turns, prompt.cell(), completion.cell(), reasoning.cell(),
                 latency_h, total_cost, per_correct});
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace ptxbench::report
