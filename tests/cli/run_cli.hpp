// The built `ptxbench` executable (PTXBENCH_CLI_PATH) run as a user would, its output captured.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ptxbench/util/process.hpp"

namespace ptxbench::testing {

inline util::ProcessResult run_cli(std::vector<std::string> args, std::chrono::seconds timeout,
                                   std::vector<std::pair<std::string, std::string>> env = {},
                                   std::filesystem::path working_dir = {}) {
  args.insert(args.begin(), PTXBENCH_CLI_PATH);
  util::SystemProcessRunner runner;
  return runner.run({.argv = std::move(args),
                     .timeout = timeout,
                     .env = std::move(env),
                     .working_dir = std::move(working_dir)});
}

}  // namespace ptxbench::testing
