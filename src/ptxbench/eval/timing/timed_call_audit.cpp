#include "ptxbench/eval/timing/timed_call_audit.hpp"

#include <fmt/format.h>

#include <random>
#include <vector>

namespace ptxbench::eval::timing {
namespace {

std::string describe(const std::set<std::string>& kernels) {
  if (kernels.empty()) return "no kernel";
  return fmt::format("{}", fmt::join(kernels, ", "));
}

}  // namespace

std::set<int> audit_rounds(std::uint64_t seed, int rounds, int count) {
  std::set<int> out;
  if (rounds <= 0 || count <= 0) return out;
  if (rounds <= count) {
    for (int r = 0; r < rounds; ++r) out.insert(r);
    return out;
  }
  std::mt19937_64 random(seed ^ 0x5eedaa17ull);
  std::uniform_int_distribution<int> pick(0, rounds - 1);
  while (static_cast<int>(out.size()) < count) out.insert(pick(random));
  return out;
}

void KernelSetRule::add_call(int call, const std::set<std::string>& kernels) {
  calls_[call].insert(kernels.begin(), kernels.end());
}

std::optional<std::string> KernelSetRule::breach() const {
  // The non-empty set most calls after the first launched is the call's work; any other set,
  // the empty one included, is a breach (a call that skips every other time launches nothing
  // in half of the calls).
  std::map<std::set<std::string>, int> votes;
  for (const auto& [call, kernels] : calls_) {
    if (call > 0) ++votes[kernels];
  }
  if (votes.size() <= 1) return std::nullopt;
  const std::set<std::string>* usual = nullptr;
  int most = 0;
  for (const auto& [kernels, n] : votes) {
    if (!kernels.empty() && n > most) {
      most = n;
      usual = &kernels;
    }
  }
  if (usual == nullptr) return std::nullopt;
  std::vector<int> odd;
  const std::set<std::string>* example = nullptr;
  for (const auto& [call, kernels] : calls_) {
    if (call == 0 || kernels == *usual) continue;
    odd.push_back(call);
    if (example == nullptr) example = &kernels;
  }
  return fmt::format(
      "the timed calls did not all launch the same kernels: {} of {} calls launched {} where the "
      "others launched {} (first at call {}); every call must do the same work",
      odd.size(), calls_.size() - (calls_.contains(0) ? 1 : 0), describe(*example),
      describe(*usual), odd.front() + 1);
}

}  // namespace ptxbench::eval::timing
