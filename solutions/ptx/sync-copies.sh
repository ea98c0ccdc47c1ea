#!/usr/bin/env bash
# Rewrites every embedded wrapper block (`// ptx-begin: <family>` .. `// ptx-end: <family>`) in the
# given solution files with the block of solutions/ptx/<family>.cuh, the single source of truth.
# tests/solutions checks the copies; this script is how they are refreshed.
set -euo pipefail
ptx_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for solution in "$@"; do
  awk -v ptx_dir="$ptx_dir" '
    function emit_block(family,   path, line, inside, found) {
      path = ptx_dir "/" family ".cuh"
      inside = 0; found = 0
      while ((getline line < path) > 0) {
        if (line == "// ptx-begin: " family) { inside = 1; found = 1 }
        if (inside) print line
        if (line == "// ptx-end: " family) inside = 0
      }
      close(path)
      if (!found) { print "no block " family " in " path > "/dev/stderr"; exit 1 }
    }
    /^\/\/ ptx-begin: / { family = substr($0, 15); emit_block(family); skipping = 1; next }
    skipping && $0 == "// ptx-end: " family { skipping = 0; next }
    !skipping { print }
  ' "$solution" > "$solution.tmp"
  mv "$solution.tmp" "$solution"
done
