// How the service's queue has its jobs evaluated: a function that takes candidates from `next`
// until the stream ends and hands each verdict to `sink` (the contract of
// eval::Scheduler::evaluate_stream, which `ptxbench serve` uses through the engine, so that a
// record from the service is the record `ptxbench eval --json` writes).
#pragma once
#include <functional>
#include <memory>

#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/eval/engine.hpp"

namespace ptxbench::serve {

using StreamEvaluateFn =
    std::function<void(const eval::CandidateSource& next, const eval::VerdictSink& sink)>;

// The engine's scheduler: compiles on the CPU cores while its GPU slots (one per GPU) judge.
StreamEvaluateFn evaluate_through(std::shared_ptr<eval::Engine> engine);

// A function of one candidate, called on `threads` threads at once (tests, embedders with their
// own evaluation function). An exception it throws is the verdict INTERNAL_ERROR; once ptxbench
// is stopping, what it returns is not a verdict and the sink does not get it.
StreamEvaluateFn evaluate_each(agent::EvaluateFn evaluate, int threads);

}  // namespace ptxbench::serve
