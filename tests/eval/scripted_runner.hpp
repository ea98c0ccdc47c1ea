// A ProcessRunner that answers from a script instead of running anything: each call is matched
// to the first rule whose predicate accepts its argv, and every call is recorded.
#pragma once
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/util/process.hpp"

namespace ptxbench::testing {

class ScriptedRunner final : public util::ProcessRunner {
 public:
  using Predicate = std::function<bool(const util::ProcessSpec&)>;

  // Calls whose argv contains `word` get `result`.
  void on(std::string word, util::ProcessResult result) {
    rules_.emplace_back(
        [word = std::move(word)](const util::ProcessSpec& spec) {
          for (const auto& arg : spec.argv) {
            if (arg == word) return true;
          }
          return false;
        },
        std::move(result));
  }

  // Safe from several threads (the sanitizer's tools run at once); `calls` is read after.
  util::ProcessResult run(const util::ProcessSpec& spec) override {
    std::lock_guard lock(mutex_);
    calls.push_back(spec);
    for (const auto& [accepts, result] : rules_) {
      if (accepts(spec)) return result;
    }
    util::ProcessResult none;
    none.spawn_error = "no scripted answer";
    return none;
  }

  std::vector<util::ProcessSpec> calls;

 private:
  std::vector<std::pair<Predicate, util::ProcessResult>> rules_;
  std::mutex mutex_;
};

inline util::ProcessResult exited(int code, std::string out, std::string err = "") {
  util::ProcessResult result;
  result.started = true;
  result.exit_code = code;
  result.stdout_text = std::move(out);
  result.stderr_text = std::move(err);
  return result;
}

}  // namespace ptxbench::testing
