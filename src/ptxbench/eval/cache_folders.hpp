// Where ptxbench keeps what it learns across runs, in one place: $PTXBENCH_CACHE_DIR, else
// $XDG_CACHE_HOME/ptxbench, else ~/.cache/ptxbench. The baseline algorithm choices and the judge's
// reference outputs live below it; the compile and verdict caches only where a setting (or the
// `rl` profile) names a folder.
#pragma once
#include <filesystem>

namespace ptxbench::eval {

std::filesystem::path cache_root();
std::filesystem::path default_baseline_cache_dir();   // <root>/baselines
std::filesystem::path default_reference_cache_dir();  // <root>/references
std::filesystem::path default_compile_cache_dir();    // <root>/compiles (the rl profile's)
std::filesystem::path default_verdict_cache_dir();    // <root>/verdicts (the rl profile's)

}  // namespace ptxbench::eval
