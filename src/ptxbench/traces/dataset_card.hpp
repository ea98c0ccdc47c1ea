// The dataset card (README.md) of exported traces: the Hugging Face card's YAML header naming
// one data file per split (so held-out tasks never load as `train`), then what the rows are and
// how many of each verdict there are.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ptxbench/traces/trace_rows.hpp"

namespace ptxbench::traces {

// A split's data file, relative to the dataset folder: "train/traces.jsonl".
std::string data_file(const std::string& split);

struct CardInputs {
  std::string name;               // the dataset's name
  std::vector<std::string> runs;  // run folders it came from
  bool exploit_list_given = false;
};

std::string render_dataset_card(const CardInputs& inputs, const std::vector<TraceRow>& rows);

}  // namespace ptxbench::traces
