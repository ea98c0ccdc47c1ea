// The study's comparison (STUDY/comparison/: comparison.md, comparison.html, comparison.json):
// for every data variant the rows used, training tokens and time and held-out loss (the run
// card), and the benchmark metrics at each turn limit on the train split and each held-out split
// (correct, PASSED = correct with the requested instructions executed, fast_1 and fast_p vs the
// library, mean best speedup, 95% intervals from report/statistics), beside the base model and
// the published PTXBench figures when the study names their folder; then each variant against
// the base with paired tests over tasks and samples, saying plainly which differences are
// inside the noise. Built only from the step folders, with no clock in it, so a resumed study
// writes the same bytes as one never interrupted.
#pragma once
#include <filesystem>

#include "ptxbench/study/study_file.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

util::Expected<std::filesystem::path> write_comparison(const StudyFile& study);

}  // namespace ptxbench::study
