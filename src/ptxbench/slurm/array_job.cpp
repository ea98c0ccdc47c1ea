#include "ptxbench/slurm/array_job.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <iterator>
#include <sstream>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::slurm {
namespace fs = std::filesystem;
namespace {

// Single-quoted for bash: the script must pass each argument through unchanged.
std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

constexpr std::array<std::string_view, 3> kSubmitOnly{"--slurm", "--shards", "--out"};

}  // namespace

std::vector<std::string> shard_command(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    bool dropped = false;
    for (auto option : kSubmitOnly) {
      if (argv[i] == option) {
        ++i;  // and its value
        dropped = true;
      } else if (argv[i].starts_with(std::string(option) + "=")) {
        dropped = true;
      }
      if (dropped) break;
    }
    if (!dropped) out.push_back(argv[i]);
  }
  return out;
}

std::vector<std::string> own_argv() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(file), {}};
  std::vector<std::string> argv;
  std::string current;
  for (char c : text) {
    if (c == '\0') {
      argv.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!argv.empty()) argv[0] = fs::read_symlink("/proc/self/exe").string();  // an absolute path
  return argv;
}

std::vector<std::string> split_arguments(const std::string& text) {
  std::istringstream words(text);
  return {std::istream_iterator<std::string>(words), {}};
}

std::string render_array_script(const ArrayJob& job) {
  const auto run_dir = fs::absolute(job.run_dir);
  std::string command;
  for (const auto& arg : job.run_argv) command += quote(arg) + " ";
  return fmt::format(
      fmt::runtime(
          "#!/bin/bash\n"
          "# ptxbench run as a job array: array task I runs shard I/{shards} into shards/shard-I.\n"
          "# Resubmitting resumes each shard where it stopped; `ptxbench merge` combines them.\n"
          "#SBATCH --job-name=ptxbench-{name}\n"
          "#SBATCH --array=0-{last}\n"
          "#SBATCH --chdir={workdir}\n"
          "#SBATCH --output={run}/slurm/shard-%a.log\n"
          "set -euo pipefail\n"
          "shard=\"${{SLURM_ARRAY_TASK_ID:?run this script with sbatch}}\"\n"
          "exec {command}--shard \"$shard/{shards}\" --out {run_q}/shards/shard-\"$shard\"\n"),
      fmt::arg("shards", job.shards), fmt::arg("name", run_dir.filename().string()),
      fmt::arg("last", job.shards - 1), fmt::arg("workdir", fs::absolute(job.working_dir).string()),
      fmt::arg("run", run_dir.string()), fmt::arg("command", command),
      fmt::arg("run_q", quote(run_dir.string())));
}

util::Expected<SubmittedArray> submit_array_job(const ArrayJob& job, util::ProcessRunner& runner) {
  const auto slurm_dir = fs::absolute(job.run_dir) / "slurm";
  fs::create_directories(slurm_dir);
  fs::create_directories(fs::absolute(job.run_dir) / "shards");
  const auto script = slurm_dir / "array.sh";
  util::write_file_atomic(script, render_array_script(job));
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);
  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), job.sbatch_args.begin(), job.sbatch_args.end());
  argv.push_back(script.string());
  auto result = runner.run({.argv = argv, .timeout = std::chrono::minutes(2)});
  if (!result.succeeded())
    return util::make_error(
        fmt::format("sbatch: {}: {}", result.describe_end(),
                    result.spawn_error.empty() ? result.stderr_text : result.spawn_error));
  auto id = result.stdout_text.substr(0, result.stdout_text.find_first_of(";\n"));
  return SubmittedArray{.job_id = id, .script = script};
}

}  // namespace ptxbench::slurm
