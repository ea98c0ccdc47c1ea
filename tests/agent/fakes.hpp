// Fakes for the turn loop: a provider whose replies are a function of the call, and an
// evaluation that reads its verdict from the reply ("PASS 1.5" inside the code block).
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/extract/extract.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "sample_evaluations.hpp"

namespace ptxbench::testing {

class FakeProvider final : public model::Provider {
 public:
  using Script =
      std::function<model::CallResult(const model::Conversation&, const model::CallContext&)>;
  explicit FakeProvider(Script script) : script_(std::move(script)) {}
  model::CallResult complete(const model::Conversation& conversation,
                             const model::CallContext& context) override {
    {
      std::lock_guard lock(mutex_);
      calls_.push_back({context, conversation.size()});
    }
    return script_(conversation, context);
  }
  struct Call {
    model::CallContext context;
    std::size_t messages = 0;
  };
  std::vector<Call> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  Script script_;
  mutable std::mutex mutex_;
  std::vector<Call> calls_;
};

inline model::Reply code_reply(const std::string& code) {
  return model::Reply{.content = "Here:\n```cuda\n" + code + "\n```\n",
                      .usage = {.prompt_tokens = 100, .completion_tokens = 50},
                      .latency_s = 0.25,
                      .finish_reason = "stop"};
}

// NO_CODE without a block, PASSED with the speedup after "PASS", else COMPILE_ERROR.
inline eval::Evaluation fake_evaluate(const task::Task&, arch::Arch arch,
                                      const eval::CandidateInput& input) {
  auto code = extract::extract_code(input.text);
  if (!code) return no_code();
  eval::Evaluation e;
  if (code->rfind("PASS ", 0) == 0) {
    e = passed(std::stod(code->substr(5)));
  } else {
    e = compile_error();
  }
  e.arch = arch;
  e.source_name = input.source_name;
  e.source_hash = std::to_string(std::hash<std::string>{}(*code));
  return e;
}

inline const task::Task& gemm_task() {
  static const auto suite = task::load_suite(task::default_tasks_dir());
  return *task::find_task(*suite, "gemm_n7168_k5120");
}

inline const prompt::Prompt kPrompt{.system = "SYSTEM", .task = "TASK"};

}  // namespace ptxbench::testing
