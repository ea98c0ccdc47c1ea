// Held-out splits by rule: a task goes to the first held-out split whose selectors it matches
// (a task name or glob, a head dimension `_d<N>` in its name, a variant such as `causal` from its
// parameters, an op type), otherwise to `train`. No task file is edited: the study writes a copy
// of the suite whose `split` fields follow the rules, and every run, Fixit export and training
// set of the study reads that copy.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/study/study_file.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

// "train" or the name of the first split the task (its JSON) matches.
std::string split_of(const nlohmann::json& task, const std::vector<HeldOutSplit>& splits);

// Copies every task file of `source` into `out` (same relative paths) with `split` set to
// "train" or "heldout" by the rules; returns task name -> split name (train or a held-out
// split's name). An Error names an unreadable task file.
util::Expected<std::map<std::string, std::string>> write_split_suite(
    const std::filesystem::path& source, const std::vector<HeldOutSplit>& splits,
    const std::filesystem::path& out);

}  // namespace ptxbench::study
