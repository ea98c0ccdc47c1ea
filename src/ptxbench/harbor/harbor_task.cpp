#include "ptxbench/harbor/harbor_task.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "ptxbench/prompt/prompt.hpp"
#include "ptxbench/util/generated_text.hpp"

namespace ptxbench::harbor {
namespace {

// A TOML basic string: JSON's string escapes are TOML's.
std::string toml_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// GPUs that run the arch's instructions (Harbor matches them against its providers' names).
std::string gpu_types(arch::Arch arch) {
  return arch == arch::Arch::kHopper ? R"(["H100", "H200"])" : R"(["B200", "B300"])";
}

// Harbor's task.toml (schema of harbor.models.task.config: memory_mb/storage_mb, not the
// deprecated memory/storage).
std::string task_toml(const task::Task& task, const HarborOptions& options) {
  const auto arch = std::string(arch::to_string(options.arch));
  return fmt::format(
      "version = \"1.0\"\n\n"
      "[metadata]\n"
      "category = \"gpu-kernels\"\n"
      "difficulty = \"hard\"\n"
      "tags = [\"cuda\", \"ptx\", {}, {}]\n"
      "ptxbench_task = {}\n"
      "ptxbench_arch = {}\n"
      "ptxbench_context = {}\n"
      "ptxbench_split = {}\n\n"
      "[verifier]\n"
      "# compile, sanitizer, correctness, instruction counts and timing of one candidate\n"
      "timeout_sec = 1800.0\n"
      "# The verifier runs as root and the agent as the unprivileged user {user}, which cannot\n"
      "# change the judge (ptxbench, its worker, python3) or the verifier's files; tests/test.sh\n"
      "# stops every process of {user} before it judges.\n"
      "user = \"root\"\n\n"
      "[agent]\n"
      "timeout_sec = 3600.0\n"
      "user = \"{user}\"\n\n"
      "[environment]\n"
      "build_timeout_sec = 900.0\n"
      "cpus = 4\n"
      "memory_mb = 32768\n"
      "storage_mb = 20480\n"
      "gpus = 1\n"
      "gpu_types = {}\n",
      toml_string(std::string(task::to_string(task.op_type))), toml_string(arch),
      toml_string(task.name), toml_string(arch),
      toml_string(std::string(prompt::to_string(options.context))), toml_string(task.split),
      gpu_types(options.arch), fmt::arg("user", kAgentUser));
}

std::string instruction(const task::Task& task, const prompt::Prompt& prompt) {
  return fmt::format(
      "# {}\n\n"
      "Write the kernel file `/workspace/kernel.cu`. It is judged as the code block of a "
      "reply would be: the rules below say what it must export and how it is judged. "
      "`nvcc`, `cuobjdump` and `ptxbench` are installed; `ptxbench eval /workspace/kernel.cu "
      "--task {} --arch <arch>` judges a draft the way the verifier will.\n\n"
      "## Rules\n\n{}\n\n## Task\n\n{}\n",
      task.name, task.name, prompt.system, prompt.task);
}

std::string stub(const task::Task& task, arch::Arch arch) {
  std::vector<std::string> arguments;
  for (const auto& t : task.inputs) arguments.push_back(t.name);
  for (const auto& t : task.outputs) arguments.push_back(t.name);
  return fmt::format(
      "// {} on {}: replace this file with your kernel. It exports run({}) with destination\n"
      "// passing (the outputs are written in place); instruction.md has the exact ABI and a\n"
      "// complete example.\n"
      "#error \"kernel.cu is still the stub\"\n",
      task.name, arch::to_string(arch), fmt::join(arguments, ", "));
}

// An image reference (registry/name:tag@digest) holds none of the characters that would let it
// end the ARG line or start another instruction.
util::Expected<std::string> image_reference(const std::string& image) {
  const bool valid = !image.empty() &&
                     std::isalnum(static_cast<unsigned char>(image.front())) != 0 &&
                     std::all_of(image.begin(), image.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                              std::string_view("._-/:@").find(c) != std::string_view::npos;
                     });
  if (!valid)
    return util::make_error(fmt::format(
        "base image {}: not an image reference (letters, digits and ._-/:@ only, as in "
        "registry.example.com/ptxbench:1.0)",
        nlohmann::json(image).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  return image;
}

std::string dockerfile(const std::string& image) {
  return fmt::format(
      "# The environment starts from the ptxbench image: ptxbench, its GPU worker, nvcc and the\n"
      "# CUDA tools, and the user {user} the agent works as. Build it once, in the ptxbench\n"
      "# source tree, before Harbor builds this environment:\n"
      "#   {build}\n"
      "# (docs/serve.md; `ptxbench export-tasks --image` names another tag or registry).\n"
      "ARG PTXBENCH_IMAGE={image}\n"
      "FROM ${{PTXBENCH_IMAGE}}\n"
      "WORKDIR /workspace\n"
      "COPY workspace/ /workspace/\n"
      "RUN chown -R {user}:{user} /workspace\n",
      fmt::arg("image", image), fmt::arg("user", kAgentUser),
      fmt::arg("build", image_build_command(kDefaultImage)));
}

// The verifier. Harbor runs it (as root, task.toml) after the agent; it judges a private copy of
// /workspace/kernel.cu and writes /logs/verifier/reward.txt (1 for PASSED, else 0) and
// result.json. When the GPU stages could not run it writes no reward and fails: a kernel is not
// worth 0 because the environment had no GPU.
std::string test_script(const task::Task& task, arch::Arch arch) {
  const auto arch_name = std::string(arch::to_string(arch));
  return fmt::format(fmt::runtime(R"SH(#!/bin/bash
# Judges the agent's kernel for {task_sh} on {arch_sh}: `ptxbench eval --json`, or the
# evaluation service when PTXBENCH_URL (and PTXBENCH_TOKEN) are set. Writes reward.txt (1: PASSED,
# else 0) and result.json (verdict, pass, speedup, executed instruction families) to the logs
# folder. Exits 2 without a reward when the GPU stages did not run (no GPU in the environment)
# or the judge itself failed.
set -u
workspace="${{PTXBENCH_WORKSPACE:-/workspace}}"
logs="${{PTXBENCH_VERIFIER_LOGS:-/logs/verifier}}"
ptxbench="${{PTXBENCH_EXE:-ptxbench}}"
mkdir -p "$logs"
# Nothing the agent started runs on while it is judged, and the judged file is a private copy.
if [ "$(id -u)" = 0 ] && id -u {user} >/dev/null 2>&1; then
  pkill -KILL -u {user} || true
fi
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
chmod 700 "$private"
cp "$workspace/kernel.cu" "$private/kernel.cu" 2>/dev/null || : > "$private/kernel.cu"
record="$logs/evaluation.json"
if [ -n "${{PTXBENCH_URL:-}}" ]; then
  python3 - "$private/kernel.cu" "$record" <<'PY'
import json, os, sys, time, urllib.request
def call(method, path, body=None):
    request = urllib.request.Request(os.environ["PTXBENCH_URL"].rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Authorization", "Bearer " + os.environ.get("PTXBENCH_TOKEN", ""))
    request.add_header("Content-Type", "application/json")
    return json.load(urllib.request.urlopen(request, timeout=3600))
job = call("POST", "/v1/evaluations", {{"task": {task_json}, "arch": {arch_json},
                                        "code": open(sys.argv[1]).read()}})
while (state := call("GET", "/v1/evaluations/" + job["id"]))["state"] != "done":
    time.sleep(2)
json.dump(state["record"], open(sys.argv[2], "w"))
PY
else
  # shellcheck disable=SC2086
  "$ptxbench" eval "$private/kernel.cu" --task {task_sh} --arch {arch_sh} --json ${{PTXBENCH_EVAL_FLAGS:-}} > "$record"
fi
python3 - "$record" "$logs" <<'PY'
import json, sys
logs = sys.argv[2]
try:
    record = json.load(open(sys.argv[1]))
except (OSError, ValueError) as error:
    record = {{"verdict": "INTERNAL_ERROR", "message": f"no evaluation record: {{error}}"}}
headline = next((w for w in record.get("workloads", []) if w.get("headline")), {{}})
result = {{
    "verdict": record.get("verdict"),
    "message": record.get("message"),
    "pass": record.get("verdict") == "PASSED",
    "speedup": headline.get("speedup"),
    "executed_families": {{f["family"]: f.get("executed_count") for f in record.get("families", [])}},
    "requested_families": [f["family"] for f in record.get("families", []) if f.get("requested")],
}}
# Not judged is not a score: no GPU (NOT_RUN) or a failure of the judge (INTERNAL_ERROR).
unjudged = {{
    "NOT_RUN": "the GPU stages did not run: this environment has no usable GPU (task.toml asks "
               "for gpus = 1 of gpu_types; run Harbor with a GPU provider)",
    "INTERNAL_ERROR": "the judge failed, not the kernel",
}}.get(record.get("verdict"))
if unjudged:
    result["error"] = unjudged
json.dump(result, open(f"{{logs}}/result.json", "w"), indent=2)
print(json.dumps(result))
if unjudged:
    print(f"ptxbench verifier: NOT JUDGED: {{unjudged}}: {{record.get('message')}}; no reward written",
          file=sys.stderr)
    sys.exit(2)
open(f"{{logs}}/reward.txt", "w").write("1\n" if result["pass"] else "0\n")
sys.exit(0 if result["pass"] else 1)
PY
)SH"),
                     fmt::arg("task_sh", util::shell_quoted(task.name)),
                     fmt::arg("arch_sh", util::shell_quoted(arch_name)),
                     fmt::arg("task_json", nlohmann::json(task.name).dump()),
                     fmt::arg("arch_json", nlohmann::json(arch_name).dump()),
                     fmt::arg("user", kAgentUser));
}

}  // namespace

std::string image_build_command(const std::string& tag) {
  return fmt::format("docker build -f docker/Dockerfile -t {} .", tag);
}

std::string harbor_task_name(const task::Task& task, arch::Arch arch) {
  return fmt::format("{}-{}", task.name, arch::to_string(arch));
}

util::Expected<std::map<std::string, HarborFile>> render_harbor_task(const task::Task& task,
                                                                     const HarborOptions& options) {
  auto image = image_reference(options.base_image);
  if (!image) return image.error();
  auto prompt = prompt::build_prompt(task, options.arch, options.context, options.context_dir);
  if (!prompt) return prompt.error();
  std::map<std::string, HarborFile> files{
      {"task.toml", {task_toml(task, options)}},
      {"instruction.md", {instruction(task, *prompt)}},
      {"environment/Dockerfile", {dockerfile(*image)}},
      {"environment/workspace/kernel.cu", {stub(task, options.arch)}},
      {"tests/test.sh", {test_script(task, options.arch), true}},
  };
  if (options.solution) {
    files["solution/kernel.cu"] = {*options.solution};
    files["solution/solve.sh"] = {
        "#!/bin/bash\n# The project's solution, copied into place.\nset -eu\n"
        "cp \"$(dirname \"$0\")/kernel.cu\" \"${PTXBENCH_WORKSPACE:-/workspace}/kernel.cu\"\n",
        true};
  }
  return files;
}

}  // namespace ptxbench::harbor
