#include "ptxbench/report/run_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::report {
namespace {
namespace fs = std::filesystem;

util::Expected<std::vector<fs::path>> trajectory_files(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return util::make_error(dir.string() + ": not a directory");
  }
  const fs::path folder = dir / "trajectories";
  if (!fs::is_directory(folder, error)) {
    return util::make_error(dir.string() + ": not a run directory (no trajectories/ folder)");
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  if (error) return util::make_error(folder.string() + ": " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string directory_name(const fs::path& dir) {
  auto name = dir.lexically_normal().filename().string();
  if (name.empty()) name = dir.lexically_normal().parent_path().filename().string();
  return name.empty() ? std::string("run") : name;
}

}  // namespace

std::vector<RunInput> label_runs(const std::vector<fs::path>& dirs,
                                 const std::vector<std::string>& labels) {
  std::vector<RunInput> runs;
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    std::string label =
        i < labels.size() && !labels[i].empty() ? labels[i] : directory_name(dirs[i]);
    const int count = ++seen[label];
    if (count > 1) label += fmt::format("-{}", count);
    runs.push_back(RunInput{.dir = dirs[i], .label = label});
  }
  return runs;
}

util::Expected<LoadedRuns> read_runs(const std::vector<RunInput>& runs,
                                     const ReadProgress& progress) {
  std::vector<std::vector<fs::path>> files_per_run;
  std::size_t total = 0;
  for (const auto& run : runs) {
    auto files = trajectory_files(run.dir);
    if (!files) return files.error();
    total += files->size();
    files_per_run.push_back(std::move(*files));
  }
  LoadedRuns loaded;
  loaded.trajectories.reserve(total);
  std::size_t done = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    RunSummary summary{
        .label = runs[r].label, .dir = runs[r].dir, .files = files_per_run[r].size()};
    for (const auto& file : files_per_run[r]) {
      auto text = util::read_file(file, util::kMaxRecordFileBytes);
      auto record =
          text ? parse_trajectory(*text, file) : util::Expected<TrajectoryRecord>(text.error());
      if (record) {
        record->run = runs[r].label;
        loaded.trajectories.push_back(std::move(*record));
        ++summary.trajectories;
      } else {
        loaded.warnings.push_back("skipped " + record.error().message);
      }
      ++done;
      if (progress.report && progress.every > 0 && done % progress.every == 0 && done < total) {
        progress.report(fmt::format("read {}/{} trajectory files", done, total));
      }
    }
    loaded.runs.push_back(std::move(summary));
  }
  if (loaded.trajectories.empty() && !loaded.warnings.empty()) {
    // Nothing but unreadable files: an empty report would look like a run without results.
    return util::make_error(
        fmt::format("no readable trajectory: all {} file(s) were skipped; the "
                    "first: {}",
                    loaded.warnings.size(), loaded.warnings.front()));
  }
  if (progress.report) {
    progress.report(fmt::format(
        "read {} trajectories from {} run(s){}", loaded.trajectories.size(), runs.size(),
        loaded.warnings.empty() ? std::string()
                                : fmt::format(", {} warning(s)", loaded.warnings.size())));
  }
  return loaded;
}

}  // namespace ptxbench::report
