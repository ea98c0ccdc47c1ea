"""Times ptxbench's baselines against PyTorch call by call in one process, so both sides see the
same clocks: the GPU runs power-capped and its clock moves by hundreds of MHz under sustained
load, more than the gaps being measured when each side is timed in its own process.

ptxbench's side is libptxbench_baselines_capi.so (benchmarks/baseline_capi.cpp), loaded with
ctypes: the same make_baseline and the same on-disk algorithm choice as the timing stage of
`ptxbench eval`. PyTorch's side is `torch.matmul(a, b.t())` and scaled_dot_product_attention
restricted to the cuDNN backend (forward with autograd on, so that it also writes the
log-sum-exp as ours does; backward alone through torch.autograd.grad). Both run on the same
tensors and on the same stream.

Per shape: warm-up pairs, then up to --pairs pairs (or --limit-s seconds), each pair one call of
each side in alternating order, each call: L2 flushed (2x L2 bytes written), a GPU-side wait
(torch.cuda._sleep) so the host's launch time is not timed, CUDA events around the call.
Reported: each side's median and interquartile range, the median of the per-pair ratios
PyTorch/ptxbench with a seeded bootstrap 95% interval, TFLOP/s, and a check that our outputs
match PyTorch's. Also the library versions and the libcublasLt/libcudnn files mapped into the
process. JSON lines on stdout, then a Markdown table (also written to --markdown).

Usage: interleaved_baselines.py [--library PATH] [--pairs N] [--only SUBSTRING] ...
       (PATH defaults to $PTXBENCH_BASELINES_CAPI)."""
import argparse
import json
import math
import os
import sys
import time

from baseline_capi import BaselineLibrary
from pair_statistics import summarize_pairs, verdict

GOAL = 0.98
GEMMS = [(8192, 8192, 8192), (4096, 7168, 5120), (8192, 2048, 7168), (8192, 7168, 5120)]
ATTENTION = (4, 48, 4096, 128)  # batch, heads, sequence length, head dim
LIBRARY_PATTERNS = ("libcublas", "libcudnn", "libcudart", "libnvrtc", "ptxbench_baselines_capi")
# Outputs agree when max |ours - PyTorch| <= tolerance x max |PyTorch| (LSE: absolute).
TOLERANCE = {"C": 1e-2, "O": 2e-2, "LSE": 1e-2, "dQ": 5e-2, "dK": 5e-2, "dV": 5e-2}


def side_order(pair_index):
    """(first, second) side of a pair: PyTorch (0) first on even pairs, ptxbench (1) on odd."""
    return (0, 1) if pair_index % 2 == 0 else (1, 0)


def loaded_libraries():
    """The CUDA library files mapped into this process, and the library names mapped from more
    than one file (two copies would mean the sides did not use the same library)."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and any(p in os.path.basename(fields[5]) for p in LIBRARY_PATTERNS):
                paths.add(fields[5].strip())
    by_name = {}
    for path in paths:
        by_name.setdefault(os.path.basename(path).split(".so")[0], set()).add(
            os.path.realpath(path))
    duplicates = {name: sorted(files) for name, files in by_name.items() if len(files) > 1}
    return sorted(paths), duplicates


class Bench:
    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        self.device = torch.device("cuda")
        l2_bytes = torch.cuda.get_device_properties(self.device).L2_cache_size
        self.flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=self.device)
        self.sleep_cycles = int(args.sleep_us * 2000)  # cycles at about 2 GHz
        self.flushes = 0

    def flush(self):
        self.flushes += 1
        self.flush_buffer.fill_(self.flushes & 0xFF)

    def clock_mhz(self):
        try:
            return self.torch.cuda.clock_rate(self.device)
        except Exception:  # needs NVML bindings, which are optional
            return None

    def time_pairs(self, calls):
        """Per-call milliseconds of calls[0] (PyTorch) and calls[1] (ptxbench), interleaved."""
        torch, args = self.torch, self.args
        starts = [torch.cuda.Event(enable_timing=True) for _ in calls]
        stops = [torch.cuda.Event(enable_timing=True) for _ in calls]
        times = ([], [])
        began = time.monotonic()
        index = 0
        while len(times[0]) < args.pairs:
            if (index >= args.warmup and len(times[0]) >= args.min_pairs and
                    time.monotonic() - began > args.limit_s):
                break
            order = side_order(index)
            for side in order:
                self.flush()
                if self.sleep_cycles > 0:
                    torch.cuda._sleep(self.sleep_cycles)
                starts[side].record()
                calls[side]()
                stops[side].record()
            stops[order[-1]].synchronize()  # one stream: the earlier call is done too
            if index >= args.warmup:
                for side in (0, 1):
                    times[side].append(starts[side].elapsed_time(stops[side]))
            index += 1
        return times


def relative_difference(torch, ours, reference):
    """max |ours - reference| / max |reference|, NaN-aware (a NaN makes it infinite)."""
    ours, reference = ours.float(), reference.float()
    if not torch.isfinite(ours).all():
        return math.inf, math.inf
    diff = (ours - reference).abs().max().item()
    scale = reference.abs().max().item()
    return diff, diff / scale if scale > 0 else diff


def reference_lse(torch, q, k, causal):
    """Natural-log log-sum-exp of the scaled scores of batch 0, head 0, in fp32."""
    with torch.no_grad():
        scores = (q[0, 0].float() @ k[0, 0].float().t()) / math.sqrt(q.shape[-1])
        if causal:
            mask = torch.ones_like(scores, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, -math.inf)
        return torch.logsumexp(scores, dim=-1)


def compare(torch, named):
    """named: (name, ours, reference, absolute?) -> {name: {max_abs_diff, relative, ok}}."""
    report = {}
    for name, ours, reference, absolute in named:
        diff, relative = relative_difference(torch, ours, reference)
        bound = diff if absolute else relative
        report[name] = {"max_abs_diff": diff, "relative": relative,
                        "ok": math.isfinite(bound) and bound <= TOLERANCE[name]}
    return report


def gemm_case(bench, library, stream, m, n, k):
    torch = bench.torch
    a = torch.randn(m, k, device=bench.device, dtype=torch.bfloat16)
    b = torch.randn(n, k, device=bench.device, dtype=torch.bfloat16)
    c = torch.empty(m, n, device=bench.device, dtype=torch.bfloat16)
    ours = library.gemm(m, n, k, stream)
    ours.bind([a, b], [c])

    def check():
        c.fill_(math.nan)
        ours.run()
        return compare(torch, [("C", c, torch.matmul(a, b.t()), False)])

    return {"flops": 2.0 * m * n * k, "ours": ours, "torch": lambda: torch.matmul(a, b.t()),
            "check": check}


def attention_case(bench, library, stream, backward, causal):
    torch = bench.torch
    sdpa = torch.nn.functional.scaled_dot_product_attention
    batch, heads, seq_len, head_dim = ATTENTION
    q, k, v = (torch.randn(batch, heads, seq_len, head_dim, device=bench.device,
                           dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    lse = torch.empty(batch, heads, seq_len, device=bench.device, dtype=torch.float32)
    o = torch.empty_like(q, requires_grad=False)
    ours = library.attention(backward, batch, heads, seq_len, head_dim, causal, stream)
    flops = 4.0 * batch * heads * seq_len * seq_len * head_dim / (2 if causal else 1)
    operands = [q.detach(), k.detach(), v.detach()]
    if not backward:
        ours.bind(operands, [o, lse])

        def check():
            o.fill_(math.nan)
            lse.fill_(math.nan)
            ours.run()
            with torch.no_grad():
                reference = sdpa(q, k, v, is_causal=causal)
            return compare(torch, [("O", o, reference, False),
                                   ("LSE", lse[0, 0], reference_lse(torch, q, k, causal), True)])

        # With autograd on, the cuDNN forward also writes the log-sum-exp, as ours must.
        torch_call = lambda: sdpa(q, k, v, is_causal=causal)
    else:
        d_out = torch.randn_like(o)
        grads = [torch.empty_like(o) for _ in range(3)]
        ours.bind(operands + [o, d_out, lse], grads)
        o.fill_(math.nan)
        lse.fill_(math.nan)
        ours.derive_inputs()
        out = sdpa(q, k, v, is_causal=causal)
        flops *= 2.5

        def check():
            for g in grads:
                g.fill_(math.nan)
            ours.run()
            reference = torch.autograd.grad(out, (q, k, v), d_out, retain_graph=True)
            return compare(torch, [("O", o, out.detach(), False),
                                   ("LSE", lse[0, 0], reference_lse(torch, q, k, causal), True)] +
                           [(name, g, r, False)
                            for name, g, r in zip(("dQ", "dK", "dV"), grads, reference)])

        torch_call = lambda: torch.autograd.grad(out, (q, k, v), d_out, retain_graph=True)
    return {"flops": flops, "ours": ours, "torch": torch_call, "check": check}


def shape_cases(bench, library, stream):
    """(op, shape, make_case) for each compared shape, GEMMs first, then attention."""
    cases = [("cublaslt.gemm_bf16_nt", f"M{m} N{n} K{k}",
              lambda m=m, n=n, k=k: gemm_case(bench, library, stream, m, n, k))
             for m, n, k in GEMMS]
    batch, heads, seq_len, head_dim = ATTENTION
    for causal in (False, True):
        for backward in (False, True):
            cases.append((f"cudnn.sdpa_{'bwd' if backward else 'fwd'}",
                          f"B{batch} H{heads} S{seq_len} D{head_dim}" +
                          (" causal" if causal else ""),
                          lambda b=backward, c=causal: attention_case(
                              bench, library, stream, b, c)))
    return cases


def measure(bench, op, shape, make_case):
    torch, args = bench.torch, bench.args
    case = make_case()
    ours = case["ours"]
    try:
        row = {"op": op, "shape": shape, "baseline": ours.describe()}
        row["check"] = case["check"]()
        torch.cuda.synchronize()
        row["outputs_match"] = all(c["ok"] for c in row["check"].values())
        clock_before = bench.clock_mhz()
        torch_ms, ours_ms = bench.time_pairs((case["torch"], ours.run))
        summary = summarize_pairs(torch_ms, ours_ms, args.resamples, 0.95, args.seed)
        row.update({
            "pairs": summary["pairs"],
            "torch_ms": summary["numerator"], "ours_ms": summary["denominator"],
            "ratio_torch_over_ours": summary["ratio_median"],
            "ratio_ci95": [summary["ratio_low"], summary["ratio_high"]],
            "goal": GOAL, "verdict": verdict(summary, GOAL),
            "ours_tflops": case["flops"] / (summary["denominator"]["median_ms"] * 1e-3) / 1e12,
            "torch_tflops": case["flops"] / (summary["numerator"]["median_ms"] * 1e-3) / 1e12,
            "sm_clock_mhz": [clock_before, bench.clock_mhz()],
            "ratio_of_medians": summary["numerator"]["median_ms"] /
                                summary["denominator"]["median_ms"],
        })
        return row
    finally:
        ours.close()
        case.clear()  # drops the tensors the calls hold before the next shape allocates
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def markdown(rows):
    lines = ["| op | shape | pairs | ptxbench ms (IQR) | PyTorch ms (IQR) | ratio PyTorch/ptxbench "
             "[95% CI] | verdict (>= 0.98) | ptxbench / PyTorch TFLOP/s | outputs | baseline |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['op']} | {row['shape']} | - | error: {row['error']} "
                         "| - | - | - | - | - | - |")
            continue
        side = lambda s: f"{s['median_ms']:.4f} ({s['q1_ms']:.4f}-{s['q3_ms']:.4f})"
        worst = max(row["check"].items(), key=lambda item: item[1]["relative"])
        outputs = ("match" if row["outputs_match"] else "MISMATCH") + \
            f" (max abs diff {worst[0]} {worst[1]['max_abs_diff']:.3g})"
        low, high = row["ratio_ci95"]
        lines.append(
            f"| {row['op']} | {row['shape']} | {row['pairs']} | {side(row['ours_ms'])} | "
            f"{side(row['torch_ms'])} | {row['ratio_torch_over_ours']:.3f} [{low:.3f}, "
            f"{high:.3f}] | {row['verdict']} | {row['ours_tflops']:.0f} / "
            f"{row['torch_tflops']:.0f} | {outputs} | {row['baseline']} |")
    return "\n".join(lines) + "\n"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", default=os.environ.get("PTXBENCH_BASELINES_CAPI"),
                        help="libptxbench_baselines_capi.so (default: $PTXBENCH_BASELINES_CAPI)")
    parser.add_argument("--pairs", type=int, default=200, help="timed pairs per shape")
    parser.add_argument("--min-pairs", type=int, default=20,
                        help="pairs taken even past the time limit")
    parser.add_argument("--warmup", type=int, default=10, help="untimed pairs per shape first")
    parser.add_argument("--limit-s", type=float, default=30.0, help="time limit per shape")
    parser.add_argument("--sleep-us", type=float, default=200.0,
                        help="GPU-side wait before each timed call (0: none)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="input and bootstrap seed")
    parser.add_argument("--only", default="", help="shapes whose 'op shape' contains this")
    parser.add_argument("--markdown", help="also write the table here")
    args = parser.parse_args(argv)
    if not args.library:
        parser.error("give --library or set PTXBENCH_BASELINES_CAPI")
    if args.pairs < 1 or args.min_pairs < 1 or args.warmup < 0:
        parser.error("--pairs and --min-pairs must be >= 1, --warmup >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    import torch  # imported first: PyTorch's CUDA libraries are the ones both sides resolve
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.manual_seed(args.seed)
    torch.cuda.init()
    library = BaselineLibrary(args.library)
    bench = Bench(torch, args)
    stream = torch.cuda.Stream()
    info = {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "torch_cudnn": torch.backends.cudnn.version(),
            "gpu": torch.cuda.get_device_name(bench.device),
            "torch_blas": str(torch.backends.cuda.preferred_blas_library()),
            "torch_bf16_reduced_precision_reduction":
                torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
            "ptxbench": library.versions(), "library": library.path,
            "pairs": args.pairs, "warmup": args.warmup, "limit_s": args.limit_s,
            "sleep_us": args.sleep_us, "l2_flush_bytes": bench.flush_buffer.numel(),
            "seed": args.seed, "resamples": args.resamples}
    print(json.dumps({"setup": info}), flush=True)

    rows = []
    with torch.cuda.stream(stream), sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        for op, shape, make_case in shape_cases(bench, library, stream.cuda_stream):
            if args.only not in f"{op} {shape}":
                continue
            try:
                row = measure(bench, op, shape, make_case)
            except Exception as error:  # one shape failing must not hide the others
                row = {"op": op, "shape": shape, "error": f"{type(error).__name__}: {error}"}
            rows.append(row)
            print(json.dumps(row), flush=True)

    paths, duplicates = loaded_libraries()
    print(json.dumps({"loaded_libraries": paths, "one_copy_each": not duplicates,
                      "duplicates": duplicates}), flush=True)
    table = markdown(rows)
    measured = [r for r in rows if "error" not in r]
    if measured:
        worst = min(measured, key=lambda r: r["ratio_torch_over_ours"])
        table += (f"\nlowest median ratio: {worst['ratio_torch_over_ours']:.3f} "
                  f"({worst['op']} {worst['shape']}); verdicts: " +
                  ", ".join(f"{v} {sum(r['verdict'] == v for r in measured)}"
                            for v in ("met", "unsettled", "not met")) + "\n")
    print()
    print(table, end="")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    ok = rows and all("error" not in r and r["outputs_match"] for r in rows) and not duplicates
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
