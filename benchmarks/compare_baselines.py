"""Joins ptxbench-bench-baselines and torch_baselines.py output (JSON lines) into a Markdown
table of ratio = PyTorch median / ptxbench baseline median (>= 1: ours at least as fast).
Each side may be given several runs (comma-separated files, run alternately with the other
side's): each side's best median per shape is compared, the same rule for both.
Usage: compare_baselines.py OURS.jsonl[,OURS2.jsonl] TORCH.jsonl[,TORCH2.jsonl]"""
import json
import sys


def rows(paths):
    out = {}
    for path in paths.split(","):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                row = json.loads(line)
                key = (row.get("op"), row.get("shape"))
                if "op" not in row:
                    continue
                runs = out.setdefault(key, dict(row, runs=[]))
                if "median_ms" in row:
                    runs["runs"].append(row["median_ms"])
                    if row["median_ms"] <= min(runs["runs"]):
                        runs.update(row)
    return out


def main():
    ours, theirs = rows(sys.argv[1]), rows(sys.argv[2])
    print("| op | shape | ptxbench ms | PyTorch ms | ratio | ptxbench TFLOP/s | baseline |")
    print("|---|---|---|---|---|---|---|")
    worst = None
    for key, mine in ours.items():
        other = theirs.get(key)
        if "error" in mine or other is None:
            print(f"| {key[0]} | {key[1]} | {mine.get('error', '-')} | - | - | - | - |")
            continue
        ratio = other["median_ms"] / mine["median_ms"]
        worst = ratio if worst is None else min(worst, ratio)
        runs = lambda r: "/".join(f"{x:.4f}" for x in r["runs"])
        print(f"| {key[0]} | {key[1]} | {mine['median_ms']:.4f} ({runs(mine)}) | "
              f"{other['median_ms']:.4f} ({runs(other)}) | {ratio:.3f} | {mine['tflops']:.0f} | "
              f"{mine['baseline']} |")
    print(f"\nlowest ratio: {worst:.3f}" if worst is not None else "\nno comparable rows")


if __name__ == "__main__":
    main()
