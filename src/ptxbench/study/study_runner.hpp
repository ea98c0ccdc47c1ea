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
#include "ptxbench/util/folder_lock.hpp"

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

// Checks the study before any step (study_check.hpp), then makes its folder and takes it (.lock):
// one `ptxbench study` at a time. An Error here is the user's (a field, a path, a folder in use).
util::Expected<util::FolderLock> open_study(const StudyFile& study, const StudyEnvironment& env);

// Steps in order, in the folder `open_study` holds; the last one run or skipped is named in
// messages. An Error says which step failed and where its log is.
util::Expected<std::filesystem::path> run_study(const StudyFile& study, const StudyEnvironment& env,
                                                const util::FolderLock& held);

}  // namespace ptxbench::study
