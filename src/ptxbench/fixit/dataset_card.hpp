// The dataset card (Markdown) written beside the exported rows: counts per task x verdict kind
// x arch, teachers and explainers, the recipe, the verification evidence, token-length
// percentiles, and the content hash of the exported files. Its YAML header declares the splits
// (`configs:`) and the column types (`dataset_info:`), so `datasets.load_dataset(FOLDER)` gives
// `train` and `heldout` with one schema whatever the rows hold.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ptxbench/fixit/balance.hpp"
#include "ptxbench/fixit/sft_row.hpp"

namespace ptxbench::fixit {

struct CardInputs {
  const std::vector<SftRow>* fixit = nullptr;
  const std::vector<SftRow>* kernelgen = nullptr;
  const Selection* selection = nullptr;
  std::vector<std::string> left_out;
  std::string content_hash;  // of the exported JSONL files, in order
  std::map<std::string, std::vector<std::string>> data_files;  // split -> files with rows
};

// p50/p90/max of estimated tokens (bytes / 4); {0,0,0} for no values.
struct Percentiles {
  std::size_t p50 = 0, p90 = 0, max = 0;
};
Percentiles percentiles(std::vector<std::size_t> values);

std::string render_dataset_card(const CardInputs& inputs);

}  // namespace ptxbench::fixit
