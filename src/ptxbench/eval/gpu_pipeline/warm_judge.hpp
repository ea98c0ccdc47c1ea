// The warm judge of one GPU slot (docs/gpu-engine.md, "The warm judge"): one long-lived
// `ptxbench-worker judge-server` and the control socket the engine talks to it over
// (correctness/session_protocol.hpp). It runs no candidate code, so it may keep its CUDA
// context, library plans and reference outputs from one verdict to the next. Started on first
// use, through the slot's runner like every worker; a judge that fails or goes silent is killed
// and started again for the next request. Its failure is never the candidate's: that verdict
// goes to the fresh judges, and after kWarmJudgeFailures verdicts in a row whose judge failed
// the slot stops using it (each record says which judge decided it, and why). Requests are
// served one at a time.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/worker/control_socket.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval::gpu_pipeline {

// Verdicts in a row whose warm judge failed before the slot judges fresh for good.
inline constexpr int kWarmJudgeFailures = 3;

struct WarmJudgeOptions {
  std::filesystem::path worker;  // the ptxbench-worker executable
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::filesystem::path> write_paths;  // the baseline cache (the judge writes it)
  // Device memory the judge may keep reference outputs in (0: none kept).
  std::uint64_t reference_memory_bytes = 0;
  std::chrono::milliseconds start_timeout{std::chrono::seconds(120)};
};

class WarmJudge {
 public:
  WarmJudge(WarmJudgeOptions options, std::shared_ptr<util::ProcessRunner> runner);
  ~WarmJudge();
  WarmJudge(const WarmJudge&) = delete;
  WarmJudge& operator=(const WarmJudge&) = delete;

  struct Reply {
    nlohmann::json body;
    std::vector<worker::ReceivedFd> fds;
  };
  // One request and its reply ({"ok": true, ...}); an Error when the judge could not be started,
  // failed, answered {"ok": false}, or stayed silent past `timeout` (then it is killed).
  // With `start` false a judge that is not running is not started (closing a session of a judge
  // that has died needs none).
  util::Expected<Reply> request(const nlohmann::json& message, std::chrono::milliseconds timeout,
                                bool start = true);
  // Judge processes started so far (a verdict counts the starts it caused).
  int starts() const;
  // The device memory a judge started from now on may keep reference outputs in.
  void set_reference_memory(std::uint64_t bytes);
  // A candidate process could not map the judge's device memory: later sessions share host
  // memory (`why` is said in their records).
  void refuse_device_exchange(std::string why);
  bool device_exchange_refused() const;
  std::string device_refusal() const;
  // A verdict's warm check ended: `trouble` empty when the judge did its part, else why not.
  void count_outcome(const std::string& trouble);
  // Why this slot no longer uses the warm judge; nullopt while it does.
  std::optional<std::string> given_up() const;

 private:
  util::Expected<bool> ensure_started();
  void stop_locked();

  WarmJudgeOptions options_;
  std::shared_ptr<util::ProcessRunner> runner_;
  mutable std::mutex mutex_;
  std::unique_ptr<util::LiveProcess> process_;
  std::optional<worker::ControlSocket> socket_;
  int starts_ = 0;
  std::optional<std::string> device_refused_;
  int failures_in_a_row_ = 0;
  std::optional<std::string> given_up_;
  std::uint64_t next_id_ = 1;
};

}  // namespace ptxbench::eval::gpu_pipeline
