// Hand-made Fixit rows for the stage tests.
#pragma once
#include <fmt/format.h>

#include <string>

#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::testing {

inline fixit::MinedRow mined_row(const std::string& task, eval::Verdict verdict, int turn,
                                 int serial) {
  std::string code = fmt::format("// candidate {}\n__global__ void k{}() {{}}\n", serial, serial);
  return {.id = "m-" + util::hash_hex(fmt::format("{}/{}", task, serial)),
          .source = {.run = "runs/sample",
                     .trajectory = fmt::format("model__{}__hopper__none__s{}", task, serial),
                     .turn = turn,
                     .model = "model"},
          .task = task,
          .arch = arch::Arch::kHopper,
          .context = prompt::ContextLevel::kNone,
          .split = "train",
          .verdict = verdict,
          .system_prompt = "You write PTX kernels.",
          .task_prompt = "Write " + task + ".",
          .reply = "```cuda\n" + code + "```\n",
          .code = code,
          .feedback = "Verdict: " + std::string(eval::to_string(verdict)),
          .error_text = "error text of " + std::string(eval::to_string(verdict)),
          .source_hash = util::hash_hex(code),
          .normalized_hash = util::hash_hex(code)};
}

}  // namespace ptxbench::testing
