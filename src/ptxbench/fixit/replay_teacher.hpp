// The `replay` teacher: repairs and explanations recorded with the project. A catalog
// (solutions/fixit/catalog.json) pairs each shipped broken control with its repair (the expert
// solution it was derived from) and a first-person explanation; a mined row is matched to an
// entry by the file its reply was replayed from, else by its normalised code.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/fixit/repair.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

struct ReplayCatalogEntry {
  std::filesystem::path broken;
  std::filesystem::path repair;
  std::filesystem::path explanation;
};

// Paths in the catalog are relative to `solutions_dir`. Errors name the file and field.
util::Expected<std::vector<ReplayCatalogEntry>> load_replay_catalog(
    const std::filesystem::path& solutions_dir);

struct ReplayTeachers {
  Teacher repair;
  Teacher explainer;
  std::vector<std::string> unmatched;  // mined ids with no catalog entry
};

// Books keyed by each row's repair trajectory id and explain call id.
util::Expected<ReplayTeachers> make_replay_teachers(const std::vector<ReplayCatalogEntry>& catalog,
                                                    const std::vector<MinedRow>& rows,
                                                    const std::vector<task::Task>& suite);

}  // namespace ptxbench::fixit
