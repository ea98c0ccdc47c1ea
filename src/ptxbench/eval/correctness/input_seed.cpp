#include "ptxbench/eval/correctness/input_seed.hpp"

#include <random>

namespace ptxbench::eval::correctness {
namespace {

// SplitMix64's finaliser: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t draw_input_seed() {
  std::random_device entropy;
  for (;;) {
    const std::uint64_t seed =
        (static_cast<std::uint64_t>(entropy()) << 32) ^ static_cast<std::uint64_t>(entropy());
    if (seed != 0) return seed;
  }
}

std::uint64_t workload_input_seed(std::uint64_t workload_seed, std::uint64_t input_seed) {
  if (input_seed == 0) return workload_seed;
  return mix(workload_seed ^ mix(input_seed));
}

}  // namespace ptxbench::eval::correctness
