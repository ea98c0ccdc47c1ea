// `throughput records`: where the GPU time of a real stream of verdicts went. Reads evaluation
// records (JSON Lines, as `ptxbench eval --json` writes them) and prints, per GPU stage and part,
// the median, 95th percentile and mean seconds (report/stage_parts_summary.hpp), then verdicts per
// GPU-hour of the stream when --wall-seconds is given (the stream's wall time on its GPUs).
//   throughput records RECORDS.jsonl... [--gpus N --wall-seconds S]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/report/stage_parts_summary.hpp"
#include "throughput_records.hpp"

int throughput_records(int argc, char** argv) {
  CLI::App app{"Per-part seconds of GPU verdicts (p50/p95/mean)"};
  std::vector<std::string> files;
  double wall_seconds = 0;
  int gpus = 1;
  app.add_option("records", files, "JSON Lines of evaluation records")->required();
  app.add_option("--wall-seconds", wall_seconds, "the stream's wall time, for verdicts/GPU-h");
  app.add_option("--gpus", gpus, "GPUs the stream used")->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);
  std::vector<std::vector<ptxbench::eval::StageRecord>> verdicts;
  int records = 0, unreadable = 0, cached = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) {
      fmt::print(stderr, "throughput records: cannot read {}\n", file);
      return 2;
    }
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto json = nlohmann::json::parse(line, nullptr, false);
      auto evaluation = json.is_discarded() ? ptxbench::util::Expected<ptxbench::eval::Evaluation>(
                                                  ptxbench::util::make_error("not JSON"))
                                            : ptxbench::eval::evaluation_from_json(json);
      if (!evaluation) {
        ++unreadable;
        continue;
      }
      ++records;
      if (evaluation->cached) ++cached;
      auto costs = ptxbench::report::gpu_stage_costs(*evaluation);
      if (!costs.empty()) verdicts.push_back(std::move(costs));
    }
  }
  fmt::print("{} records ({} unreadable lines), {} judged on a GPU, {} from the verdict cache\n\n",
             records, unreadable, verdicts.size(), cached);
  fmt::print("{}", ptxbench::report::stage_parts_markdown(
                       ptxbench::report::summarise_stage_parts(verdicts)));
  if (wall_seconds > 0) {
    fmt::print("\n{:.0f} verdicts per GPU-hour ({} records in {:.1f} s on {} GPU(s))\n",
               records * 3600.0 / (wall_seconds * gpus), records, wall_seconds, gpus);
  }
  return unreadable > 0 && records == 0 ? 1 : 0;
}
