// Reads the trajectories of run directories (RUN_DIR/trajectories/*.json), in file-name order,
// reporting progress every N files. A file that cannot be read is skipped with a warning; a
// directory that is not a run is an Error.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/report/trajectory_record.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

struct RunInput {
  std::filesystem::path dir;
  std::string label;  // how the report names this run
};

struct RunSummary {
  std::string label;
  std::filesystem::path dir;
  std::size_t files = 0;         // trajectory files found
  std::size_t trajectories = 0;  // of those, read
};

struct LoadedRuns {
  std::vector<TrajectoryRecord> trajectories;
  std::vector<RunSummary> runs;
  std::vector<std::string> warnings;
};

struct ReadProgress {
  std::size_t every = 500;
  std::function<void(std::string_view line)> report;  // null: silent
};

util::Expected<LoadedRuns> read_runs(const std::vector<RunInput>& runs,
                                     const ReadProgress& progress);

// Labels for run directories: the given ones, else directory names made unique ("a", "a-2").
std::vector<RunInput> label_runs(const std::vector<std::filesystem::path>& dirs,
                                 const std::vector<std::string>& labels);

}  // namespace ptxbench::report
