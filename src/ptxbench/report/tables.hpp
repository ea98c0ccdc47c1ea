// The report's tables, built from ReportData: what each row is and each column means is written
// into the table itself (and into docs/reports.md).
#pragma once
#include <vector>

#include "ptxbench/report/report_data.hpp"
#include "ptxbench/report/table.hpp"

namespace ptxbench::report {

Table runs_table(const ReportData& data);
Table correctness_table(const ReportData& data);
Table speedup_table(const ReportData& data);
Table splits_table(const ReportData& data);
Table error_taxonomy_table(const ReportData& data);
Table compile_errors_table(const ReportData& data);
Table usage_by_turn_table(const ReportData& data);
Table usage_totals_table(const ReportData& data);
// Per run: GPU-seconds per verdict and the compile and verdict caches' hit rates.
Table judging_table(const ReportData& data);
// Where the GPU time of each run's verdicts went, per stage and part (judging_table.cpp).
Table judging_parts_table(const ReportData& data);
Table comparison_table(const ReportData& data);
Table published_table(const ReportData& data);
Table published_side_by_side_table(const ReportData& data);
Table trajectory_states_table(const ReportData& data);

// All of them, in page order.
std::vector<Table> build_tables(const ReportData& data);

}  // namespace ptxbench::report
