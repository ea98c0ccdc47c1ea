// What a study is checked for before its first step (docs/study.md, "The study file"): the file's
// fields are read by study_file.cpp; here the values that other commands would read only when
// their step runs: the grid (as `ptxbench run` reads it, tasks selected from the suite), the task
// suite, the study folder and every provider entry that must work without a network (a replay's
// recorded replies, a command's program). A problem is the user's: exit 2, nothing written.
#pragma once
#include <filesystem>

#include "ptxbench/study/study_file.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

// `default_tasks`: the suite used when the study names none. Messages are
// "STUDY.yaml: FIELD: problem".
util::Expected<bool> check_study(const StudyFile& study,
                                 const std::filesystem::path& default_tasks);

}  // namespace ptxbench::study
