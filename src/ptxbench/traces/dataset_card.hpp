// The dataset card (README.md) of exported traces: the Hugging Face card's YAML header naming
// the data file, then what the rows are and how many of each verdict there are.
#pragma once
#include <string>
#include <vector>

#include "ptxbench/traces/trace_rows.hpp"

namespace ptxbench::traces {

struct CardInputs {
  std::string name;               // the dataset's name
  std::vector<std::string> runs;  // run folders it came from
  std::string data_file = "traces.jsonl";
  bool exploit_list_given = false;
};

std::string render_dataset_card(const CardInputs& inputs, const std::vector<TraceRow>& rows);

}  // namespace ptxbench::traces
