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
// one value: one data file per split that has rows.
std::string front_matter(const CardInputs& inputs, const std::set<std::string>& splits) {
  YAML::Emitter yaml;
  yaml << YAML::BeginMap;
  yaml << YAML::Key << "pretty_name" << YAML::Value << YAML::DoubleQuoted << inputs.name;
  yaml << YAML::Key << "tags" << YAML::Value << YAML::BeginSeq;
  for (const char* tag : {"code", "cuda", "ptx", "gpu-kernels", "trajectories"}) yaml << tag;
  yaml << YAML::EndSeq;
  yaml << YAML::Key << "configs" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  yaml << YAML::Key << "config_name" << YAML::Value << "default";
  yaml << YAML::Key << "data_files" << YAML::Value << YAML::BeginSeq;
  for (const auto& split : splits) {
    yaml << YAML::BeginMap;
    yaml << YAML::Key << "split" << YAML::Value << split;
    yaml << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << data_file(split);
    yaml << YAML::EndMap;
  }
  yaml << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  // The declared column types (trace_rows.hpp) follow as ptxbench's own fixed YAML.
  return fmt::format("---\n{}\ndataset_info:\n{}---\n\n", yaml.c_str(), trace_features_yaml());
}

}  // namespace

std::string data_file(const std::string& split) {
  return split + "/traces.jsonl";
}

std::string render_dataset_card(const CardInputs& inputs, const std::vector<TraceRow>& rows) {
  std::map<std::string, int> verdicts, split_rows;
  std::set<std::string> models, tasks, trajectories, splits;
  int exploits = 0;
  for (const auto& row : rows) {
    ++verdicts[row.verdict];
    ++split_rows[row.split];
    splits.insert(row.split);
    models.insert(row.model);
    tasks.insert(row.task);
    trajectories.insert(row.run + "/" + row.trajectory_id);
    exploits += row.exploit ? 1 : 0;
  }
  std::vector<std::string> runs;
  for (const auto& run : inputs.runs) runs.push_back(util::markdown_inline(run));
  if (splits.empty()) splits.insert("train");  // an empty export still names a loadable file
  std::string out = front_matter(inputs, splits);
  out += fmt::format("# {}\n\n", util::markdown_inline(inputs.name));
  out += fmt::format(
      "Multi-turn trajectories of language models writing architecture-specific PTX/CUDA kernels "
      "for ptxbench tasks, one row per model turn: the reply, the candidate extracted from it, "
      "and the judge's verdict on it (static SASS checks, correctness against the reference, "
      "executed instruction families, timing against the vendor-library baseline).\n\n"
      "{} rows from {} trajectories of {} model(s) on {} task(s), exported from: {}.\n\n",
      rows.size(), trajectories.size(), models.size(), tasks.size(), fmt::join(runs, ", "));
  std::vector<std::string> counts;
  for (const auto& [split, n] : split_rows) counts.push_back(fmt::format("`{}` {}", split, n));
  out += fmt::format(
      "Splits (rows): {}. A trajectory's split is its task's: `heldout` tasks (sizes and "
      "variants kept out of training) are never in `train`; `unknown` holds trajectories whose "
      "file does not record a split and whose task the suite does not know.\n\n",
      counts.empty() ? std::string("none") : fmt::format("{}", fmt::join(counts, ", ")));
  out +=
      "```python\nfrom datasets import load_dataset\nrows = load_dataset(\"json\", "
      "data_files=" +
      nlohmann::json(data_file("train")).dump() + ", split=\"train\")\n```\n\n";
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
