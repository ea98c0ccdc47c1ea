// Fresh inputs per verdict: each evaluation draws one input seed (recorded as `input_seed`), and
// every workload's inputs derive from it and the workload's own seed from the task file, so a
// candidate cannot be tuned to fixed inputs, and `ptxbench eval --seed N` replays a verdict's
// inputs exactly. Seed 0 keeps the task files' seeds as they are (the inputs of the original
// research's fixed seeds).
#pragma once
#include <cstdint>

namespace ptxbench::eval::correctness {

// A seed from the operating system's entropy (std::random_device), never 0.
std::uint64_t draw_input_seed();

// The seed of one workload's inputs under the verdict's input seed (the workload's own seed
// when `input_seed` is 0).
std::uint64_t workload_input_seed(std::uint64_t workload_seed, std::uint64_t input_seed);

}  // namespace ptxbench::eval::correctness
