#include "ptxbench/harbor/harbor_task.hpp"

#include <fmt/format.h>

#include <vector>

#include "ptxbench/prompt/prompt.hpp"

namespace ptxbench::harbor {
namespace {

std::string task_toml(const task::Task& task, const HarborOptions& options) {
  return fmt::format(
      "version = \"1.0\"\n\n"
      "[metadata]\n"
      "category = \"gpu-kernels\"\n"
      "difficulty = \"hard\"\n"
      "tags = [\"cuda\", \"ptx\", \"{}\", \"{}\"]\n"
      "ptxbench_task = \"{}\"\n"
      "ptxbench_arch = \"{}\"\n"
      "ptxbench_context = \"{}\"\n"
      "ptxbench_split = \"{}\"\n\n"
      "[verifier]\n"
      "# compile, sanitizer, correctness, instruction counts and timing of one candidate\n"
      "timeout_sec = 1800.0\n\n"
      "[agent]\n"
      "timeout_sec = 3600.0\n\n"
      "[environment]\n"
      "build_timeout_sec = 900.0\n"
      "cpus = 4\n"
      "memory = \"32G\"\n"
      "gpus = 1\n",
      task.op_type, arch::to_string(options.arch), task.name, arch::to_string(options.arch),
      prompt::to_string(options.context), task.split);
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

std::string dockerfile(const HarborOptions& options) {
  return fmt::format(
      "# An image with ptxbench installed (ptxbench, ptxbench-worker, nvcc, compute-sanitizer).\n"
      "ARG PTXBENCH_IMAGE={}\n"
      "FROM ${{PTXBENCH_IMAGE}}\n"
      "WORKDIR /workspace\n"
      "COPY workspace/ /workspace/\n",
      options.base_image);
}

// The verifier. Harbor runs it after the agent; it reads /workspace/kernel.cu and writes
// /logs/verifier/reward.txt (1 for PASSED, else 0) and result.json.
std::string test_script(const task::Task& task, arch::Arch arch) {
  return fmt::format(fmt::runtime(R"SH(#!/bin/bash
# Judges the agent's kernel for {task} on {arch}: `ptxbench eval --json`, or the evaluation
# service when PTXBENCH_URL (and PTXBENCH_TOKEN) are set. Writes reward.txt (1: PASSED, else 0)
# and result.json (verdict, pass, speedup, executed instruction families) to the logs folder.
set -u
workspace="${{PTXBENCH_WORKSPACE:-/workspace}}"
logs="${{PTXBENCH_VERIFIER_LOGS:-/logs/verifier}}"
ptxbench="${{PTXBENCH_EXE:-ptxbench}}"
mkdir -p "$logs"
record="$logs/evaluation.json"
if [ -n "${{PTXBENCH_URL:-}}" ]; then
  python3 - "$workspace/kernel.cu" "$record" <<'PY'
import json, os, sys, urllib.request
def call(method, path, body=None):
    request = urllib.request.Request(os.environ["PTXBENCH_URL"].rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Authorization", "Bearer " + os.environ.get("PTXBENCH_TOKEN", ""))
    request.add_header("Content-Type", "application/json")
    return json.load(urllib.request.urlopen(request, timeout=3600))
job = call("POST", "/v1/evaluations", {{"task": "{task}", "arch": "{arch}",
                                        "code": open(sys.argv[1]).read()}})
import time
while (state := call("GET", "/v1/evaluations/" + job["id"]))["state"] != "done":
    time.sleep(2)
json.dump(state["record"], open(sys.argv[2], "w"))
PY
else
  # shellcheck disable=SC2086
  "$ptxbench" eval "$workspace/kernel.cu" --task {task} --arch {arch} --json ${{PTXBENCH_EVAL_FLAGS:-}} > "$record"
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
json.dump(result, open(f"{{logs}}/result.json", "w"), indent=2)
open(f"{{logs}}/reward.txt", "w").write("1\n" if result["pass"] else "0\n")
print(json.dumps(result))
sys.exit(0 if result["pass"] else 1)
PY
)SH"),
                     fmt::arg("task", task.name), fmt::arg("arch", arch::to_string(arch)));
}

}  // namespace

std::string harbor_task_name(const task::Task& task, arch::Arch arch) {
  return fmt::format("{}-{}", task.name, arch::to_string(arch));
}

util::Expected<std::map<std::string, HarborFile>> render_harbor_task(const task::Task& task,
                                                                     const HarborOptions& options) {
  auto prompt = prompt::build_prompt(task, options.arch, options.context, options.context_dir);
  if (!prompt) return prompt.error();
  std::map<std::string, HarborFile> files{
      {"task.toml", {task_toml(task, options)}},
      {"instruction.md", {instruction(task, *prompt)}},
      {"environment/Dockerfile", {dockerfile(options)}},
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
