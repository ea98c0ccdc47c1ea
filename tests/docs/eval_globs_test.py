"""Every `ptxbench eval` example in README.md and docs/*.md that passes files by a shell glob puts
them after `--`: a glob can expand to a file named like an option (`--out=x.md`, `-h.md`), which
before `--` would be taken as that option.

Usage: python3 eval_globs_test.py SOURCE_DIR (the repository root)
"""
import re
import shlex
import sys
import unittest
from pathlib import Path

GLOB = re.compile(r"[*?\[]")


def commands(text):
    """The `ptxbench eval` command lines of a text, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        at = line.find("ptxbench eval ")
        if at >= 0:
            yield line[at:].split("#")[0].strip().strip("`")


def unprotected_globs(command):
    """The unquoted glob words of a command that come before `--`."""
    try:
        # posix=False keeps the quotes, so a quoted glob ('gemm_*', a task pattern) is told apart.
        words = shlex.split(command, posix=False)
    except ValueError:
        words = command.split()
    found = []
    for word in words[2:]:
        if word == "--":
            break
        if GLOB.search(word) and word[0] not in "'\"":
            found.append(word)
    return found


def problems(root):
    out = []
    for page in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        for command in commands(page.read_text()):
            for word in unprotected_globs(command):
                out.append(f"{page.relative_to(root)}: `{command}`: {word} before `--`")
    return out


class Checks(unittest.TestCase):
    def test_a_glob_before_the_double_dash_is_found(self):
        self.assertEqual(unprotected_globs("ptxbench eval solutions/*.cu --task t --arch hopper"),
                         ["solutions/*.cu"])
        self.assertEqual(unprotected_globs("ptxbench eval --task 'gemm_*' -- solutions/*.cu"), [])
        self.assertEqual(unprotected_globs("ptxbench eval a.cu --task 'gemm_*' --arch hopper"), [])


class Repository(unittest.TestCase):
    root = Path(".")

    def test_eval_globs_come_after_the_double_dash(self):
        found = problems(self.root)
        self.assertFalse(found, "\n" + "\n".join(found))


if __name__ == "__main__":
    Repository.root = Path(sys.argv.pop(1)).resolve()
    unittest.main(verbosity=2)
