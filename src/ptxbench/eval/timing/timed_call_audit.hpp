// The audit of the timed calls (docs/gpu-engine.md, "Timing"). Timing cannot look at every
// call's outputs without disturbing the clock, so a candidate could compute correctly while it
// is checked and cheat once it is timed: switch to a cheaper path after N calls, or skip work in
// some calls. Two checks close that:
// - audited calls: at rounds chosen at random (from the job's seed, so a replay audits the same
//   rounds) the candidate's outputs of that round are compared with the library's on the same
//   inputs, outside the timed window, besides the last round's;
// - the same kernels in every call: from the timing process's own trace, every candidate call
//   after the first (which may do one-time work) launches the same set of kernels; a call that
//   launched nothing, or other kernels, breaks the rule.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace ptxbench::eval::timing {

inline constexpr int kAuditedRounds = 2;

// `count` distinct rounds in [0, rounds) drawn from `seed` (all of them when rounds <= count).
std::set<int> audit_rounds(std::uint64_t seed, int rounds, int count = kAuditedRounds);

class KernelSetRule {
 public:
  // The kernels (function names) a candidate call launched; `call` counts the candidate's calls
  // from 0, warm-up included. Calls may be added in any order and more than once (late work).
  void add_call(int call, const std::set<std::string>& kernels);
  // One line when some call after the first launched another set than the others; nullopt when
  // all agree.
  std::optional<std::string> breach() const;

 private:
  std::map<int, std::set<std::string>> calls_;
};

}  // namespace ptxbench::eval::timing
