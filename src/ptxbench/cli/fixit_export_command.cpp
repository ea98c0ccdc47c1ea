// `ptxbench fixit export`: the SFT rows (JSON Lines) and the dataset card.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_output.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"

namespace ptxbench::cli {
namespace {

struct ExportFlags {
  FixitFolderFlags where;
  std::string selection;
  bool include_unverified = false;
  std::vector<std::string> kernelgen_runs;
  std::string teacher_name;  // whose repairs
  std::string length, explainer_name;
};

int run_export(const ExportFlags& flags) {
  std::vector<std::filesystem::path> runs(flags.kernelgen_runs.begin(), flags.kernelgen_runs.end());
  return with_folder(
      flags.where, {}, [&](const fixit::FixitFolder& folder, const fixit::Environment& env) {
        return finish_stage(
            "export",
            fixit::fixit_export(folder, env, flags.selection, flags.teacher_name,
                                flags.include_unverified, runs,
                                {.explainer = flags.explainer_name, .length_bin = flags.length}));
      });
}

}  // namespace

void add_fixit_export(CLI::App& exporter, CommandContext& context) {
  auto flags = std::make_shared<ExportFlags>();
  add_fixit_folder_flags(exporter, flags->where);
  exporter.add_option("--selection", flags->selection, "Recipe whose selection to export");
  exporter.add_flag("--include-unverified", flags->include_unverified,
                    "Also rows not verified on a GPU (marked \"verified\": false)");
  exporter.add_option("--kernelgen", flags->kernelgen_runs,
                      "Runs whose passing turns become KernelGen rows");
  exporter.add_option("--teacher-name", flags->teacher_name,
                      "Take the repairs of this teacher (needed when several exist)");
  exporter.add_option("--length", flags->length,
                      "Take the explanations of this length bin (needed when several exist)");
  exporter.add_option("--explainer-name", flags->explainer_name,
                      "Take the explanations of this explainer (needed when several exist)");
  on_fixit_run(exporter, context, flags, &run_export);
}

}  // namespace ptxbench::cli
