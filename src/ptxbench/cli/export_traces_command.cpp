// `ptxbench export-traces RUN_DIR... --out DIR [--exploits FILE] [--name NAME] [--tasks-dir DIR]`:
// every completed turn of the runs as one JSON Lines file per split (DIR/train/traces.jsonl,
// DIR/heldout/traces.jsonl) that `datasets` loads, and its dataset card (DIR/README.md). DIR is
// built aside and swapped into place (other files in it are kept); the runs are only read.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/traces/dataset_card.hpp"
#include "ptxbench/traces/trace_rows.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;

struct ExportTracesFlags {
  std::vector<std::string> runs;
  std::string out, exploits, name = "ptxbench-traces", tasks_dir;
};

// Every split a row can have; a file's data lands in exactly one of them.
constexpr std::array<const char*, 3> kSplits{"train", "heldout", "unknown"};

// The split of a trajectory file: the one it records, else its task's in the suite (the agent's
// reader would default a missing split to "train", which would put held-out tasks there), else
// "unknown". Anything but train or heldout is "unknown", so a split never names another path.
class SplitOf {
 public:
  explicit SplitOf(std::string tasks_dir) : tasks_dir_(std::move(tasks_dir)) {}
  std::string operator()(const nlohmann::json& document, const std::string& task) {
    const auto& info = document.contains("info") ? document.at("info") : nlohmann::json();
    std::string split;
    if (info.is_object() && info.contains("split") && info.at("split").is_string()) {
      split = info.at("split").get<std::string>();
    } else if (const auto* suite = this->suite(); suite != nullptr) {
      if (const auto* found = task::find_task(*suite, task)) split = found->split;
    }
    return split == "train" || split == "heldout" ? split : "unknown";
  }

 private:
  const std::vector<task::Task>* suite() {
    if (!loaded_) {
      loaded_ = true;
      auto suite =
          task::load_suite(tasks_dir_.empty() ? task::default_tasks_dir() : fs::path(tasks_dir_));
      if (suite) suite_ = std::move(*suite);
    }
    return suite_ ? &*suite_ : nullptr;
  }
  std::string tasks_dir_;
  bool loaded_ = false;
  std::optional<std::vector<task::Task>> suite_;
};

// The trajectory files of a run, in name order; an error when it is not a run.
util::Expected<std::vector<fs::path>> trajectory_files(const fs::path& run) {
  if (!fs::exists(run / "run.json") || !fs::is_directory(run / "trajectories"))
    return util::make_error(
        fmt::format("{}: not a run directory (no run.json and trajectories/)", run.string()));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(run / "trajectories")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

int run_export_traces(const ExportTracesFlags& flags) {
  if (auto out = util::check_output_folder(flags.out); !out) {
    fmt::print(stderr, "ptxbench export-traces: --out: {}\n", out.error().message);
    return kExitUsage;
  }
  traces::ExploitList exploits;
  if (!flags.exploits.empty()) {
    auto loaded = traces::load_exploit_list(flags.exploits);
    if (!loaded) {
      fmt::print(stderr, "ptxbench export-traces: {}\n", loaded.error().message);
      return kExitUsage;
    }
    exploits = std::move(*loaded);
  }
  std::vector<traces::TraceRow> rows;
  std::vector<std::string> run_names;
  SplitOf split_of(flags.tasks_dir);
  for (const auto& run : flags.runs) {
    auto files = trajectory_files(run);
    if (!files) {
      fmt::print(stderr, "ptxbench export-traces: {}\n", files.error().message);
      return kExitUsage;
    }
    const auto run_name = fs::path(run).lexically_normal().filename().string();
    run_names.push_back(run_name);
    for (const auto& file : *files) {
      auto text = util::read_file(file);
      auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
      auto trajectory = json.is_discarded() || json.is_null()
                            ? util::Expected<agent::Trajectory>(util::make_error("not valid JSON"))
                            : agent::trajectory_from_json(json);
      if (!trajectory) {
        fmt::print(stderr, "ptxbench export-traces: {}: {}\n", file.string(),
                   trajectory.error().message);
        return kExitUsage;
      }
      trajectory->info.split = split_of(json, trajectory->info.task);
      auto trajectory_rows = traces::rows_of(*trajectory, run_name, exploits);
      rows.insert(rows.end(), trajectory_rows.begin(), trajectory_rows.end());
    }
  }
  std::map<std::string, std::string> lines;  // split -> its rows
  for (const auto& row : rows) lines[row.split] += traces::to_json(row).dump() + "\n";
  // Other files in the folder (a dataset repository's) are kept; the two written appear together.
  auto staged = util::StagedFolder::begin(flags.out, util::StagedFolder::Start::kExisting);
  if (!staged) {
    fmt::print(stderr, "ptxbench export-traces: --out: {}\n", staged.error().message);
    return kExitUsage;
  }
  const traces::CardInputs card{
      .name = flags.name, .runs = run_names, .exploit_list_given = !flags.exploits.empty()};
  // The one file of earlier exports (every split together) and the files of splits without
  // rows now would otherwise stay beside the new ones.
  fs::remove(staged->path() / "traces.jsonl");
  for (const char* split : kSplits) {
    const fs::path file = staged->path() / traces::data_file(split);
    fs::remove(file);
    if (!lines.contains(split)) continue;
    fs::create_directories(file.parent_path());
    util::write_file_atomic(file, lines[split]);
  }
  if (rows.empty()) util::write_file_atomic(staged->path() / traces::data_file("train"), "");
  util::write_file_atomic(staged->path() / "README.md", traces::render_dataset_card(card, rows));
  if (auto published = staged->publish(); !published) {
    fmt::print(stderr, "ptxbench export-traces: --out: {}\n", published.error().message);
    return kExitUsage;
  }
  std::vector<std::string> counts;
  for (const auto& [split, text] : lines)
    counts.push_back(fmt::format("{} {}", std::count(text.begin(), text.end(), '\n'), split));
  fmt::print("{} turns from {} run(s) written to {} ({})\n", rows.size(), flags.runs.size(),
             flags.out,
             counts.empty() ? std::string("none") : fmt::format("{}", fmt::join(counts, ", ")));
  return kExitOk;
}

}  // namespace

void add_export_traces_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<ExportTracesFlags>();
  auto* sub = app.add_subcommand("export-traces", "");
  sub->add_option("runs", flags->runs, "Run directories")->required();
  sub->add_option("--out", flags->out, "Dataset directory to write")->required();
  sub->add_option("--exploits", flags->exploits,
                  "Turns judged as exploits after the run: code hashes or TRAJECTORY_ID#TURN, "
                  "one a line");
  sub->add_option("--name", flags->name, "The dataset's name in its card")->capture_default_str();
  sub->add_option("--tasks-dir", flags->tasks_dir,
                  "Task suite giving the split of trajectories that do not record it (default: "
                  "built-in)");
  sub->callback([flags, &context] { context.exit_code = run_export_traces(*flags); });
}

}  // namespace ptxbench::cli
