// Stage 6, export: Fixit rows (system, task, the failing reply, its feedback, then reasoning +
// repaired kernel with loss on that last message only) and KernelGen rows (system, task,
// reasoning + a verified kernel) from the passing turns of runs. Rows whose task is in the
// suite's held-out split go to "heldout", never "train". Unverified repairs are left out
// unless asked for, and then carry "verified": false.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ptxbench/fixit/balance.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/fixit/sft_row.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::fixit {

struct ExportOptions {
  bool include_unverified = false;
};

struct ExportInputs {
  const std::vector<MinedRow>* mined = nullptr;
  const std::vector<RepairRow>* repairs = nullptr;
  const std::vector<VerifiedRow>* verified = nullptr;
  const std::vector<ExplainedRow>* explained = nullptr;
  const Selection* selection = nullptr;  // null: every mined row
};

struct ExportedSet {
  std::vector<SftRow> fixit;
  std::vector<SftRow> kernelgen;
  std::vector<std::string> left_out;  // "<mined id>: why"
};

// "train" or "heldout" from the suite (a task missing from it counts as held out).
std::string split_of(const std::vector<task::Task>& suite, const std::string& task);

ExportedSet export_fixit_rows(const ExportInputs& inputs, const std::vector<task::Task>& suite,
                              const ExportOptions& options);

// Every PASSED turn of the runs (and, with include_unverified, NOT_RUN turns of trajectories
// not declared to be broken controls). Errors: a run directory without trajectories/.
util::Expected<std::vector<SftRow>> export_kernelgen_rows(
    const std::vector<std::filesystem::path>& runs, const std::vector<task::Task>& suite,
    const ExportOptions& options);

}  // namespace ptxbench::fixit
