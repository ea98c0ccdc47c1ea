// The two sandboxed runners an evaluation uses, made from one mode: one for every process that
// loads candidate code (and the trusted tools beside them), one for the compiler, whose memory
// limit is the evaluation's --compile-memory in every mode (0: none). `visible` is the
// evaluation's artefact folder: the worker reads the candidate's .so from it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ptxbench/sandbox/sandboxed_runner.hpp"

namespace ptxbench::sandbox {

struct EvaluationSandbox {
  std::shared_ptr<SandboxedProcessRunner> worker;
  std::shared_ptr<SandboxedProcessRunner> compiler;
  // The record's "sandbox" field: "full", "partial: ...", "off".
  std::string description;
  // True when processes will run: any mode but strict, or strict with every layer.
  bool usable = true;
};

EvaluationSandbox make_evaluation_sandbox(Mode mode, std::shared_ptr<util::ProcessRunner> base,
                                          const std::vector<std::filesystem::path>& visible,
                                          std::uint64_t compile_memory_bytes);

}  // namespace ptxbench::sandbox
