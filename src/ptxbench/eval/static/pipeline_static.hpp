// Stages 1-4 of one candidate (extract, lint, compile, static SASS): everything that runs on any
// machine. The Scheduler runs many of these in parallel and then the GPU stages.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/candidate_input.hpp"
#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/eval/gpu_stages.hpp"
#include "ptxbench/task/task.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {

struct StaticContext {
  util::ProcessRunner& runner;
  compile::CompileOptions compile;
  std::map<std::string, std::string> toolchain;  // versions known before any candidate ran
};

struct StaticOutcome {
  Evaluation evaluation;                      // stages 1-4 filled; verdict final unless passed
  std::optional<CompiledCandidate> compiled;  // set when all four stages passed
};

// Never throws for anything the candidate does; `work_dir` receives candidate.cu/.so and cubins.
StaticOutcome run_static_stages(const task::Task& task, arch::Arch arch,
                                const CandidateInput& input, const StaticContext& context,
                                const std::filesystem::path& work_dir);

// The family evidence of a statically checked candidate: every family tracked for the arch and
// every requested one, with static counts; executed counts are left to the GPU stages.
std::vector<FamilyEvidence> static_family_evidence(const task::Task& task, arch::Arch arch,
                                                   const sass::SassModule& sass);

}  // namespace ptxbench::eval
