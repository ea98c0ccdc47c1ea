#!/usr/bin/env bash
# Runs every command block of README.md and docs/*.md marked `<!-- ci: run -->` (the line before
# the fenced block), in a scratch folder that links the source tree and the build, so the
# documented commands cannot drift from the program. A block fails the test on any non-zero
# exit; finding no marked block at all fails it too (a check that did not run is no pass).
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

# One script per marked block, named by file and line.
count=0
for doc in "$src/README.md" "$src"/docs/*.md; do
  count=$(awk -v out="$work/.blocks" -v doc="${doc#"$src"/}" -v start="$count" '
    /<!-- ci: run -->/ { armed = 1; next }
    armed && /^```/ && !inside { inside = 1; n = start + (++k); file = sprintf("%s/%03d.sh", out, n);
      printf "# %s:%d\n", doc, NR > file; next }
    inside && /^```/ { inside = 0; armed = 0; close(file); next }
    inside { print > file; next }
    armed && NF { armed = 0 }
    END { print start + k }' "$doc")
done
if [ "$count" -eq 0 ]; then
  echo "doc_commands_test: no block marked <!-- ci: run --> was found" >&2
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
echo "doc_commands_test: $count block(s), $failed failed"
[ "$failed" -eq 0 ]
