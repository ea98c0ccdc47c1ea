// `ptxbench merge SHARD_DIR... --out RUN_DIR`, or `ptxbench merge RUN_DIR` for a run submitted
// with `ptxbench run --slurm` (its shards/shard-* into RUN_DIR/merged): shard run folders into
// one run that `ptxbench report` reads. Refuses shards of different configurations; merging
// again picks up what resumed shards added (slurm/run_merge.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "ptxbench/cli/command.hpp"
#include "ptxbench/slurm/run_merge.hpp"

namespace ptxbench::cli {
namespace {
namespace fs = std::filesystem;

struct MergeFlags {
  std::vector<std::string> inputs;
  std::string out;
};

int run_merge(const MergeFlags& flags) {
  std::vector<fs::path> shards;
  fs::path out = flags.out;
  if (flags.inputs.size() == 1 && fs::is_directory(fs::path(flags.inputs[0]) / "shards")) {
    const fs::path run = flags.inputs[0];
    for (const auto& entry : fs::directory_iterator(run / "shards")) {
      if (fs::exists(entry.path() / "run.json")) shards.push_back(entry.path());
    }
    std::sort(shards.begin(), shards.end());
    if (out.empty()) out = run / "merged";
  } else {
    shards.assign(flags.inputs.begin(), flags.inputs.end());
  }
  if (out.empty()) {
    fmt::print(stderr, "ptxbench merge: --out: required when merging shard folders\n");
    return kExitUsage;
  }
  auto summary = slurm::merge_runs(shards, out);
  if (!summary) {
    fmt::print(stderr, "ptxbench merge: {}\n", summary.error().message);
    return kExitUsage;
  }
  fmt::print("{} shards merged into {}: {} trajectories added, {} updated, {} unchanged\n",
             summary->shards, out.string(), summary->added, summary->updated, summary->unchanged);
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<MergeFlags>();
  auto* sub = app.add_subcommand("merge", "");
  sub->add_option("inputs", flags->inputs,
                  "Shard run folders, or one run submitted with --slurm (its shards/)")
      ->required();
  sub->add_option("--out", flags->out,
                  "The merged run folder (default for a --slurm run: RUN/merged)");
  sub->callback([flags, &context] { context.exit_code = run_merge(*flags); });
}

}  // namespace ptxbench::cli
