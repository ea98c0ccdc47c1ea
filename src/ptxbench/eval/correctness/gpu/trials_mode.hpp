// The candidate process of a verdict under the warm judge (trials_mode.cpp): reads its session
// and trials from stdin, answers one reply line per trial.
#pragma once

namespace ptxbench::eval::gpu {

int run_trials_mode();

}  // namespace ptxbench::eval::gpu
