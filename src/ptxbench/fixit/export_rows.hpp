// Stage 6, export: Fixit rows (system, task, the failing reply, its feedback, then the repaired
// kernel with its explanation as the message's reasoning, loss on that last message only) and
// KernelGen rows (system, task, the earlier turns' replies and the feedback that followed each,
// then the passing reply with its reasoning) from the passing turns of runs, one row per distinct
// passing kernel. Rows whose task is in the
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

struct KernelgenSet {
  std::vector<SftRow> rows;
  std::vector<std::string> left_out;  // "<row id>: why" (duplicates of an earlier row's kernel)
};

// Every PASSED turn of the runs (and, with include_unverified, NOT_RUN turns of trajectories
// not declared to be broken controls), once per (task, arch, kernel source): a later turn, or
// another sample, that passes with the same source as an earlier row is left out and counted.
// Errors: a run directory without trajectories/.
util::Expected<KernelgenSet> export_kernelgen_rows(const std::vector<std::filesystem::path>& runs,
                                                   const std::vector<task::Task>& suite,
                                                   const ExportOptions& options);

}  // namespace ptxbench::fixit
