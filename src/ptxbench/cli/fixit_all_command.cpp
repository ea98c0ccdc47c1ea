// `ptxbench fixit all --config fixit.yaml`: every stage, from a config file, with a few of its
// values laid over by flags.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"
#include "ptxbench/fixit/all.hpp"

namespace ptxbench::cli {
namespace {

struct AllFlags {
  std::string config;
  std::string folder;
  std::vector<std::string> runs;
  bool no_gpu = false, include_unverified = false, kernelgen = false;
};

int run_all(const AllFlags& flags) {
  auto read = fixit::read_fixit_config(flags.config);
  if (!read) {
    fmt::print(stderr, "ptxbench fixit all: {}\n", read.error().message);
    return kExitUsage;
  }
  const fixit::FixitConfig config =
      fixit::lay_over(std::move(*read), {.folder = flags.folder,
                                         .runs = {flags.runs.begin(), flags.runs.end()},
                                         .no_gpu = flags.no_gpu,
                                         .include_unverified = flags.include_unverified,
                                         .kernelgen = flags.kernelgen});
  auto env = fixit::load_environment(config.tasks_dir, config.settings);
  if (!env) {
    fmt::print(stderr, "ptxbench fixit all: {}: {}\n", flags.config, env.error().message);
    return kExitUsage;
  }
  return finish_chain(fixit::run_all(config, flags.config, with_fixit_output(std::move(*env)),
                                     {.on_outcome = print_outcome}));
}

}  // namespace

void add_fixit_all(CLI::App& all, CommandContext& context) {
  auto flags = std::make_shared<AllFlags>();
  all.add_option("--config", flags->config, "fixit.yaml (docs/fixit.md)")->required();
  all.add_option("--fixit", flags->folder, "The Fixit folder, instead of the config's");
  all.add_option("--runs", flags->runs, "Run directories, instead of the config's");
  all.add_flag("--no-gpu", flags->no_gpu, "Run no GPU stages (as gpu: false)");
  all.add_flag("--include-unverified", flags->include_unverified,
               "Export unverified rows too (as export.include_unverified: true)");
  all.add_flag("--kernelgen", flags->kernelgen,
               "Export the runs' passing turns as KernelGen rows (as export.kernelgen: true)");
  on_fixit_run(all, context, flags, &run_all);
}

}  // namespace ptxbench::cli
