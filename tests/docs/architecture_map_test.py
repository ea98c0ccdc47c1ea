"""docs/ARCHITECTURE.md's folder table against the include graph of src/ptxbench/.

The "depends on" column of each `folder/` row must name, in backticks, exactly the top-level
folders that the folder's files include (`#include "ptxbench/<folder>/..."`); sub-folders
(`eval/correctness/`, `report/view/`) count as their top-level folder. A folder without a row, a
row without a folder, and every missing or extra edge fail the test, named.

Usage: python3 architecture_map_test.py SOURCE_DIR (the repository root)
"""
import os
import re
import sys
import tempfile
import unittest
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*"ptxbench/([a-z_0-9]+)/', re.MULTILINE)
ROW = re.compile(r"^\|\s*`([a-z_0-9]+)/`\s*\|(.*)\|(.*)\|\s*$")
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc"}


def include_graph(ptxbench_dir: Path):
    """{folder: {dependency: first file that includes it}} from the source tree."""
    graph = {}
    for folder in sorted(p for p in ptxbench_dir.iterdir() if p.is_dir()):
        edges = graph.setdefault(folder.name, {})
        for path in sorted(folder.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            for dependency in INCLUDE.findall(path.read_text(errors="replace")):
                if dependency != folder.name:
                    edges.setdefault(dependency, path.relative_to(ptxbench_dir).as_posix())
    return graph


def documented_graph(doc_text: str):
    """{folder: set of dependencies} from the table's rows `| `folder/` | concept | depends |`."""
    graph = {}
    for line in doc_text.splitlines():
        match = ROW.match(line)
        if match:
            folder, depends = match.group(1), match.group(3)
            graph[folder] = set(re.findall(r"`([a-z_0-9]+)`", depends))
    return graph


def differences(actual, documented):
    """Each problem as one line; empty when the doc matches the code."""
    problems = []
    for folder in sorted(actual.keys() - documented.keys()):
        problems.append(f"`{folder}/`: no row in the table (it depends on "
                        f"{', '.join(sorted(actual[folder])) or 'nothing'})")
    for folder in sorted(documented.keys() - actual.keys()):
        problems.append(f"`{folder}/`: a row, but src/ptxbench/{folder}/ does not exist")
    for folder in sorted(actual.keys() & documented.keys()):
        edges, listed = actual[folder], documented[folder]
        for dependency in sorted(edges.keys() - listed):
            problems.append(f"`{folder}/`: missing `{dependency}` "
                            f"({edges[dependency]} includes ptxbench/{dependency}/)")
        for dependency in sorted(listed - edges.keys()):
            problems.append(f"`{folder}/`: extra `{dependency}` (no file of {folder}/ includes "
                            f"ptxbench/{dependency}/)")
    return problems


class ArchitectureMap(unittest.TestCase):
    source_dir = Path(".")

    def test_the_table_matches_the_include_graph(self):
        doc = self.source_dir / "docs" / "ARCHITECTURE.md"
        documented = documented_graph(doc.read_text())
        self.assertTrue(documented, f"{doc}: no `folder/` row found")
        problems = differences(include_graph(self.source_dir / "src" / "ptxbench"), documented)
        self.assertEqual(problems, [], f"{doc} and the includes differ:\n  " +
                         "\n  ".join(problems))

    # The check itself, on a tree made here: each kind of difference is found and named.
    def test_names_missing_and_extra_edges_and_rows(self):
        with tempfile.TemporaryDirectory() as work:
            root = Path(work)
            for name, text in {
                "util/fs.hpp": "#pragma once\n",
                "eval/engine.hpp": '#include "ptxbench/util/fs.hpp"\n',
                "eval/timing/gpu/mode.cu": '#include "ptxbench/eval/engine.hpp"\n'
                                           '  #  include "ptxbench/arch/arch.hpp"\n',
                "arch/arch.hpp": '#include "ptxbench/config.hpp"\n',
            }.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            doc = ("| folder | concept | depends on |\n|---|---|---|\n"
                   "| `util/` | files | nothing of ptxbench |\n"
                   "| `eval/` | the engine (`engine.hpp`) | `util`, `task` (its tasks) |\n"
                   "| `gone/` | old | `util` |\n")
            problems = differences(include_graph(root), documented_graph(doc))
            self.assertEqual(problems, [
                "`arch/`: no row in the table (it depends on nothing)",
                "`gone/`: a row, but src/ptxbench/gone/ does not exist",
                "`eval/`: missing `arch` (eval/timing/gpu/mode.cu includes ptxbench/arch/)",
                "`eval/`: extra `task` (no file of eval/ includes ptxbench/task/)",
            ])


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: architecture_map_test.py SOURCE_DIR")
    ArchitectureMap.source_dir = Path(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v"])
