#include "ptxbench/serve/stream_evaluation.hpp"

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "ptxbench/util/child_processes.hpp"

namespace ptxbench::serve {

StreamEvaluateFn evaluate_through(std::shared_ptr<eval::Engine> engine) {
  return [engine](const eval::CandidateSource& next, const eval::VerdictSink& sink) {
    engine->evaluate_stream(next, sink);
  };
}

StreamEvaluateFn evaluate_each(agent::EvaluateFn evaluate, int threads) {
  return [evaluate, threads](const eval::CandidateSource& next, const eval::VerdictSink& sink) {
    std::mutex source_mutex, sink_mutex;
    bool ended = false;
    std::exception_ptr error;  // the first thing `next` or `sink` threw: it ends the stream
    auto evaluate_until_ended = [&] {
      for (;;) {
        std::optional<eval::StreamCandidate> candidate;
        {
          std::lock_guard lock(source_mutex);
          if (ended) return;
          candidate = next();
          if (!candidate) {
            ended = true;
            return;
          }
        }
        eval::Evaluation evaluation;
        try {
          evaluation = evaluate(*candidate->task, candidate->arch, candidate->input);
        } catch (const std::exception& failure) {
          evaluation.task = candidate->task->name;
          evaluation.arch = candidate->arch;
          evaluation.source_name = candidate->input.source_name;
          evaluation.verdict = eval::Verdict::kInternalError;
          evaluation.message = std::string("ptxbench failed, not the candidate: ") + failure.what();
        }
        if (util::children_stopped()) return;  // its tools were stopped under it: no verdict
        std::lock_guard lock(sink_mutex);
        sink(candidate->id, evaluation);
      }
    };
    auto work = [&] {
      try {
        evaluate_until_ended();
      } catch (...) {
        std::lock_guard lock(source_mutex);
        ended = true;
        if (!error) error = std::current_exception();
      }
    };
    {
      std::vector<std::jthread> pool;
      for (int i = 0; i < std::max(1, threads); ++i) pool.emplace_back(work);
    }
    if (error) std::rethrow_exception(error);
    if (util::children_stopped()) throw util::Stopped("stopped while evaluating a stream");
  };
}

}  // namespace ptxbench::serve
