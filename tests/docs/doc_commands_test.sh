#!/usr/bin/env bash
# Runs every command block of README.md and docs/*.md marked `<!-- ci: run -->` (the line before
# the fenced block), in a scratch folder that links the source tree and the build, so the
# documented commands cannot drift from the program. Every shell block (```sh, ```bash,
# ```shell, ```console) carries a mark: `<!-- ci: run -->`, or `<!-- ci: skip: WHY -->` for one a
# CPU machine cannot run (a GPU, a server, a cluster, a placeholder); an unmarked block fails the
# test, and the skipped ones are listed with their reasons. A fence is a line of three backticks
# and an info string without backticks (CommonMark), so "```` ```cuda ```` block" is text. A run block fails the test on any
# non-zero exit; finding no marked block at all fails it too (a check that did not run is no
# pass).
# Usage: doc_commands_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Only what the repository tracks (when it is a git checkout): a runs/ or reports/ folder a user
# made in the source tree is not linked, so the blocks never write into it.
if names=$(git -C "$src" ls-files 2>/dev/null | cut -d/ -f1 | sort -u) && [ -n "$names" ]; then
  :
else
  names=$(ls "$src")
fi
for name in $names; do
  [ "$name" = build ] || [ ! -e "$src/$name" ] || ln -s "$src/$name" "$work/$name"
done
ln -s "$build" "$work/build"
export PATH="$build/src:$PATH"  # docs write `ptxbench ...` for the installed command
mkdir -p "$work/.blocks"

# One script per block marked to run, named by file and line; skipped and unmarked shell blocks
# are listed in .skipped and .unmarked.
count=0
for doc in "$src/README.md" "$src"/docs/*.md; do
  count=$(awk -v out="$work/.blocks" -v doc="${doc#"$src"/}" -v start="$count" '
    /<!-- ci: run -->/ { armed = "run"; next }
    /<!-- ci: skip: .*-->/ { armed = "skip"; why = $0; sub(/.*<!-- ci: skip: */, "", why);
      sub(/ *-->.*/, "", why); next }
    /^```[^`]*$/ && !inside {
      inside = 1; shell = $0 ~ /^```(sh|bash|shell|console)[ \t]*$/
      if (armed == "run") { n = start + (++k); file = sprintf("%s/%03d.sh", out, n);
        printf "# %s:%d\n", doc, NR > file }
      else if (shell && armed == "skip") printf "%s:%d: %s\n", doc, NR, why >> (out "/.skipped")
      else if (shell) printf "%s:%d\n", doc, NR >> (out "/.unmarked")
      running = armed == "run"; armed = ""; next }
    inside && /^```[ \t]*$/ { inside = 0; if (running) close(file); running = 0; next }
    inside { if (running) print > file; next }
    armed && NF { armed = "" }
    END { print start + k }' "$doc")
done
if [ "$count" -eq 0 ]; then
  echo "doc_commands_test: no block marked <!-- ci: run --> was found" >&2
  exit 1
fi
if [ -s "$work/.blocks/.unmarked" ]; then
  echo "doc_commands_test: shell blocks without <!-- ci: run --> or <!-- ci: skip: WHY -->:" >&2
  cat "$work/.blocks/.unmarked" >&2
  exit 1
fi

failed=0
for block in "$work"/.blocks/*.sh; do
  where=$(head -1 "$block" | cut -c3-)
  echo "=== $where"
  sed 1d "$block"
  if ! (cd "$work" && timeout 600 bash -euo pipefail "$block" > "$block.log" 2>&1); then
    echo "--- FAILED: $where" >&2
    tail -40 "$block.log" >&2
    failed=$((failed + 1))
  fi
done
skipped=0
if [ -s "$work/.blocks/.skipped" ]; then
  skipped=$(wc -l < "$work/.blocks/.skipped")
  echo "=== not run here:"
  cat "$work/.blocks/.skipped"
fi
echo "doc_commands_test: $count block(s) run, $failed failed; $skipped not run here (reasons above)"
[ "$failed" -eq 0 ]
