// `ptxbench study`: every step of a study file (docs/study.md), each a subprocess of this same
// ptxbench binary (`run`, `fixit all`) or of the Python trainer (`python -m ptxbench_train train
// / serve`), each writing its own step folder (step_folder.hpp). A rerun skips finished steps
// and redoes the unfinished one; the comparison page is rebuilt from the steps' outputs.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ptxbench/study/study_file.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

struct StudyEnvironment {
  std::filesystem::path ptxbench;   // this binary
  std::filesystem::path python;     // the training venv's python
  std::filesystem::path train_src;  // python/ptxbench_train/src (PYTHONPATH)
  std::filesystem::path default_tasks;
  std::string stop_after;  // a step label ("train/balanced"): stop once it is done; "" runs all
  std::function<void(const std::string&)> say;  // one line of progress
};

// The labels of the study's steps in the order they run ("suite/tasks", "run/base",
// "data/<variant>", "train/<variant>", "run/<variant>"; the comparison is always rebuilt).
std::vector<std::string> step_labels(const StudyFile& study);

// Steps in order; the last one run or skipped is named in messages. An Error says which step
// failed and where its log is.
util::Expected<std::filesystem::path> run_study(const StudyFile& study,
                                                const StudyEnvironment& env);

}  // namespace ptxbench::study
