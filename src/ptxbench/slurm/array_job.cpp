#include "ptxbench/slurm/array_job.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <iterator>
#include <sstream>

#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/generated_text.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::slurm {
namespace fs = std::filesystem;
namespace {

std::string quote(const std::string& text) {
  return util::shell_quoted(text);
}

// A value of an #SBATCH line in double quotes (sbatch strips them). A control character would
// end the line; '"' and '\\' are refused rather than escaped because in an --output file name a
// backslash turns Slurm's %a off.
util::Expected<std::string> sbatch_value(std::string_view what, const std::string& value) {
  auto line = util::one_line(what, value, "an #SBATCH line");
  if (!line) return line.error();
  if (value.find_first_of("\"\\") != std::string::npos)
    return util::make_error(
        fmt::format("{}: {} holds '\"' or '\\', which an #SBATCH line cannot hold", what, value));
  return "\"" + value + "\"";
}

// '%' in a file name of --output is Slurm's pattern character; "%%" is one '%'.
std::string literal_percent(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
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

util::Expected<std::string> render_array_script(const ArrayJob& job) {
  const auto run_dir = fs::absolute(job.run_dir).lexically_normal();
  auto run = sbatch_value("run folder", run_dir.string());
  if (!run) return run.error();
  auto name = sbatch_value("run folder", "ptxbench-" + run_dir.filename().string());
  auto workdir = sbatch_value("working folder", fs::absolute(job.working_dir).string());
  if (!workdir) return workdir.error();
  auto log = sbatch_value("run folder", literal_percent(run_dir.string()) + "/slurm/shard-%a.log");
  if (!name) return name.error();
  if (!log) return log.error();
  // The user's sbatch options go into the script, so that resubmitting it by hand keeps them.
  std::string options;
  for (const auto& option : job.sbatch_args) {
    auto value = sbatch_value("--slurm", option);
    if (!value) return value.error();
    options += "#SBATCH " + *value + "\n";
  }
  std::string command;
  for (const auto& arg : job.run_argv) command += quote(arg) + " ";
  return fmt::format(
      fmt::runtime(
          "#!/bin/bash\n"
          "# ptxbench run as a job array: array task I runs shard I/{shards} into shards/shard-I.\n"
          "# Resubmitting resumes each shard where it stopped; `ptxbench merge` combines them.\n"
          "#SBATCH --job-name={name}\n"
          "#SBATCH --array=0-{last}\n"
          "#SBATCH --chdir={workdir}\n"
          "#SBATCH --output={log}\n"
          "{options}"
          "set -euo pipefail\n"
          "shard=\"${{SLURM_ARRAY_TASK_ID:?run this script with sbatch}}\"\n"
          "exec {command}--shard \"$shard/{shards}\" --out {run_q}/shards/shard-\"$shard\"\n"),
      fmt::arg("shards", job.shards), fmt::arg("name", *name), fmt::arg("last", job.shards - 1),
      fmt::arg("workdir", *workdir), fmt::arg("log", *log), fmt::arg("options", options),
      fmt::arg("command", command), fmt::arg("run_q", quote(run_dir.string())));
}

util::Expected<SubmittedArray> submit_array_job(const ArrayJob& job, util::ProcessRunner& runner) {
  auto text = render_array_script(job);
  if (!text) return text.error();
  const auto run_dir = fs::absolute(job.run_dir).lexically_normal();
  if (auto out = util::check_output_folder(run_dir); !out) return out.error();
  const auto slurm_dir = run_dir / "slurm";
  fs::create_directories(slurm_dir);
  fs::create_directories(run_dir / "shards");
  const auto script = slurm_dir / "array.sh";
  util::write_file_atomic(script, *text);
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);
  // The options are in the script (#SBATCH), where a resubmission finds them too.
  auto result = runner.run(
      {.argv = {"sbatch", "--parsable", script.string()}, .timeout = std::chrono::minutes(2)});
  if (!result.succeeded()) {
    std::string why = result.spawn_error.empty() ? result.stderr_text : result.spawn_error;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return util::make_error(
        fmt::format("sbatch: {}: {}\nthe script is ready: submit it by hand with `sbatch {}` "
                    "(docs/slurm.md), then `ptxbench merge {}`",
                    result.describe_end(), why, quote(script.string()), quote(run_dir.string())));
  }
  auto id = result.stdout_text.substr(0, result.stdout_text.find_first_of(";\n"));
  return SubmittedArray{.job_id = id, .script = script};
}

}  // namespace ptxbench::slurm
