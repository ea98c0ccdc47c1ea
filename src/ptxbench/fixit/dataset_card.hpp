// The dataset card (Markdown) written beside the exported rows: counts per task x verdict kind
// x arch, teachers and explainers, the recipe, the verification evidence, token-length
// percentiles, and the content hash of the exported files.
#pragma once
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
};

// p50/p90/max of estimated tokens (bytes / 4); {0,0,0} for no values.
struct Percentiles {
  std::size_t p50 = 0, p90 = 0, max = 0;
};
Percentiles percentiles(std::vector<std::size_t> values);

std::string render_dataset_card(const CardInputs& inputs);

}  // namespace ptxbench::fixit
