#include "ptxbench/eval/gpu_pipeline/warm_judge.hpp"

#include <fmt/format.h>

#include "ptxbench/util/live_process.hpp"

namespace ptxbench::eval::gpu_pipeline {

using nlohmann::json;

WarmJudge::WarmJudge(WarmJudgeOptions options, std::shared_ptr<util::ProcessRunner> runner)
    : options_(std::move(options)), runner_(std::move(runner)) {}

WarmJudge::~WarmJudge() {
  std::lock_guard lock(mutex_);
  stop_locked();
}

int WarmJudge::starts() const {
  std::lock_guard lock(mutex_);
  return starts_;
}

void WarmJudge::set_reference_memory(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  options_.reference_memory_bytes = bytes;
}

void WarmJudge::refuse_device_exchange(std::string why) {
  std::lock_guard lock(mutex_);
  device_refused_ = std::move(why);
}

void WarmJudge::count_outcome(const std::string& trouble) {
  std::lock_guard lock(mutex_);
  if (trouble.empty()) {
    failures_in_a_row_ = 0;
    return;
  }
  if (++failures_in_a_row_ >= kWarmJudgeFailures && !given_up_) {
    given_up_ = fmt::format("{} verdicts in a row, the last: {}", failures_in_a_row_, trouble);
    stop_locked();
  }
}

std::optional<std::string> WarmJudge::given_up() const {
  std::lock_guard lock(mutex_);
  return given_up_;
}

bool WarmJudge::device_exchange_refused() const {
  std::lock_guard lock(mutex_);
  return device_refused_.has_value();
}

std::string WarmJudge::device_refusal() const {
  std::lock_guard lock(mutex_);
  return device_refused_.value_or("");
}

void WarmJudge::stop_locked() {
  if (socket_) socket_.reset();  // the judge sees end of stream and exits
  if (process_) {
    (void)process_->finish(std::chrono::seconds(5));
    process_.reset();
  }
}

util::Expected<bool> WarmJudge::ensure_started() {
  if (process_ && socket_) return false;
  stop_locked();
  auto pair = worker::ControlSocket::pair();
  if (!pair) return pair.error();
  auto& [ours, theirs] = *pair;
  theirs.inheritable();
  util::ProcessSpec spec{.argv = {options_.worker.string(), "judge-server", "--control-fd",
                                  std::to_string(theirs.fd()), "--reference-memory",
                                  std::to_string(options_.reference_memory_bytes)},
                         .output_cap_bytes = 1u << 20,
                         .env = options_.env,
                         .inherited_fds = {theirs.fd()},
                         .write_paths = options_.write_paths};
  auto started = runner_->start(spec);
  if (!started)
    return util::make_error("the warm judge could not start: " + started.error().message);
  ++starts_;
  process_ = std::move(*started);
  socket_.emplace(std::move(ours));
  // The judge answers a first "ready" line once its CUDA context is up.
  auto ready = socket_->receive(options_.start_timeout);
  if (!ready || ready->line != "ready") {
    process_->kill();
    const auto result = process_->finish(std::chrono::seconds(5));
    std::string why = ready ? "it answered " + ready->line.substr(0, 200) : ready.error().message;
    std::string tail = result.stderr_text.substr(
        result.stderr_text.size() > 600 ? result.stderr_text.size() - 600 : 0);
    process_.reset();
    socket_.reset();
    return util::make_error(fmt::format("the warm judge did not become ready ({}; {}){}", why,
                                        result.describe_end(),
                                        tail.empty() ? "" : "; stderr: " + tail));
  }
  return true;
}

util::Expected<WarmJudge::Reply> WarmJudge::request(const json& message,
                                                    std::chrono::milliseconds timeout, bool start) {
  std::lock_guard lock(mutex_);
  if (!start && !(process_ && socket_)) return util::make_error("the warm judge is not running");
  auto started = ensure_started();
  if (!started) return started.error();
  json sent = message;
  const std::uint64_t id = next_id_++;
  sent["id"] = id;
  if (!socket_->send(sent.dump())) {
    stop_locked();
    return util::make_error("the warm judge is gone");
  }
  auto received = socket_->receive(timeout);
  if (!received) {
    process_->kill();
    stop_locked();
    return util::make_error("the warm judge did not answer: " + received.error().message);
  }
  json body = json::parse(received->line, nullptr, false);
  if (body.is_discarded() || !body.is_object() || body.value("id", std::uint64_t{0}) != id) {
    process_->kill();
    stop_locked();
    return util::make_error("the warm judge answered out of turn: " +
                            received->line.substr(0, 200));
  }
  if (!body.value("ok", false))
    return util::make_error("the warm judge: " + body.value("message", std::string("failed")));
  return Reply{.body = std::move(body), .fds = std::move(received->fds)};
}

}  // namespace ptxbench::eval::gpu_pipeline
