// `ptxbench-worker judge-server --control-fd N --reference-memory BYTES`: the warm judge of one
// GPU (correctness/session_protocol.hpp; docs/gpu-engine.md, "The warm judge"). Trusted: it loads
// no candidate code. It lives across verdicts and keeps what does not depend on the candidate:
// the CUDA context, one library baseline (plans, algorithm choice) per shape, and, within
// --reference-memory, the library's and the high-precision reference's outputs per (shape,
// distribution, trial seed). Per trial it generates the inputs in its own memory, computes the
// references from them, and only then copies the inputs into the exchange set the candidate
// sees: a candidate that writes its next inputs early only spoils its own run.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/exchange_set.hpp"
#include "ptxbench/eval/correctness/gpu/judge_server_mode.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/correctness/gpu/trial_accuracy.hpp"
#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/worker/control_socket.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

using correctness::ExchangeKind;
using correctness::TrialPlacement;
using nlohmann::json;

// What decides a job's library baseline: everything but the seed and the candidate.
std::string baseline_key(const worker::WorkerJob& job) {
  json j = worker::to_json(job);
  for (const char* key : {"seed", "trials", "workload", "task", "library", "exchange_dir",
                          "candidate_kernels", "limits", "request", "reference_cache",
                          "distribution", "tolerance", "device_memory_limit_bytes"})
    j.erase(key);
  return j.dump();
}

// What decides a trial's reference outputs: the baseline's key, the distribution and the seed.
std::string reference_key(const worker::WorkerJob& job, std::uint64_t seed) {
  return fmt::format("{}|{}|{}", baseline_key(job), task::to_string(job.distribution), seed);
}

std::vector<std::string> hashes_of(const std::vector<DeviceTensor>& tensors, cudaStream_t stream) {
  std::vector<std::string> out;
  for (const auto& t : tensors) out.push_back(fmt::format("{:016x}", t.hash(stream)));
  return out;
}

DeviceBuffer copy_of(const void* data, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer copy(bytes);
  if (bytes > 0)
    PTXBENCH_CUDA_CHECK(
        cudaMemcpyAsync(copy.data(), data, bytes, cudaMemcpyDeviceToDevice, stream));
  return copy;
}

// The library's and the high-precision reference's outputs of recent trials, in device memory,
// least recently used first out beyond the budget.
class ReferenceMemory {
 public:
  struct Entry {
    std::vector<DeviceBuffer> library;
    std::vector<DeviceBuffer> reference;
    std::string unavailable;
    std::size_t bytes = 0;
  };
  explicit ReferenceMemory(std::uint64_t budget) : budget_(budget) {}

  const Entry* find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  void offer(const std::string& key, Entry entry) {
    if (entry.bytes > budget_ || index_.contains(key)) return;
    while (used_ + entry.bytes > budget_ && !order_.empty()) {
      used_ -= order_.back().second.bytes;
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    used_ += entry.bytes;
    order_.emplace_front(key, std::move(entry));
    index_[key] = order_.begin();
  }
  bool enabled() const { return budget_ > 0; }
  bool empty() const { return order_.empty(); }
  void clear() {
    index_.clear();
    order_.clear();
    used_ = 0;
  }

 private:
  std::uint64_t budget_;
  std::uint64_t used_ = 0;
  std::list<std::pair<std::string, Entry>> order_;
  std::map<std::string, std::list<std::pair<std::string, Entry>>::iterator> index_;
};

// A trial the judge prepared and has not compared yet.
struct PendingTrial {
  std::size_t job = 0;
  int trial = 0;
  std::uint64_t seed = 0;
  DeviceTensors tensors;  // the judge's own inputs and the library's outputs
  std::optional<correctness::gpu::TrialAccuracy> accuracy;
  std::vector<std::string> input_hashes;
  TrialPlacement placement;
};

struct Session {
  std::vector<worker::WorkerJob> jobs;
  bool reference_cache = false;
  std::vector<ExchangeSet> sets;
  std::array<std::optional<PendingTrial>, correctness::kExchangeSets> pending;
};

class JudgeServer {
 public:
  JudgeServer(worker::ControlSocket socket, std::uint64_t reference_bytes)
      : socket_(std::move(socket)), references_(reference_bytes) {}

  int serve() {
    if (!socket_.send("ready")) return 1;
    for (;;) {
      auto message = socket_.receive(std::chrono::hours(24 * 365));
      if (!message) return 0;  // ptxbench closed the socket: done
      json request = json::parse(message->line, nullptr, false);
      std::vector<int> fds;
      json reply;
      try {
        if (request.is_discarded() || !request.is_object())
          throw std::invalid_argument("not a JSON object");
        reply = handle_with_room(request, fds);
        reply["ok"] = true;
      } catch (const std::exception& e) {
        reply = json{{"ok", false}, {"message", e.what()}};
      }
      reply["id"] = request.is_object() ? request.value("id", json()) : json();
      if (!socket_.send(reply.dump(), fds)) return 1;
      // A sticky CUDA error leaves the context unusable: end, and be started anew.
      if (cudaDeviceSynchronize() != cudaSuccess) return 3;
      (void)cudaGetLastError();  // a failed allocation's error is not sticky
    }
  }

 private:
  // The GPU's memory is shared with the slot's candidates and sanitizer runs, which come and
  // go: a session or trial that could not allocate drops the kept references (they can be
  // computed again) and is tried once more. `open` and `prepare` change nothing before they
  // succeed, so trying again is safe.
  json handle_with_room(const json& request, std::vector<int>& fds) {
    try {
      return handle(request, fds);
    } catch (const std::exception& e) {
      const std::string op = request.value("op", std::string());
      const bool no_room =
          std::string_view(e.what()).find("cudaErrorMemoryAllocation") != std::string_view::npos;
      if (!no_room || references_.empty() || (op != "open" && op != "prepare")) throw;
      (void)cudaGetLastError();
      references_.clear();
      fds.clear();
      return handle(request, fds);
    }
  }

  json handle(const json& request, std::vector<int>& fds) {
    const std::string op = request.value("op", std::string());
    if (op == "open") return open(request, fds);
    if (op == "prepare") return prepare(request);
    if (op == "compare") return compare(request);
    if (op == "close") {
      sessions_.erase(request.value("session", std::string()));
      return json::object();
    }
    throw std::invalid_argument("unknown op '" + op + "'");
  }

  // One baseline per shape, the most recently used kBaselines kept (each holds a library
  // handle, a plan and perhaps a workspace).
  Baseline& baseline_for(const worker::WorkerJob& job) {
    static constexpr std::size_t kBaselines = 64;
    const std::string key = baseline_key(job);
    auto it = baselines_.find(key);
    if (it == baselines_.end()) {
      auto made = make_baseline(job, stream_.get());
      if (!made) throw std::runtime_error("baseline: " + made.error().message);
      if (baselines_.size() >= kBaselines) {
        auto oldest = std::min_element(
            baselines_.begin(), baselines_.end(),
            [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
        // A session still using it keeps working: sessions look baselines up per trial.
        baselines_.erase(oldest);
      }
      it = baselines_.emplace(key, KeptBaseline{.baseline = std::move(made.value())}).first;
    }
    it->second.last_use = ++uses_;
    return *it->second.baseline;
  }

  Session& session_of(const std::string& id) {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) throw std::invalid_argument("no session " + id);
    return it->second;
  }

  json open(const json& request, std::vector<int>& fds) {
    auto parsed = correctness::open_request_from_json(request);
    if (!parsed) throw std::invalid_argument(parsed.error().message);
    Session session{.jobs = std::move(parsed->jobs), .reference_cache = parsed->reference_cache};
    correctness::OpenReply reply;
    for (const auto& job : session.jobs) reply.baselines.push_back(baseline_for(job).describe());
    const std::uint64_t bytes = correctness::exchange_set_bytes(session.jobs);
    reply.kind = parsed->device_exchange ? ExchangeKind::kDevice : ExchangeKind::kHost;
    for (int i = 0; i < correctness::kExchangeSets; ++i) {
      auto set = ExchangeSet::create(reply.kind, bytes);
      if (!set && reply.kind == ExchangeKind::kDevice) {
        // The driver would not share device memory: fall back to the host, and say why.
        reply.note = set.error().message;
        reply.kind = ExchangeKind::kHost;
        session.sets.clear();
        i = -1;
        continue;
      }
      if (!set) throw std::runtime_error("exchange memory: " + set.error().message);
      session.sets.push_back(std::move(*set));
    }
    reply.set_bytes = session.sets.front().bytes();
    for (const auto& set : session.sets) fds.push_back(set.fd());
    const std::string id = parsed->session;
    sessions_.erase(id);
    sessions_.emplace(id, std::move(session));
    return correctness::to_json(reply);
  }

  // The trial's references: from the judge's memory, else computed (and kept).
  bool references(Session& session, PendingTrial& trial, const worker::WorkerJob& job,
                  Baseline& baseline) {
    const std::string key = reference_key(job, trial.seed);
    const bool kept = session.reference_cache && references_.enabled();
    if (kept) {
      if (const auto* entry = references_.find(key)) {
        for (std::size_t o = 0; o < entry->library.size(); ++o)
          PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(trial.tensors.outputs()[o].data(),
                                              entry->library[o].data(), entry->library[o].bytes(),
                                              cudaMemcpyDeviceToDevice, stream_.get()));
        std::vector<DeviceBuffer> reference;
        for (const auto& r : entry->reference)
          reference.push_back(copy_of(r.data(), r.bytes(), stream_.get()));
        trial.accuracy.emplace(job, std::move(reference), entry->unavailable);
        PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        process_parts().mark(part::kCopies);
        return true;
      }
    }
    baseline.run(trial.tensors.inputs(), trial.tensors.outputs(), stream_.get());
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    process_parts().mark(part::kLibraryReference);
    trial.accuracy.emplace(job, trial.tensors.inputs(), stream_.get());
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    process_parts().mark(part::kPreciseReference);
    if (kept && !trial.accuracy->reference().empty()) {
      ReferenceMemory::Entry entry{.unavailable = trial.accuracy->unavailable()};
      for (const auto& out : trial.tensors.outputs()) {
        entry.library.push_back(copy_of(out.data(), out.bytes(), stream_.get()));
        entry.bytes += out.bytes();
      }
      for (const auto& r : trial.accuracy->reference()) {
        entry.reference.push_back(copy_of(r.data(), r.bytes(), stream_.get()));
        entry.bytes += r.bytes();
      }
      PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      references_.offer(key, std::move(entry));
      process_parts().mark(part::kCopies);
    }
    return false;
  }

  // The judge's inputs into the set, the set's outputs poisoned.
  void hand_over(const ExchangeSet& set, PendingTrial& trial) {
    const auto& inputs = trial.tensors.inputs();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto at = trial.placement.inputs[i];
      if (set.kind() == ExchangeKind::kDevice) {
        PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(set.device(at), inputs[i].data(), inputs[i].bytes(),
                                            cudaMemcpyDeviceToDevice, stream_.get()));
      } else {
        PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(set.host(at), inputs[i].data(), inputs[i].bytes(),
                                            cudaMemcpyDeviceToHost, stream_.get()));
      }
    }
    const auto& outputs = trial.tensors.outputs();
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const auto& desc = outputs[o].desc();
      const auto at = trial.placement.outputs[o];
      if (set.kind() == ExchangeKind::kDevice) {
        fill_poison(set.device(at), desc.dtype, desc.elements(), stream_.get());
      } else {
        DeviceBuffer poison(desc.bytes());
        fill_poison(poison.data(), desc.dtype, desc.elements(), stream_.get());
        PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(set.host(at), poison.data(), desc.bytes(),
                                            cudaMemcpyDeviceToHost, stream_.get()));
        PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      }
    }
    PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    process_parts().mark(part::kCopies);
  }

  json prepare(const json& request) {
    auto parsed = correctness::trial_request_from_json(request);
    if (!parsed) throw std::invalid_argument(parsed.error().message);
    Session& session = session_of(parsed->session);
    if (parsed->job >= session.jobs.size()) throw std::invalid_argument("job out of range");
    const worker::WorkerJob& job = session.jobs[parsed->job];
    const StageParts before = process_parts().parts();
    Baseline& baseline = baseline_for(job);
    PendingTrial trial{.job = parsed->job,
                       .trial = parsed->trial,
                       .seed = worker::trial_seed(job.seed, parsed->trial),
                       .placement = correctness::place_trial(job, parsed->trial)};
    trial.tensors = expect_value(make_trial_tensors(job, trial.seed, stream_.get(), &baseline),
                                 "the judge's trial tensors");
    trial.input_hashes = hashes_of(trial.tensors.inputs(), stream_.get());
    process_parts().mark(part::kInputs);
    const bool cached = references(session, trial, job, baseline);
    hand_over(session.sets.at(static_cast<std::size_t>(parsed->set)), trial);
    correctness::PrepareReply reply{.placement = trial.placement,
                                    .input_hashes = trial.input_hashes,
                                    .reference_cached = cached,
                                    .parts = parts_since(before)};
    auto& pending = session.pending[static_cast<std::size_t>(parsed->set)];
    pending.reset();
    pending.emplace(std::move(trial));
    return correctness::to_json(reply);
  }

  // The candidate's tensor `bytes` at `at` as device memory (a host set is copied in first).
  const void* candidate_data(const ExchangeSet& set, std::uint64_t at, std::size_t bytes,
                             std::vector<DeviceBuffer>& scratch) {
    if (set.kind() == ExchangeKind::kDevice) return set.device(at);
    scratch.emplace_back(bytes);
    PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(scratch.back().data(), set.host(at), bytes,
                                        cudaMemcpyHostToDevice, stream_.get()));
    return scratch.back().data();
  }

  json compare(const json& request) {
    auto parsed = correctness::trial_request_from_json(request);
    if (!parsed) throw std::invalid_argument(parsed.error().message);
    Session& session = session_of(parsed->session);
    auto& slot = session.pending[static_cast<std::size_t>(parsed->set)];
    if (!slot || slot->job != parsed->job || slot->trial != parsed->trial)
      throw std::invalid_argument("compare of a trial that was not prepared in that set");
    PendingTrial trial = std::move(*slot);
    slot.reset();
    const StageParts before = process_parts().parts();
    const worker::WorkerJob& job = session.jobs[trial.job];
    const ExchangeSet& set = session.sets.at(static_cast<std::size_t>(parsed->set));
    std::vector<DeviceBuffer> scratch;
    correctness::CompareReply reply;
    for (std::size_t i = 0; i < trial.tensors.inputs().size(); ++i) {
      const auto& input = trial.tensors.inputs()[i];
      const void* data = candidate_data(set, trial.placement.inputs[i], input.bytes(), scratch);
      reply.input_hashes_after.push_back(
          fmt::format("{:016x}", hash_bytes(data, input.bytes(), stream_.get())));
    }
    process_parts().mark(part::kInputs);
    reply.trial = correctness::JudgeTrial{
        .trial = trial.trial, .seed = trial.seed, .input_hashes = trial.input_hashes};
    const auto& outputs = trial.tensors.outputs();
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const auto& desc = outputs[o].desc();
      const void* candidate =
          candidate_data(set, trial.placement.outputs[o], desc.bytes(), scratch);
      auto totals = compare_tensors(candidate, outputs[o].data(), desc.dtype, desc.elements(),
                                    job.tolerance.atol, job.tolerance.rtol, stream_.get());
      correctness::JudgedOutput output{.name = desc.name, .totals = totals};
      trial.accuracy->add_to(output, o, candidate, outputs[o], stream_.get());
      reply.trial.outputs.push_back(std::move(output));
    }
    process_parts().mark(part::kComparison);
    reply.parts = parts_since(before);
    return correctness::to_json(reply);
  }

  static StageParts parts_since(const StageParts& before) {
    StageParts now = process_parts().parts();
    StageParts diff;
    for (const auto& [name, seconds] : now) {
      if (name == part::kOther) continue;
      auto it = before.find(name);
      add_part(diff, name, seconds - (it == before.end() ? 0.0 : it->second));
    }
    return diff;
  }

  worker::ControlSocket socket_;
  CudaStream stream_;
  struct KeptBaseline {
    std::unique_ptr<Baseline> baseline;
    std::uint64_t last_use = 0;
  };
  std::map<std::string, KeptBaseline> baselines_;
  std::uint64_t uses_ = 0;
  ReferenceMemory references_;
  std::map<std::string, Session> sessions_;
};

}  // namespace

int run_judge_server_mode(int control_fd, std::uint64_t reference_bytes) {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  PTXBENCH_CUDA_CHECK(cudaFree(nullptr));
  process_parts().mark(part::kContext);
  JudgeServer server(worker::ControlSocket(control_fd), reference_bytes);
  return server.serve();
}

}  // namespace ptxbench::eval::gpu
