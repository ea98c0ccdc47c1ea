// The leaderboard: one row per run, model, arch and context level (tasks and splits pooled) with
// correct@t, verified@t and verified_any@t at every turn limit (95% Wilson intervals) and the
// speedups at the last limit, beside the published PTXBench figures pooled the same way (each
// marked like for like or not by prompt size). leaderboard.html sorts by any column and links
// each of our rows to its trajectories in the viewer.
#pragma once
#include <string>

#include "ptxbench/report/report_data.hpp"
#include "ptxbench/report/table.hpp"

namespace ptxbench::report {

Table leaderboard_table(const ReportData& data);

// The page: the table with sortable headers (a short script; cells stay text) and the links.
std::string leaderboard_html(const Table& leaderboard, std::string_view facts);

}  // namespace ptxbench::report
