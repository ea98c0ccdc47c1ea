"""Checks ptxbench's timing against Nsight Compute: runs the candidate worker on the headline
workload of a task under `ncu --clock-control none --metrics gpu__time_duration.sum` (ncu flushes
the caches before every kernel by default, as ptxbench flushes the L2 before every sample) and
compares ncu's median kernel duration with the headline median of the candidate's evaluation.
Usage: ncu_agreement.py EVALS.json ARTIFACTS_DIR TASK.json WORKER SOURCE_NAME KERNEL_REGEX OUT_DIR"""
import csv
import glob
import io
import json
import os
import statistics
import subprocess
import sys

from evaluation_records import read_evaluations


def job_for(task, library):
    axes_const = {k: v["value"] for k, v in task["axes"].items() if v.get("type") == "const"}
    workload = next(w for w in task["workloads"] if w.get("headline"))
    axes = dict(axes_const, **workload["axes"])

    def tensors(specs):
        return [{"name": n, "dtype": s["dtype"], "shape": [axes[a] for a in s["shape"]],
                 "axes": s["shape"]} for n, s in specs.items()]

    return {"task": task["name"], "op_type": task["op_type"], "baseline": task["baseline"],
            "parameters": task.get("parameters", {}), "inputs": tensors(task["inputs"]),
            "outputs": tensors(task["outputs"]), "workload": workload["name"],
            "distribution": workload["distribution"], "seed": str(workload["seed"]), "trials": 5,
            "library": library, "exchange_dir": "",
            "limits": {"host_memory_budget_bytes": 0, "call_timeout_ms": 60000},
            "request": {"mode": "candidate", "settings": {}}}


def main():
    evals_path, artifacts, task_path, worker, source, kernel, out_dir = sys.argv[1:8]
    evaluation = next(e for e in read_evaluations(evals_path)
                      if os.path.basename(e.get("source_name", "")) == source)
    ours = next(w for w in evaluation["workloads"] if w.get("headline"))["candidate"]["median_ms"]
    library = glob.glob(os.path.join(artifacts, f"*{source}*", "candidate.so"))[0]
    job_file = os.path.join(out_dir, "ncu_job.json")
    with open(job_file, "w") as f:
        json.dump(job_for(json.load(open(task_path)), library), f)
    command = ["ncu", "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "--csv",
               "--print-units", "base", "-k", f"regex:{kernel}", worker, "candidate", "--job", job_file]
    print("$", " ".join(command))
    run = subprocess.run(command, capture_output=True, text=True)
    with open(os.path.join(out_dir, "ncu_raw.txt"), "w") as f:
        f.write(run.stdout + "\n--- stderr ---\n" + run.stderr)
    rows = [r for r in csv.DictReader(io.StringIO(
        "\n".join(l for l in run.stdout.splitlines() if l.startswith('"'))))
            if r.get("Metric Name") == "gpu__time_duration.sum"]
    durations_ms = [float(r["Metric Value"].replace(",", "")) * 1e-6 for r in rows]  # ns -> ms
    if not durations_ms:
        print("ncu reported no kernel matching", kernel, "(see ncu_raw.txt)")
        sys.exit(1)
    theirs = statistics.median(durations_ms)
    print(f"ncu gpu__time_duration over {len(durations_ms)} launches of {kernel}: "
          f"{', '.join(f'{d:.4f}' for d in durations_ms)} ms; median {theirs:.4f} ms")
    print(f"ptxbench headline median for {source}: {ours:.4f} ms")
    print(f"ptxbench / ncu - 1 = {ours / theirs - 1:+.2%} (goal: within 3%)")


if __name__ == "__main__":
    main()
