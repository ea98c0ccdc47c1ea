"""Joins ptxbench-bench-baselines and torch_baselines.py output (JSON lines) into a Markdown
table of ratio = PyTorch median / ptxbench baseline median (>= 1: ours at least as fast).
Usage: compare_baselines.py OURS.jsonl TORCH.jsonl"""
import json
import sys


def rows(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            if "op" in row:
                out[(row["op"], row["shape"])] = row
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
        print(f"| {key[0]} | {key[1]} | {mine['median_ms']:.4f} | {other['median_ms']:.4f} | "
              f"{ratio:.3f} | {mine['tflops']:.0f} | {mine['baseline']} |")
    print(f"\nlowest ratio: {worst:.3f}" if worst is not None else "\nno comparable rows")


if __name__ == "__main__":
    main()
