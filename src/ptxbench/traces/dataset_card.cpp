#include "ptxbench/traces/dataset_card.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ptxbench/traces/trace_rows.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::traces {
namespace {

// The Hugging Face card's YAML header, written by yaml-cpp's emitter so that any name stays
// one value.
std::string front_matter(const CardInputs& inputs) {
  YAML::Emitter yaml;
  yaml << YAML::BeginMap;
  yaml << YAML::Key << "pretty_name" << YAML::Value << YAML::DoubleQuoted << inputs.name;
  yaml << YAML::Key << "tags" << YAML::Value << YAML::BeginSeq;
  for (const char* tag : {"code", "cuda", "ptx", "gpu-kernels", "trajectories"}) yaml << tag;
  yaml << YAML::EndSeq;
  yaml << YAML::Key << "configs" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  yaml << YAML::Key << "config_name" << YAML::Value << "default";
  yaml << YAML::Key << "data_files" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  yaml << YAML::Key << "split" << YAML::Value << "train";
  yaml << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << inputs.data_file;
  yaml << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  // The declared column types (trace_rows.hpp) follow as ptxbench's own fixed YAML.
  return fmt::format("---\n{}\ndataset_info:\n{}---\n\n", yaml.c_str(), trace_features_yaml());
}

}  // namespace

std::string render_dataset_card(const CardInputs& inputs, const std::vector<TraceRow>& rows) {
  std::map<std::string, int> verdicts;
  std::set<std::string> models, tasks, trajectories;
  int exploits = 0;
  for (const auto& row : rows) {
    ++verdicts[row.verdict];
    models.insert(row.model);
    tasks.insert(row.task);
    trajectories.insert(row.run + "/" + row.trajectory_id);
    exploits += row.exploit ? 1 : 0;
  }
  std::vector<std::string> runs;
  for (const auto& run : inputs.runs) runs.push_back(util::markdown_inline(run));
  std::string out = front_matter(inputs);
  out += fmt::format("# {}\n\n", util::markdown_inline(inputs.name));
  out += fmt::format(
      "Multi-turn trajectories of language models writing architecture-specific PTX/CUDA kernels "
      "for ptxbench tasks, one row per model turn: the reply, the candidate extracted from it, "
      "and the judge's verdict on it (static SASS checks, correctness against the reference, "
      "executed instruction families, timing against the vendor-library baseline).\n\n"
      "{} rows from {} trajectories of {} model(s) on {} task(s), exported from: {}.\n\n",
      rows.size(), trajectories.size(), models.size(), tasks.size(), fmt::join(runs, ", "));
  out +=
      "```python\nfrom datasets import load_dataset\nrows = load_dataset(\"json\", "
      "data_files=" +
      nlohmann::json(inputs.data_file).dump() + ", split=\"train\")\n```\n\n";
  out +=
      "## Columns\n\n"
      "| column | meaning |\n|---|---|\n"
      "| run, trajectory_id | the run folder and `<model>__<task>__<arch>__<context>__s<sample>` "
      "|\n"
      "| model, provider | the model's name in the run and its provider kind |\n"
      "| task, arch, context, split, sample | the grid cell (context: none, isa, guide, examples) "
      "|\n"
      "| turn | 1-based turn of the conversation |\n"
      "| system_prompt, task_prompt | the conversation's opening messages |\n"
      "| reply, reasoning | the model's reply as received, and its reasoning_content (\"\": none) "
      "|\n"
      "| feedback | the message sent back after the turn (\"\": the last turn) |\n"
      "| code, code_hash | the candidate extracted from the reply (null: the reply had none) |\n"
      "| verdict, message | the judge's verdict (NO_CODE ... PASSED) and its one-line reason |\n"
      "| correct, passed | outputs correct; correct and every requested family executed |\n"
      "| requested_families | the instruction families the task asks for on this arch |\n"
      "| executed_families | measured warp-level executions per family: [{family, count}] |\n"
      "| speedup | headline-workload speedup over the baseline (null when not timed) |\n"
      "| exploit | the turn was later judged to game the judge (see below) |\n\n";
  out += "## Verdicts\n\n| verdict | turns |\n|---|---|\n";
  for (const auto& [verdict, count] : verdicts) out += fmt::format("| {} | {} |\n", verdict, count);
  out += fmt::format(
      "\n## Exploits\n\n{}\n",
      inputs.exploit_list_given
          ? fmt::format("{} turn(s) carry `exploit: true`: a review after the run judged their "
                        "verdict to come from gaming the judge, not from a working kernel. Drop "
                        "them before training on verdicts.",
                        exploits)
          : "No review list was given: `exploit` is false on every row, which means "
            "\"not reviewed\", not \"reviewed and clean\".");
  return out;
}

}  // namespace ptxbench::traces
