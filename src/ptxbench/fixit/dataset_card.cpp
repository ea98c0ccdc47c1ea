#include "ptxbench/fixit/dataset_card.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::fixit {
namespace {

using util::markdown_inline;

std::size_t row_tokens(const SftRow& row) {
  std::size_t total = 0;
  for (const auto& message : row.messages) total += prompt::estimate_tokens(message.content);
  return total;
}

std::size_t loss_tokens(const SftRow& row) {
  std::size_t total = 0;
  for (const auto& message : row.messages)
    if (message.loss) total += prompt::estimate_tokens(message.content);
  return total;
}

std::string counts_table(const std::vector<SftRow>& rows) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::pair<int, int>>
      cells;
  for (const auto& row : rows) {
    auto& cell =
        cells[{row.provenance.task, row.provenance.verdict, row.provenance.arch, row.split}];
    (row.verified ? cell.first : cell.second)++;
  }
  std::string out =
      "| task | verdict kind | arch | split | verified | unverified |\n|---|---|---|---|---|---|\n";
  for (const auto& [key, count] : cells) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_inline(std::get<0>(key)),
                       markdown_inline(std::get<1>(key)), markdown_inline(std::get<2>(key)),
                       markdown_inline(std::get<3>(key)), count.first, count.second);
  }
  return out;
}

std::string token_line(const char* what, const std::vector<SftRow>& rows, bool loss_only) {
  std::vector<std::size_t> values;
  for (const auto& row : rows) values.push_back(loss_only ? loss_tokens(row) : row_tokens(row));
  Percentiles p = percentiles(values);
  return fmt::format("| {} | {} | {} | {} | {} |\n", what, rows.size(), p.p50, p.p90, p.max);
}

// The YAML header: one `default` config whose splits are the export's split folders.
std::string front_matter(const CardInputs& inputs) {
  // Every value here is ptxbench's own (split and file names of the export), never user text.
  std::string out = "---\npretty_name: ptxbench Fixit dataset\n";
  if (!inputs.data_files.empty()) {
    out += "configs:\n- config_name: default\n  data_files:\n";
    for (const auto& [split, files] : inputs.data_files) {
      out += fmt::format("  - split: {}\n    path:\n", split);
      for (const auto& file : files) out += fmt::format("    - {}\n", file);
    }
  }
  out += "dataset_info:\n" + dataset_features_yaml() + "---\n\n";
  return out;
}

}  // namespace

Percentiles percentiles(std::vector<std::size_t> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    auto index = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(index, values.size() - 1)];
  };
  return {at(0.5), at(0.9), values.back()};
}

std::string render_dataset_card(const CardInputs& inputs) {
  const auto& fixit = *inputs.fixit;
  const auto& kernelgen = *inputs.kernelgen;
  std::string out = front_matter(inputs) + "# ptxbench Fixit dataset\n\n";
  int verified = 0;
  for (const auto* rows : {&fixit, &kernelgen})
    for (const auto& row : *rows) verified += row.verified ? 1 : 0;
  out += fmt::format(
      "{} Fixit row(s) (`<split>/fixit.jsonl`) and {} KernelGen row(s) "
      "(`<split>/kernelgen.jsonl`); "
      "{} verified on a GPU, {} unverified.\n\nContent hash (FNV-1a 64 of train/fixit.jsonl, "
      "train/kernelgen.jsonl, heldout/fixit.jsonl, heldout/kernelgen.jsonl): `{}`\n\nLoad with "
      "`datasets.load_dataset(FOLDER)`: the splits `train` and `heldout` (rows whose task is held "
      "out, never trained on). The row format is in docs/fixit.md. Loss is on the messages with "
      "`\"loss\": true` only; an assistant message's `reasoning` is the thinking before its "
      "`content`.\n\n",
      fixit.size(), kernelgen.size(), verified, fixit.size() + kernelgen.size() - verified,
      inputs.content_hash);
  out += "## Fixit rows per task, verdict kind and arch\n\n" + counts_table(fixit) + "\n";
  out += "## KernelGen rows per task and arch\n\n" + counts_table(kernelgen) + "\n";

  std::set<std::string> teachers, explainers, gpus;
  for (const auto& row : fixit) {
    teachers.insert(markdown_inline(row.provenance.teacher));
    if (!row.provenance.explainer.empty())
      explainers.insert(
          markdown_inline(row.provenance.explainer + " (" + row.provenance.length_bin + ")"));
  }
  for (const auto* rows : {&fixit, &kernelgen})
    for (const auto& row : *rows)
      if (row.verified)
        gpus.insert(row.provenance.gpu.empty() ? "(GPU not named)"
                                               : markdown_inline(row.provenance.gpu));
  out += fmt::format("## Teachers\n\nrepair: {}\n\nexplanations: {}\n\n",
                     teachers.empty() ? "-" : fmt::format("{}", fmt::join(teachers, ", ")),
                     explainers.empty() ? "-" : fmt::format("{}", fmt::join(explainers, ", ")));
  out += "## Recipe\n\n";
  if (inputs.selection != nullptr) {
    out += fmt::format("`{}`, {} row(s) selected\n\n", to_json(inputs.selection->recipe).dump(),
                       inputs.selection->ids.size());
    out += "| task | stratum | available | taken |\n|---|---|---|---|\n";
    for (const auto& [task, cells] : inputs.selection->strata)
      for (const auto& [key, count] : cells)
        out += fmt::format("| {} | {} | {} | {} |\n", markdown_inline(task), markdown_inline(key),
                           count.available, count.taken);
    out += "\n";
  } else {
    out += "every mined row (no selection)\n\n";
  }
  out += "## Verification evidence\n\n";
  out += gpus.empty() ? std::string("No row was verified on a GPU.\n")
                      : fmt::format(
                            "Judged PASSED with the requested instruction families executed "
                            "substantially on: {}\n",
                            fmt::join(gpus, ", "));
  for (const auto* rows : {&fixit, &kernelgen})
    for (const auto& row : *rows)
      if (!row.verified)
        out += fmt::format("- unverified: {} ({}): GPU stages not run\n", markdown_inline(row.id),
                           markdown_inline(row.provenance.task));
  out +=
      "\n## Token lengths (estimated: bytes / 4)\n\n| rows | count | p50 | p90 | max "
      "|\n|---|---|---|---|---|\n";
  out += token_line("fixit, whole row", fixit, false);
  out += token_line("fixit, loss message", fixit, true);
  out += token_line("kernelgen, whole row", kernelgen, false);
  if (!inputs.left_out.empty()) {
    out += "\n## Left out\n\n";
    for (const auto& line : inputs.left_out) out += "- " + markdown_inline(line) + "\n";
  }
  return out;
}

}  // namespace ptxbench::fixit
