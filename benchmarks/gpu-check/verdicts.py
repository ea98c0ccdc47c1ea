"""Checks `ptxbench eval --json` records against the verdict each solution's or control's header
names (`expect=VERDICT` or `expect=A|B` on its first line; PASSED when a file has none) and
prints one line per record:
ok/BAD, the file, its verdict, wall time, headline speedup and each stage's status and seconds;
for a BAD record its message, and for a proof or sanitizer stage that did not pass, its message.
Exits 1 when some record differs from its expected verdict, 2 when there was no record at all.
Usage: verdicts.py SOURCES_DIR[,SOURCES_DIR...] RECORDS.jsonl...  (each dir's */*.cu and *.cu)"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from evaluation_records import read_evaluations  # noqa: E402  (benchmarks/)


def expected_verdicts(dirs):
    expect = {}
    for folder in dirs.split(","):
        paths = glob.glob(os.path.join(folder, "*", "*.cu")) + glob.glob(os.path.join(folder, "*.cu"))
        for path in paths:
            with open(path, errors="replace") as f:
                match = re.search(r"expect=([A-Z_|]+)", f.readline())
            if match:
                expect[os.path.basename(path)] = set(match.group(1).split("|"))
    return expect


def one_line(text, limit):
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())[:limit]


def headline_speedup(record):
    for workload in record.get("workloads", []):
        if workload.get("headline"):
            return workload.get("speedup")
    return None


def main():
    expect = expected_verdicts(sys.argv[1])
    bad = checked = 0
    for path in sys.argv[2:]:
        if not os.path.exists(path):
            print(f"-- {path}: no records")
            continue
        try:
            records = read_evaluations(path)
        except ValueError as error:
            print(f"-- {path}: unreadable ({error})")
            continue
        for record in records:
            name = os.path.basename(record.get("source_name", "?"))
            want = expect.get(name, {"PASSED"})
            ok = record.get("verdict") in want
            bad += not ok
            checked += 1
            stages = " ".join(
                f"{s['stage'][:5]}={s['status'][:4]}:{s.get('seconds', 0):.1f}"
                for s in record.get("stages", [])
            )
            print(
                "ok " if ok else "BAD",
                name,
                record.get("task"),
                record.get("verdict"),
                "expect",
                "|".join(sorted(want)),
                f"wall={record.get('wall_seconds', 0):.1f}",
                f"speedup={headline_speedup(record)}",
                record.get("sandbox"),
                stages,
            )
            if not ok:
                print("    ", one_line(record.get("message") or "", 700))
            for stage in record.get("stages", []):
                if stage["stage"] in ("dynamic_sass", "sanitize") and stage["status"] != "passed":
                    print("    ", stage["stage"], one_line(stage.get("message", ""), 600))
    print(f"{checked} record(s) checked, {bad} differ from their expected verdict")
    if checked == 0:
        return 2  # nothing was judged: not a pass
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
