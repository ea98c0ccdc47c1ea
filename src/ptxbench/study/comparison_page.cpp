#include "ptxbench/study/comparison_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "ptxbench/report/metrics.hpp"
#include "ptxbench/report/published.hpp"
#include "ptxbench/report/report_page.hpp"
#include "ptxbench/report/run_reader.hpp"
#include "ptxbench/report/table.hpp"
#include "ptxbench/study/paired_test.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/json_text.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::study {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using report::Cell;
using report::Column;
using report::ColumnKind;
using report::Table;

constexpr double kAlpha = 0.05;
constexpr std::size_t kFast1 = 3;  // kFastThresholds[3] == 1.0

struct Side {
  std::string name;
  bool retrieval = false;
  std::vector<report::TrajectoryRecord> trajectories;
};

std::string step_path(const StudyFile& study, const std::string& step, const std::string& v) {
  return (study.out / "steps" / step / v).string();
}

util::Expected<Side> read_side(const StudyFile& study, const std::string& name, bool retrieval,
                               const std::map<std::string, std::string>& splits) {
  auto loaded = report::read_runs(
      {{.dir = fs::path(step_path(study, "run", name)) / "run", .label = name}}, {});
  if (!loaded) return loaded.error();
  Side side{.name = name, .retrieval = retrieval, .trajectories = std::move(loaded->trajectories)};
  for (auto& t : side.trajectories) {
    auto found = splits.find(t.task);
    t.split = found == splits.end() ? "heldout" : found->second;
  }
  std::sort(side.trajectories.begin(), side.trajectories.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return side;
}

report::TrajectorySet in_split(const Side& side, const std::string& split) {
  report::TrajectorySet out;
  for (const auto& t : side.trajectories)
    if (t.split == split) out.push_back(&t);
  return out;
}

double mean_of(std::span<const double> values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

// fast_p for any p: correct and best speedup above p, of the measured trajectories.
report::Proportion fast_above(const report::TrajectorySet& set, int turn_limit, double p) {
  report::Proportion out;
  for (const auto* t : set) {
    auto state = report::state_within(*t, turn_limit);
    if (!state.measured) continue;
    ++out.n;
    if (state.correct && state.best_speedup && *state.best_speedup > p) ++out.k;
  }
  return out;
}

// What a weak model's replies reach before any GPU stage, of all trajectories at turn limit t:
// a reply with a code block, a kernel that compiled, one whose machine code holds the requested
// instruction families (the static check; every later verdict passed it).
struct ReplyReach {
  report::Proportion with_code, compiled, static_verified;
};

bool passed_static_check(eval::Verdict verdict) {
  switch (verdict) {
    case eval::Verdict::kNoCode:
    case eval::Verdict::kForbidden:
    case eval::Verdict::kCompileError:
    case eval::Verdict::kInstructionsAbsent:
    case eval::Verdict::kInternalError:
      return false;
    default:
      return true;
  }
}

ReplyReach reach_within(const report::TrajectorySet& set, int turn_limit) {
  ReplyReach out;
  for (const auto* t : set) {
    bool code = false, compiled = false, verified = false;
    for (const auto& turn : t->turns) {
      if (turn.turn > turn_limit) break;
      code |=
          turn.verdict != eval::Verdict::kNoCode && turn.verdict != eval::Verdict::kInternalError;
      compiled |= turn.compiled;
      verified |= turn.compiled && passed_static_check(turn.verdict);
    }
    ++out.with_code.n, ++out.compiled.n, ++out.static_verified.n;
    out.with_code.k += code;
    out.compiled.k += compiled;
    out.static_verified.k += verified;
  }
  return out;
}

Table replies_table(const std::vector<Side>& sides, const std::vector<std::string>& splits,
                    const std::vector<int>& limits) {
  Table table{
      .name = "replies",
      .title = "How far the replies got, per split and turn limit",
      .description =
          "One row per split, turn limit and model. Of all trajectories (95% Wilson intervals): "
          "a reply with a code block within the turn limit, a kernel that compiled, and one "
          "whose machine code holds the requested instruction families (the static check, "
          "needing no GPU). A trajectory whose prompt did not fit the model's context ends on "
          "a provider error with no reply.",
      .columns = {{"split", ColumnKind::kText, "train or a held-out split of the study file"},
                  {"turns", ColumnKind::kInteger, "turn limit"},
                  {"model", ColumnKind::kText, "the base model or a data variant"},
                  {"trajectories", ColumnKind::kInteger, "trajectories of this split"},
                  {"with_code", ColumnKind::kMeasure, "a reply with a code block"},
                  {"compiled", ColumnKind::kMeasure, "a kernel that compiled"},
                  {"static_verified", ColumnKind::kMeasure,
                   "compiled with the requested instruction families in its machine code"}}};
  for (const auto& split : splits)
    for (int limit : limits)
      for (const auto& side : sides) {
        const auto set = in_split(side, split);
        const auto r = reach_within(set, limit);
        table.add_row({split, static_cast<std::int64_t>(limit), side.name,
                       static_cast<std::int64_t>(set.size()), report::measure_of(r.with_code),
                       report::measure_of(r.compiled), report::measure_of(r.static_verified)});
      }
  return table;
}

Table metrics_table(const StudyFile& study, const std::vector<Side>& sides,
                    const std::vector<std::string>& splits, const std::vector<int>& limits) {
  const std::string fast_p = fmt::format("fast_{:g}", study.fast_p);
  Table table{
      .name = "correctness",  // the report page's section names
      .title = "Benchmark metrics per split and turn limit",
      .description =
          "One row per split, turn limit and model (the base, then each data variant). Rates are "
          "of the measured trajectories with 95% Wilson intervals; PASSED is correct with the "
          "requested instructions executed; fast_p is correct and faster than the library by "
          "more than p; the mean best speedup is over trajectories with a timed correct kernel, "
          "with a 95% bootstrap interval.",
      .columns = {{"split", ColumnKind::kText, "train or a held-out split of the study file"},
                  {"turns", ColumnKind::kInteger, "turn limit"},
                  {"model", ColumnKind::kText, "the base model or a data variant"},
                  {"trajectories", ColumnKind::kInteger, "trajectories of this split"},
                  {"correct", ColumnKind::kMeasure, "a correct kernel within the turn limit"},
                  {"passed", ColumnKind::kMeasure,
                   "correct and the requested instructions executed (PASSED)"},
                  {"fast_1", ColumnKind::kMeasure, "correct and faster than the library"},
                  {fast_p, ColumnKind::kMeasure, "correct and speedup above p (study fast_p)"},
                  {"mean_speedup", ColumnKind::kMeasure,
                   "mean best speedup of trajectories with a timed correct kernel"}}};
  for (const auto& split : splits)
    for (int limit : limits)
      for (const auto& side : sides) {
        const auto set = in_split(side, split);
        const auto settings =
            report::seeded_for({}, fmt::format("{}/{}/{}", side.name, split, limit));
        const auto m = report::metrics_at(set, limit, settings);
        const auto mean = report::bootstrap(m.best_speedups, mean_of, settings);
        table.add_row({split, static_cast<std::int64_t>(limit), side.name,
                       static_cast<std::int64_t>(m.trajectories),
                       report::measure_of(m.correct, m.not_measured),
                       report::measure_of(m.verified, m.not_measured),
                       report::measure_of(m.fast[kFast1], m.not_measured),
                       report::measure_of(fast_above(set, limit, study.fast_p), m.not_measured),
                       report::measure_of(mean)});
      }
  return table;
}

// The cell a trajectory stands for, the same for the base and a variant: a retrieval variant
// runs the `retrieval` context where the base ran `none`.
std::string pair_key(const report::TrajectoryRecord& t, bool retrieval) {
  return fmt::format("{}/{}/{}/{}", t.task, t.arch, retrieval ? "none" : t.context, t.sample);
}

std::string verdict_of(double p, double difference) {
  if (p >= kAlpha) return "inside the noise";
  return difference > 0 ? "better (outside the noise)" : "worse (outside the noise)";
}

Table paired_table(const std::vector<Side>& sides, const std::vector<std::string>& splits,
                   const std::vector<int>& limits) {
  Table table{
      .name = "comparison",
      .title = "Each variant against the base: paired tests",
      .description = fmt::format(
          "Trajectories paired by task, arch, context and sample. Correct: exact McNemar test on "
          "the discordant pairs (base only / variant only). Speedup: sign-flip permutation test "
          "of the mean paired difference of best speedups (0 where no correct kernel was timed). "
          "A difference with p >= {} is inside the noise.",
          kAlpha),
      .columns = {{"split", ColumnKind::kText, "train or a held-out split"},
                  {"turns", ColumnKind::kInteger, "turn limit"},
                  {"variant", ColumnKind::kText, "data variant"},
                  {"pairs", ColumnKind::kInteger, "paired trajectories"},
                  {"base_only", ColumnKind::kInteger, "pairs correct for the base only"},
                  {"variant_only", ColumnKind::kInteger, "pairs correct for the variant only"},
                  {"correct_p", ColumnKind::kNumber, "McNemar exact p", 3},
                  {"correct_verdict", ColumnKind::kText, "the correct-rate difference"},
                  {"speedup_difference", ColumnKind::kNumber, "mean paired speedup difference", 3},
                  {"speedup_p", ColumnKind::kNumber, "sign-flip p", 3},
                  {"speedup_verdict", ColumnKind::kText, "the speedup difference"}}};
  const Side& base = sides.front();
  for (const auto& split : splits)
    for (int limit : limits)
      for (std::size_t i = 1; i < sides.size(); ++i) {
        const Side& side = sides[i];
        std::map<std::string, const report::TrajectoryRecord*> by_key;
        for (const auto* t : in_split(base, split)) by_key[pair_key(*t, false)] = t;
        int base_only = 0, variant_only = 0, pairs = 0;
        std::vector<double> differences;
        for (const auto* t : in_split(side, split)) {
          auto found = by_key.find(pair_key(*t, side.retrieval));
          if (found == by_key.end()) continue;
          const auto a = report::state_within(*found->second, limit);
          const auto b = report::state_within(*t, limit);
          if (!a.measured || !b.measured) continue;
          ++pairs;
          base_only += a.correct && !b.correct;
          variant_only += b.correct && !a.correct;
          differences.push_back(b.best_speedup.value_or(0) - a.best_speedup.value_or(0));
        }
        const auto mc = mcnemar_exact(base_only, variant_only);
        const auto sf = sign_flip_test(differences);
        const std::string none = pairs == 0 ? "no pairs measured" : "";
        table.add_row({split, static_cast<std::int64_t>(limit), side.name,
                       static_cast<std::int64_t>(pairs), static_cast<std::int64_t>(base_only),
                       static_cast<std::int64_t>(variant_only), mc.p,
                       none.empty() ? verdict_of(mc.p, variant_only - base_only) : none, sf.mean,
                       sf.p, none.empty() ? verdict_of(sf.p, sf.mean) : none});
      }
  return table;
}

Table training_table(const StudyFile& study) {
  Table table{
      .name = "runs",
      .title = "Training per data variant",
      .description =
          "From each variant's data step (data.json) and run card (run_card.json): "
          "rows trained on and held out, tokens, optimiser steps, training time and "
          "the training loss at the first and last logged step and the final held-out loss. A "
          "retrieval variant is not trained: its rows are "
          "given in context instead.",
      .columns = {
          {"variant", ColumnKind::kText, "data variant"},
          {"data", ColumnKind::kText, "rows: fixit, kernelgen or both; teacher; reasoning"},
          {"rows_train", ColumnKind::kInteger, "rows trained on"},
          {"rows_verified", ColumnKind::kInteger, "of the rows trained on: verified on a GPU"},
          {"rows_heldout", ColumnKind::kInteger, "held-out rows (loss only)"},
          {"tokens", ColumnKind::kInteger, "tokens of the training rows"},
          {"steps", ColumnKind::kInteger, "optimiser steps"},
          {"train_seconds", ColumnKind::kNumber, "training time, s", 1},
          {"train_loss_first", ColumnKind::kNumber, "training loss, first logged step", 4},
          {"train_loss_last", ColumnKind::kNumber, "training loss, last logged step", 4},
          {"heldout_loss", ColumnKind::kNumber, "final held-out loss", 4}}};
  for (const auto& v : study.variants) {
    const std::string data =
        fmt::format("{}, teacher {}, reasoning {} {}{}", to_string(v.data), v.teacher,
                    to_string(v.reasoning), v.length, v.retrieval ? ", retrieval in context" : "");
    auto counts_text = util::read_file(fs::path(step_path(study, "data", v.name)) / "data.json");
    Json counts = counts_text ? Json::parse(*counts_text, nullptr, false) : Json();
    if (!counts.is_object()) counts = Json::object();
    auto sum = [&](const char* split) -> Cell {
      if (!counts.contains(split)) return {};
      std::int64_t n = 0;
      if (!counts[split].is_object()) return {};
      for (const auto& item : counts[split].items())
        if (item.value().is_number_integer()) n += item.value().get<std::int64_t>();
      return n;
    };
    const Cell verified = counts.value("verified_train", Json()).is_number_integer()
                              ? Cell(counts["verified_train"].get<std::int64_t>())
                              : Cell();
    if (v.retrieval) {
      table.add_row({v.name, data, sum("train"), verified, sum("heldout"), {}, {}, {}, {}, {}, {}});
      continue;
    }
    auto card_text =
        util::read_file(fs::path(step_path(study, "train", v.name)) / "train/run_card.json");
    Json card = card_text ? Json::parse(*card_text, nullptr, false) : Json();
    if (!card.is_object()) card = Json::object();
    auto number = [&](const Json& j) -> Cell {
      if (j.is_number_integer()) return j.get<std::int64_t>();
      if (j.is_number()) return j.get<double>();
      return {};
    };
    Json rows = card.value("rows", Json::object());
    if (!rows.is_object()) rows = Json::object();
    table.add_row({v.name, data, number(rows.value("train", Json())), verified,
                   number(rows.value("heldout", Json())),
                   number(rows.value("train_tokens", Json())), number(card.value("steps", Json())),
                   card.value("train_seconds", Json()).is_number()
                       ? Cell(card["train_seconds"].get<double>())
                       : Cell(),
                   number(card.value("train_loss_first", Json())),
                   number(card.value("train_loss_last", Json())),
                   card.value("heldout_loss_final", Json()).is_number()
                       ? Cell(card["heldout_loss_final"].get<double>())
                       : Cell()});
  }
  return table;
}

// The published PTXBench figures of the study's tasks, read from the folder the study names.
util::Expected<Table> published_table(const StudyFile& study,
                                      const std::map<std::string, std::string>& splits,
                                      const std::set<std::string>& tasks) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(study.published))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  auto rows = report::read_published(files);
  if (!rows) return rows.error();
  Table table{.name = "published_side_by_side",
              .title = "Published PTXBench figures for the study's tasks",
              .description = "Read from " + study.published.string() +
                             " at run time (not part of the repository).",
              .columns = {{"split", ColumnKind::kText, "the study's split of the task"},
                          {"model", ColumnKind::kText, "published model"},
                          {"task", ColumnKind::kText, "task"},
                          {"arch", ColumnKind::kText, "arch"},
                          {"turns", ColumnKind::kInteger, "turn limit"},
                          {"correct", ColumnKind::kMeasure, "correct within the turn limit"},
                          {"correct_with_arch", ColumnKind::kMeasure,
                           "correct and a requested family executed"},
                          {"best_speedup", ColumnKind::kNumber, "best speedup", 2}}};
  for (const auto& r : *rows) {
    if (!tasks.contains(r.task)) continue;
    auto rate = [&](std::optional<int> k) -> Cell {
      if (!k) return {};
      return report::measure_of(report::Proportion{.k = *k, .n = r.trajectories});
    };
    auto split = splits.find(r.task);
    table.add_row({split == splits.end() ? "heldout" : split->second, r.model, r.task, r.arch,
                   static_cast<std::int64_t>(r.turn_limit), rate(r.correct),
                   rate(r.correct_with_arch), r.best_speedup ? Cell(*r.best_speedup) : Cell()});
  }
  return table;
}

// The base model's side, then each variant's.
util::Expected<std::vector<Side>> read_sides(const StudyFile& study,
                                             const std::map<std::string, std::string>& splits) {
  std::vector<Side> sides;
  auto base = read_side(study, study.base.name, false, splits);
  if (!base) return base.error();
  sides.push_back(std::move(*base));
  for (const auto& v : study.variants) {
    auto side = read_side(study, v.name, v.retrieval, splits);
    if (!side) return side.error();
    sides.push_back(std::move(*side));
  }
  return sides;
}

// Splits in the study file's order, train first; only those the runs hold.
std::vector<std::string> splits_present(const StudyFile& study, const Side& side) {
  auto present = [&](const std::string& name) {
    return std::any_of(side.trajectories.begin(), side.trajectories.end(),
                       [&](const auto& t) { return t.split == name; });
  };
  std::vector<std::string> names;
  if (present("train")) names.push_back("train");
  for (const auto& s : study.heldout)
    if (present(s.name)) names.push_back(s.name);
  return names;
}

// The study's turn limits; without any, every turn from 1 to the last one any side reached.
std::vector<int> turn_limits_of(const StudyFile& study, const std::vector<Side>& sides) {
  if (!study.turn_limits.empty()) return study.turn_limits;
  report::TrajectorySet all;
  for (const auto& side : sides)
    for (const auto& t : side.trajectories) all.push_back(&t);
  std::vector<int> limits;
  for (int t = 1; t <= std::max(1, report::last_turn(all)); ++t) limits.push_back(t);
  return limits;
}

// The study file, its models and the tasks of each split.
std::vector<std::string> study_facts(const StudyFile& study,
                                     const std::map<std::string, std::string>& splits,
                                     const std::vector<std::string>& split_names,
                                     const std::set<std::string>& tasks) {
  std::vector<std::string> facts{"study file: " + study.path.filename().string()};
  std::vector<std::string> variant_names;
  for (const auto& v : study.variants) variant_names.push_back(v.name);
  facts.push_back(
      fmt::format("base model: {}; variants: {}", study.base.name, fmt::join(variant_names, ", ")));
  for (const auto& name : split_names) {
    std::vector<std::string> in;
    for (const auto& [task, split] : splits)
      if (split == name && tasks.contains(task)) in.push_back(task);
    facts.push_back(fmt::format("split {}: {}", name, fmt::join(in, ", ")));
  }
  return facts;
}

// Variants whose training data holds no row verified on a GPU, said above the tables.
std::vector<std::string> unverified_data_banners(const StudyFile& study) {
  std::vector<std::string> banners;
  for (const auto& v : study.variants) {
    auto counts = util::read_file(study.out / "steps/data" / v.name / "data.json");
    const Json json = counts ? Json::parse(*counts, nullptr, false) : Json();
    // A damaged data.json says nothing either way: no banner.
    const bool none_verified = json.is_object() && json.contains("verified_train") &&
                               json["verified_train"].is_number_integer() &&
                               json["verified_train"].get<std::int64_t>() == 0;
    if (v.retrieval && none_verified)
      banners.push_back(fmt::format(
          "{}: the teacher's Fixit folder holds no repair verified on a GPU, so retrieval added "
          "nothing to the prompts (this variant is the base model with another context name)",
          v.name));
    else if (!v.retrieval && none_verified)
      banners.push_back(fmt::format(
          "{}: every training row is unverified (repairs not judged on a GPU)", v.name));
  }
  return banners;
}

// comparison.{md,html,json} and tables/<name>.{csv,json}, built aside and renamed into `dir`.
util::Expected<fs::path> write_page(const report::ReportPage& page, const fs::path& dir) {
  auto staged = util::StagedFolder::begin(dir, util::StagedFolder::Start::kEmpty);
  if (!staged) return staged.error();
  util::write_file_atomic(staged->path() / "comparison.md", report::render_markdown(page));
  util::write_file_atomic(staged->path() / "comparison.html", report::render_html(page));
  Json tables = Json::array();
  fs::create_directories(staged->path() / "tables");
  for (const auto& table : page.tables) {
    tables.push_back(report::to_json(table));
    util::write_file_atomic(staged->path() / "tables" / (table.name + ".csv"),
                            report::to_csv(table));
    util::write_file_atomic(staged->path() / "tables" / (table.name + ".json"),
                            util::dump_json(report::to_json(table), 2) + "\n");
  }
  util::write_file_atomic(staged->path() / "comparison.json", util::dump_json(tables, 2) + "\n");
  return staged->publish();
}

}  // namespace

util::Expected<fs::path> write_comparison(const StudyFile& study) {
  auto splits_text = util::read_file(study.out / "steps/suite/tasks/splits.json");
  if (!splits_text) return splits_text.error();
  // Written by the suite step; a damaged file is named, not thrown.
  const Json splits_json = Json::parse(*splits_text, nullptr, false);
  std::map<std::string, std::string> splits;
  if (splits_json.is_object())
    for (const auto& [task, split] : splits_json.items())
      if (split.is_string()) splits[task] = split.get<std::string>();
  if (!splits_json.is_object() || splits.size() != splits_json.size())
    return util::make_error((study.out / "steps/suite/tasks/splits.json").string() +
                            ": expected an object of task: split (rerun the suite step: remove "
                            "its folder)");
  auto sides = read_sides(study, splits);
  if (!sides) return sides.error();
  std::set<std::string> tasks;
  for (const auto& t : sides->front().trajectories) tasks.insert(t.task);
  const std::vector<std::string> split_names = splits_present(study, sides->front());
  const std::vector<int> limits = turn_limits_of(study, *sides);

  report::ReportPage page;
  page.bootstrap_resamples = report::BootstrapSettings{}.resamples;  // the settings used above
  page.bootstrap_seed = report::BootstrapSettings{}.seed;
  page.title = "ptxbench study: " + study.path.stem().string();
  page.facts = study_facts(study, splits, split_names, tasks);
  page.banners.push_back(
      "A difference is inside the noise when its paired test gives p >= 0.05 (the "
      "paired tests under Comparisons); with few tasks and samples most differences are.");
  for (auto& banner : unverified_data_banners(study)) page.banners.push_back(std::move(banner));
  page.tables.push_back(training_table(study));
  page.tables.push_back(replies_table(*sides, split_names, limits));
  page.tables.push_back(metrics_table(study, *sides, split_names, limits));
  page.tables.push_back(paired_table(*sides, split_names, limits));
  if (!study.published.empty()) {
    if (!fs::is_directory(study.published)) {
      page.warnings.push_back(study.published.string() +
                              ": no such folder (published figures left out)");
    } else {
      auto published = published_table(study, splits, tasks);
      if (!published) return published.error();
      page.tables.push_back(std::move(*published));
    }
  }
  return write_page(page, study.out / "comparison");
}

}  // namespace ptxbench::study
