#include "ptxbench/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/report/leaderboard.hpp"
#include "ptxbench/report/metrics.hpp"
#include "ptxbench/report/plots.hpp"
#include "ptxbench/report/report_data.hpp"
#include "ptxbench/report/report_page.hpp"
#include "ptxbench/report/tables.hpp"
#include "ptxbench/report/view/fixit_page.hpp"
#include "ptxbench/report/view/viewer.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

inline constexpr int kReportFormat = 1;

util::Error invalid(std::string message) {
  return util::make_error(std::move(message));
}

std::optional<util::Error> check_options(const std::vector<fs::path>& run_dirs,
                                         const ReportOptions& options) {
  if (run_dirs.empty()) return invalid("no run directory given");
  if (!options.run_labels.empty() && options.run_labels.size() != run_dirs.size()) {
    return invalid(fmt::format("{} run labels for {} run directories", options.run_labels.size(),
                               run_dirs.size()));
  }
  for (int t : options.turn_limits) {
    if (t < 1) return invalid(fmt::format("turn limit {} is not a positive number", t));
  }
  if (options.bootstrap_resamples < 0) return invalid("bootstrap resamples must not be negative");
  return std::nullopt;
}

// Trajectories written without info.split take their task's split from the suite.
void fill_missing_splits(LoadedRuns& runs, const fs::path& tasks_dir) {
  const auto missing = std::count_if(runs.trajectories.begin(), runs.trajectories.end(),
                                     [](const TrajectoryRecord& t) { return t.split.empty(); });
  if (missing == 0) return;
  const fs::path dir = tasks_dir.empty() ? task::default_tasks_dir() : tasks_dir;
  auto suite = task::load_suite(dir);
  if (!suite) {
    runs.warnings.push_back(fmt::format(
        "{} trajectories do not record their split and the task suite could not be read ({}); "
        "their split is shown as unknown",
        missing, suite.error().message));
    return;
  }
  std::size_t unknown = 0;
  for (auto& t : runs.trajectories) {
    if (!t.split.empty()) continue;
    if (const auto* found = task::find_task(*suite, t.task)) {
      t.split = found->split;
    } else {
      ++unknown;
    }
  }
  if (unknown > 0) {
    runs.warnings.push_back(fmt::format(
        "{} trajectories do not record their split and their task is not in {}; shown as unknown",
        unknown, dir.string()));
  }
}

// Files a previous report wrote into out_dir (listed in its report.json), so a new report
// replaces them instead of leaving stale plots and tables beside the new ones.
void remove_previous_report(const fs::path& out_dir) {
  auto text = util::read_file(out_dir / "report.json");
  if (!text) return;
  json previous = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (previous.is_discarded() || !previous.contains("files")) return;
  for (const auto& file : previous["files"]) {
    if (!file.is_string()) continue;
    const fs::path relative = file.get<std::string>();
    // Only plain relative names inside the directory: never follow a path out of it.
    if (relative.is_absolute() || relative.lexically_normal().string().starts_with("..")) continue;
    std::error_code ignored;
    fs::remove(out_dir / relative, ignored);
  }
}

json options_json(const ReportOptions& options, const ReportData& data) {
  const auto& runs = data.runs.runs;
  json run_list = json::array();
  for (const auto& run : runs) {
    run_list.push_back({{"label", run.label},
                        {"dir", run.dir.string()},
                        {"files", run.files},
                        {"trajectories", run.trajectories}});
  }
  std::vector<std::string> published;
  for (const auto& p : options.published_files) published.push_back(p.string());
  return {{"runs", run_list},
          {"turn_limits", data.turn_limits},
          {"comparisons", options.comparisons},
          {"published", published},
          {"prices", options.prices_file.string()},
          {"bootstrap",
           {{"resamples", options.bootstrap_resamples}, {"seed", options.bootstrap_seed}}}};
}

// Reads, groups and compares: everything the tables and plots are views of.
util::Expected<ReportData> gather(const std::vector<fs::path>& run_dirs,
                                  const ReportOptions& options) {
  Prices prices;
  if (!options.prices_file.empty()) {
    auto loaded = Prices::load(options.prices_file);
    if (!loaded) return loaded.error();
    prices = std::move(*loaded);
  }
  std::vector<ComparisonSpec> specs;
  for (const auto& text : options.comparisons) {
    auto spec = parse_comparison(text);
    if (!spec) return spec.error();
    specs.push_back(std::move(*spec));
  }
  std::vector<PublishedRow> published;
  if (!options.published_files.empty()) {
    auto rows = read_published(options.published_files);
    if (!rows) return rows.error();
    published = std::move(*rows);
  }
  auto runs = read_runs(label_runs(run_dirs, options.run_labels),
                        ReadProgress{.every = options.progress_every, .report = options.progress});
  if (!runs) return runs.error();
  fill_missing_splits(*runs, options.tasks_dir);

  const BootstrapSettings bootstrap{.resamples = options.bootstrap_resamples,
                                    .seed = options.bootstrap_seed};
  ReportData data = group_runs(std::move(*runs), options.turn_limits, bootstrap, std::move(prices));
  for (const auto& spec : specs) {
    auto comparison = compare(spec, data.runs.trajectories, data.turn_limits, bootstrap);
    if (!comparison) return comparison.error();
    for (const auto& cell : comparison->unmatched) {
      data.runs.warnings.push_back(fmt::format("--compare {}: no partner for {}", spec.text, cell));
    }
    data.comparisons.push_back(std::move(*comparison));
  }
  data.published = std::move(published);
  return data;
}

// When turns were evaluated but not one reached a GPU stage, every correctness and speed figure
// is "not measured", and the page says so before anything else.
std::optional<std::string> no_gpu_banner(const std::vector<TrajectoryRecord>& trajectories) {
  int not_run = 0;
  for (const auto& trajectory : trajectories) {
    for (const auto& turn : trajectory.turns) {
      if (turn.verdict == eval::Verdict::kNotRun) ++not_run;
      if (turn.verdict > eval::Verdict::kNotRun && turn.verdict < eval::Verdict::kInternalError)
        return std::nullopt;  // a GPU stage ran and judged this turn
    }
  }
  if (not_run == 0) return std::nullopt;
  return fmt::format(
      "No GPU stage ran: {} turn(s) are NOT_RUN (compiled and statically checked only). "
      "Correctness, verification and speedups are not measured here, not 0%; run on a GPU of "
      "the task's arch to measure them.",
      not_run);
}

// When some trajectories (not all: the banner covers that) were never judged, the page says how
// many, since they leave every rate's denominator.
std::optional<std::string> not_judged_fact(const std::vector<TrajectoryRecord>& trajectories) {
  int not_judged = 0;
  for (const auto& trajectory : trajectories) {
    const int every_turn = std::numeric_limits<int>::max();
    not_judged += !state_within(trajectory, every_turn).measured;
  }
  if (not_judged == 0) return std::nullopt;
  return fmt::format(
      "{} of {} trajectories were never judged (their GPU stages did not run): they count in "
      "compiled only and in the not_measured column of correctness, never as incorrect",
      not_judged, trajectories.size());
}

ReportPage page_of(const ReportData& data, const ReportOptions& options) {
  ReportPage page{.tables = build_tables(data),
                  .plots = build_plots(data),
                  .viewer = options.viewer,
                  .bootstrap_resamples = options.bootstrap_resamples,
                  .bootstrap_seed = options.bootstrap_seed};
  std::vector<std::string> labels;
  for (const auto& run : data.runs.runs) labels.push_back(run.label);
  page.facts.push_back(fmt::format("{} trajectories from {} run(s): {}",
                                   data.runs.trajectories.size(), data.runs.runs.size(),
                                   fmt::join(labels, ", ")));
  page.facts.push_back(fmt::format("Turn limits {}; generated {} by ptxbench {}",
                                   fmt::join(data.turn_limits, ", "), agent::utc_timestamp(),
                                   config::kVersion));
  if (auto fact = not_judged_fact(data.runs.trajectories)) page.facts.push_back(*fact);
  page.warnings = data.runs.warnings;
  if (auto banner = no_gpu_banner(data.runs.trajectories)) page.banners.push_back(*banner);
  Table leaderboard = leaderboard_table(data);
  leaderboard.on_page = false;  // its own page, leaderboard.html
  page.tables.push_back(std::move(leaderboard));
  return page;
}

util::Expected<agent::Trajectory> read_whole(const fs::path& source) {
  auto text = util::read_file(source);
  if (!text) return text.error();
  json document = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return invalid("not valid JSON");
  return agent::trajectory_from_json(document);
}

// One page per trajectory (each file read again, whole this time, and dropped once written) and
// per Fixit row, then the index.
std::vector<fs::path> write_viewer(const ReportData& data,
                                   const std::vector<view::FixitCase>& fixit_cases,
                                   const ReportOptions& options, ReportPaths& paths) {
  view::ViewerWriter viewer(paths.out_dir);
  std::size_t done = 0;
  for (const auto& record : data.runs.trajectories) {
    auto trajectory = read_whole(record.source);
    if (!trajectory) {
      paths.warnings.push_back(fmt::format("{}: no viewer page: {}", record.source.string(),
                                           trajectory.error().message));
      continue;
    }
    // The split the tables use (the suite's, for a file that does not record one), so a
    // cell's link finds its trajectories; the agent's reader would have defaulted it to train.
    trajectory->info.split = record.split.empty() ? "unknown" : record.split;
    viewer.add_trajectory(*trajectory, record.run);
    if (options.progress && ++done % options.progress_every == 0) {
      options.progress(fmt::format("viewer: {} trajectory pages", done));
    }
  }
  for (const auto& c : fixit_cases) {
    viewer.add_item(view::fixit_item(c), view::fixit_page(c, "../index.html"));
  }
  paths.viewer_items = viewer.items();
  paths.viewer_index = paths.out_dir / view::kViewDir / "index.html";
  return viewer.finish();
}

// Writes every file of the page into paths.out_dir, report.json last (it lists the others).
void write_files(const ReportPage& page, const json& options,
                 const std::vector<fs::path>& viewer_files, ReportPaths& paths) {
  json report{{"ptxbench_report_format", kReportFormat},
              {"ptxbench_version", config::kVersion},
              {"options", options},
              {"warnings", page.warnings},
              {"tables", json::object()},
              {"plots", json::array()},
              {"files", json::array()}};
  auto write = [&](const fs::path& relative, std::string_view content) {
    util::write_file_atomic(paths.out_dir / relative, content);
    report["files"].push_back(relative.generic_string());
    return paths.out_dir / relative;
  };
  for (const auto& table : page.tables) {
    const json table_json = to_json(table);
    paths.tables.push_back(write(fs::path("tables") / (table.name + ".csv"), to_csv(table)));
    paths.tables.push_back(write(fs::path("tables") / (table.name + ".json"), table_json.dump(1)));
    report["tables"][table.name] = table_json;
  }
  for (const auto& plot : page.plots) {
    paths.plots.push_back(write(fs::path("plots") / (plot.id + ".svg"),
                                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + plot.svg));
    report["plots"].push_back({{"id", plot.id}, {"title", plot.title}, {"empty", plot.empty}});
  }
  paths.summary_markdown = write("summary.md", render_markdown(page));
  paths.html = write("report.html", render_html(page));
  for (const auto& table : page.tables) {
    if (table.name != "leaderboard") continue;
    paths.leaderboard =
        write("leaderboard.html", leaderboard_html(table, page.facts.empty() ? "" : page.facts[0]));
  }
  for (const auto& file : viewer_files) report["files"].push_back(file.generic_string());
  paths.json = paths.out_dir / "report.json";
  report["files"].push_back("report.json");
  util::write_file_atomic(paths.json, report.dump(1));
}

}  // namespace

util::Expected<ReportPaths> write_report(const std::vector<fs::path>& run_dirs,
                                         const ReportOptions& options) {
  if (auto problem = check_options(run_dirs, options)) return *problem;
  auto data = gather(run_dirs, options);
  if (!data) return data.error();
  std::vector<view::FixitCase> fixit_cases;
  for (const auto& dir : options.fixit_dirs) {
    auto cases = view::read_fixit_cases(dir);
    if (!cases) return cases.error();
    fixit_cases.insert(fixit_cases.end(), std::make_move_iterator(cases->begin()),
                       std::make_move_iterator(cases->end()));
  }
  if (options.progress) options.progress("computing tables and plots");
  const ReportPage page = page_of(*data, options);

  ReportPaths paths{
      .out_dir = options.out_dir.empty() ? run_dirs.front() / "report" : options.out_dir,
      .trajectories = data->runs.trajectories.size(),
      .warnings = data->runs.warnings};
  std::error_code error;
  fs::create_directories(paths.out_dir, error);
  if (error) {
    return invalid(fmt::format("{}: cannot create: {}", paths.out_dir.string(), error.message()));
  }
  remove_previous_report(paths.out_dir);
  std::vector<fs::path> viewer_files;
  if (options.viewer) viewer_files = write_viewer(*data, fixit_cases, options, paths);
  write_files(page, options_json(options, *data), viewer_files, paths);
  return paths;
}

}  // namespace ptxbench::report
