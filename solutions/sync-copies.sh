#!/usr/bin/env bash
# Solutions are single files, so they embed shared code between `// ptx-begin: <name>` and
# `// ptx-end: <name>`. The single source of truth of a block is solutions/ptx/<name>.cuh (a PTX
# wrapper family) or solutions/kernels/<name>.cuh (a kernel body several solutions share, e.g.
# the attention forward and backward, instantiated by each file's run()). This rewrites every
# embedded block in the given files from its source; tests/solutions fails on a drifted copy.
#   solutions/sync-copies.sh solutions/*/*.cu
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for solution in "$@"; do
  awk -v dir="$dir" '
    function source_of(name,   path) {
      path = dir "/ptx/" name ".cuh"
      if ((getline line < path) > 0) { close(path); return path }
      path = dir "/kernels/" name ".cuh"
      if ((getline line < path) > 0) { close(path); return path }
      print "no source file for block " name " in solutions/ptx or solutions/kernels" > "/dev/stderr"
      exit 1
    }
    function emit_block(name,   path, line, inside, found) {
      path = source_of(name)
      inside = 0; found = 0
      while ((getline line < path) > 0) {
        if (line == "// ptx-begin: " name) { inside = 1; found = 1 }
        if (inside) print line
        if (line == "// ptx-end: " name) inside = 0
      }
      close(path)
      if (!found) { print "no block " name " in " path > "/dev/stderr"; exit 1 }
    }
    /^\/\/ ptx-begin: / { name = substr($0, 15); emit_block(name); skipping = 1; next }
    skipping && $0 == "// ptx-end: " name { skipping = 0; next }
    !skipping { print }
  ' "$solution" > "$solution.tmp"
  mv "$solution.tmp" "$solution"
done
