// The original research's published aggregates (one row per model, arch, task and turn limit:
// correctness_rate_by_release_date.csv, arch_instruction_correctness_by_release_date.csv,
// best_speedup_by_release_date.csv), read so they can stand beside our rows. Rows of the three
// files that describe the same experiment are merged into one.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::report {

struct PublishedRow {
  std::string model;
  std::string arch;
  std::string task;        // our name for their definition
  std::string definition;  // their name
  std::string experiment;  // last component of their exp_dir: tells repeated experiments apart
  int turn_limit = 0;
  int trajectories = 0;
  std::optional<int> correct;            // a correct kernel within the turn limit
  std::optional<int> correct_with_arch;  // correct and a requested family executed (dynamic SASS)
  std::optional<double> best_speedup;    // over the trajectories: baseline / kernel
};

// Their definition names mapped to ours: mha_with_lse_* -> mha_fwd_lse_*; the rest are equal.
std::string our_task_name(std::string_view definition);

// Reads and merges the files; a file without the required columns, or with a value that is not
// a number where one is required, is an Error naming the file, row and column.
util::Expected<std::vector<PublishedRow>> read_published(
    const std::vector<std::filesystem::path>& files);

// The parsing step alone (path is used in messages only).
util::Expected<std::vector<PublishedRow>> parse_published(std::string_view csv_text,
                                                          const std::filesystem::path& path);

}  // namespace ptxbench::report
