"""The results tables of README.md and docs/results.md against the records they cite.

Every table with a `card` column is checked row by row:
- `card` is a GPU (`H100`, `H200`), `CPU`, or `—` (nothing measured);
- `date` is YYYY-MM-DD (or `—` where the card is `—`);
- `record` cites at least one existing file: markdown links (relative to the page) and backticked
  paths (relative to docs/gpu-results/); a cited folder stands for the files in it;
- for a GPU row, the first cited page names the card in its first lines and holds the date;
- every number of the row's figure columns (all but the first, card, date and record) is found
  in the text of the cited records, to its printed precision ("0.978" matches 0.97752).

A row that fails is named with what is wrong. Sample grids and runs (the YAML files of examples/
and the training package, and the ```yaml blocks of README.md and docs/) name core tasks
correctly: every task a sample's `tasks:` lists exists, and a sample whose comment speaks of
core tasks lists only core tasks (the five, where it says "the five").

Usage: python3 results_records_test.py SOURCE_DIR (the repository root)
"""
import fnmatch
import json
import re
import sys
import tempfile
import unittest
from pathlib import Path

CARDS = {"H100", "H200"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
BACKTICK_PATH = re.compile(r"`([\w./-]+/[\w./-]*)`")
# A number standing alone (or as a factor, 0.978x): not part of a name (d128, sm_90a, 02b) or of
# a longer number.
NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d_a-wyzA-Z]|,\d{3})")
TEXT_SUFFIXES = {".md", ".txt", ".log", ".json", ".jsonl", ".csv", ".err", ".yaml", ""}
MAX_RECORD_BYTES = 4 << 20


def split_row(line):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells


def tables(text):
    """[(header cells, [(line number, cells)])] for each markdown table of the text."""
    found, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-| :]+\|$",
                                                                         lines[i + 1].strip()):
            header = [c.lower() for c in split_row(lines[i])]
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, split_row(lines[j])))
                j += 1
            found.append((header, rows))
            i = j
        else:
            i += 1
    return found


def numbers(text):
    """The numbers of a text as (value, decimals) pairs."""
    out = []
    for whole, fraction in NUMBER.findall(text):
        digits = whole.replace(",", "") + (fraction or "")
        out.append((float(digits), len(fraction) - 1 if fraction else 0))
    return out


def found_in(value, decimals, record_numbers):
    """Whether a figure printed with `decimals` places is one of the record's numbers."""
    wanted = f"{value:.{decimals}f}"
    return any(f"{v:.{decimals}f}" == wanted for v, d in record_numbers if d >= decimals)


def cited_paths(record_cell, page, gpu_results):
    paths = []
    for target in LINK.findall(record_cell):
        target = target.split("#")[0]
        if target and "://" not in target:
            paths.append((page.parent / target).resolve())
    for target in BACKTICK_PATH.findall(record_cell):
        paths.append((gpu_results / target).resolve())
    return paths


def record_text(path):
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    parts = []
    for f in files:
        if f.suffix in TEXT_SUFFIXES and f.stat().st_size <= MAX_RECORD_BYTES:
            parts.append(f.read_text(errors="replace"))
    return "\n".join(parts)


def row_problems(page, header, line, cells, gpu_results):
    name = f"{page.name}:{line} ({cells[0]})"
    if len(cells) != len(header):
        return [f"{name}: {len(cells)} cells under {len(header)} headers"]
    row = dict(zip(header, cells))
    card, date, record = row["card"], row.get("date", ""), row.get("record", "")
    problems = []
    if card not in CARDS | {"CPU", "—"}:
        problems.append(f"{name}: card {card!r} is not one of H100, H200, CPU, —")
    if not DATE.match(date) and not (card == "—" and date == "—"):
        problems.append(f"{name}: date {date!r} is not YYYY-MM-DD")
    if card == "—":
        return problems
    paths = cited_paths(record, page, gpu_results)
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        problems.append(f"{name}: cites {p}, which does not exist")
    present = [p for p in paths if p.exists()]
    if not present:
        return problems + [f"{name}: cites no record"]
    if card in CARDS:
        first = present[0] / "README.md" if present[0].is_dir() else present[0]
        head = "\n".join(first.read_text(errors="replace").splitlines()[:12])
        if card not in head:
            problems.append(f"{name}: its record {first.name} does not name the {card} in its "
                            "first lines")
        if date not in first.read_text(errors="replace"):
            problems.append(f"{name}: its record {first.name} does not hold the date {date}")
    text = "\n".join(record_text(p) for p in present)
    record_numbers = numbers(text)
    skip = {"card", "date", "record", header[0]}
    for column in (c for c in header if c not in skip):
        for value, decimals in numbers(row[column]):
            if not found_in(value, decimals, record_numbers):
                problems.append(f"{name}: {column}: {value:.{decimals}f} is in none of its "
                                f"records ({', '.join(p.name for p in present)})")
    return problems


def page_problems(page, gpu_results):
    problems, checked = [], 0
    for header, rows in tables(page.read_text()):
        if "card" not in header:
            continue
        for column in ("date", "record"):
            if column not in header:
                problems.append(f"{page.name}: a table with a card column has no {column} column")
        if problems:
            continue
        for line, cells in rows:
            checked += 1
            problems += row_problems(page, header, line, cells, gpu_results)
    return problems, checked


# ---- samples and core tasks ----

TASKS_LIST = re.compile(r"^\s*(?:-\s*\{[^}]*?)?tasks:\s*\[([^\]]*)\]", re.MULTILINE)


def task_suite(tasks_dir):
    suite = {}
    for path in tasks_dir.rglob("*.json"):
        data = json.loads(path.read_text())
        suite[data["name"]] = bool(data.get("core", False))
    return suite


def sample_problems(sample, suite, text=None):
    text = sample.read_text() if text is None else text
    comments = " ".join(l for l in text.splitlines() if l.lstrip().startswith("#")).lower()
    core = {n for n, is_core in suite.items() if is_core}
    problems = []
    for match in TASKS_LIST.finditer(text):
        names = [n.strip().strip("\"'") for n in match.group(1).split(",") if n.strip()]
        resolved = set()
        for n in names:
            hits = core if n == "core" else set(suite) if n == "all" else set(
                fnmatch.filter(suite, n))
            if not hits:
                problems.append(f"{sample}: task {n!r} names no task of the suite")
            resolved |= hits
        if "five core tasks" in comments and match.start() == TASKS_LIST.search(text).start():
            if resolved != core:
                problems.append(f"{sample}: says the five core tasks but lists {sorted(resolved)}")
        elif re.search(r"\bcore tasks?\b", comments) and match.start() == TASKS_LIST.search(
                text).start():
            not_core = sorted(resolved - core)
            if not_core:
                problems.append(f"{sample}: says core task(s) but lists {', '.join(not_core)}, "
                                "not core")
    return problems


def samples(root):
    """[(name, text)]: the sample YAML files, and each ```yaml block of README.md and docs/."""
    found = []
    for folder in ("examples", "python/ptxbench_train/grids",
                   "python/ptxbench_train/src/ptxbench_train/recipes"):
        found += [(p, p.read_text()) for p in sorted((root / folder).rglob("*.yaml"))]
    for page in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        block, start = None, 0
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if block is None and re.match(r"^```ya?ml\s*$", line):
                block, start = [], number
            elif block is not None and re.match(r"^```\s*$", line):
                found.append((Path(f"{page}:{start}"), "\n".join(block) + "\n"))
                block = None
            elif block is not None:
                block.append(line)
    return found


class Checks(unittest.TestCase):
    def test_a_row_whose_figure_is_not_in_its_record_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "gpu-results").mkdir()
            (tmp / "gpu-results" / "b.md").write_text("# one H200\nOn 2026-12-05: 0.97752x\n")
            page = tmp / "results.md"
            page.write_text(
                "| claim | figure | card | date | record |\n|---|---|---|---|---|\n"
                "| ok | 0.978× | H200 | 2026-12-05 | [b](gpu-results/b.md) |\n"
                "| wrong figure | 0.981× | H200 | 2026-12-05 | [b](gpu-results/b.md) |\n"
                "| wrong card | 0.978× | H100 | 2026-12-05 | [b](gpu-results/b.md) |\n"
                "| wrong date | 0.978× | H200 | 2026-12-07 | [b](gpu-results/b.md) |\n"
                "| no record | 1 | H200 | 2026-12-05 | — |\n"
                "| nothing | none | — | — | — |\n")
            problems, checked = page_problems(page, tmp / "gpu-results")
            self.assertEqual(checked, 6)
            text = "\n".join(problems)
            self.assertNotIn("(ok)", text)
            self.assertNotIn("(nothing)", text)
            for row in ("wrong figure", "wrong card", "wrong date", "no record"):
                self.assertIn(f"({row})", text)

    def test_a_sample_that_calls_a_task_core_must_list_core_tasks(self):
        suite = {"gemm_core": True, "gemm_small": False}
        with tempfile.TemporaryDirectory() as tmp:
            sample = Path(tmp) / "tiny.yaml"
            sample.write_text("# one core task\ntasks: [gemm_small]\n")
            self.assertTrue(sample_problems(sample, suite))
            sample.write_text("# one core task\ntasks: [gemm_core]\n")
            self.assertFalse(sample_problems(sample, suite))
            sample.write_text("# the five core tasks\ntasks: [core]\n")
            self.assertFalse(sample_problems(sample, suite))
            sample.write_text("# a grid\ntasks: [gemm_missing]\n")
            self.assertTrue(sample_problems(sample, suite))


class Repository(unittest.TestCase):
    root = Path(".")

    def test_results_tables_hold_only_what_their_records_hold(self):
        gpu_results = self.root / "docs" / "gpu-results"
        problems, checked = [], 0
        for page in (self.root / "README.md", self.root / "docs" / "results.md"):
            p, n = page_problems(page, gpu_results)
            if n == 0:
                p.append(f"{page}: no results table with a card column")
            problems += p
            checked += n
        self.assertFalse(problems, "\n" + "\n".join(problems))

    def test_samples_name_core_tasks_correctly(self):
        suite = task_suite(self.root / "tasks")
        problems = []
        for sample, text in samples(self.root):
            problems += sample_problems(sample, suite, text)
        self.assertFalse(problems, "\n" + "\n".join(problems))


if __name__ == "__main__":
    Repository.root = Path(sys.argv.pop(1)).resolve()
    unittest.main(verbosity=2)
