// Fixit rows in the viewer: one page per mined failure with the failing kernel, its verdict and
// the feedback the model saw, the teacher's repair and its verdict, the diff between the two,
// the verification and the explanation. Read from a Fixit folder's JSON Lines (docs/fixit.md);
// only read, so the folder's lock is not taken and a running stage is not disturbed.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/report/view/viewer.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::report::view {

// One mined failure and what the later stages made of it (absent where a stage has not run).
struct FixitCase {
  fixit::MinedRow mined;
  std::optional<fixit::RepairRow> repair;
  std::optional<fixit::VerifiedRow> verified;
  std::optional<fixit::ExplainedRow> explained;
};

std::string fixit_page(const FixitCase& row, std::string_view back_href);
IndexItem fixit_item(const FixitCase& row);

// The cases of a Fixit folder; an unreadable file is an Error naming it.
util::Expected<std::vector<FixitCase>> read_fixit_cases(const std::filesystem::path& fixit_dir);

// Adds every case of the folder to the viewer; returns how many.
util::Expected<std::size_t> add_fixit_folder(ViewerWriter& viewer,
                                             const std::filesystem::path& fixit_dir);

}  // namespace ptxbench::report::view
