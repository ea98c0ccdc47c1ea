"""Times PyTorch on the shapes of ptxbench-bench-baselines, the same way: random inputs, L2
flushed before every call, CUDA events around it, median of 50 after 5 warm-ups. GEMM is
A @ B.T in bf16; attention is scaled_dot_product_attention restricted to the cuDNN backend
(forward with autograd on, so that it also computes the log-sum-exp as ours does, and
backward alone through torch.autograd.grad). One JSON object per line."""
import json
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

WARMUP, REPETITIONS = 5, 50
device = torch.device("cuda")
l2_bytes = torch.cuda.get_device_properties(device).L2_cache_size
flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=device)


def median_ms(call):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(WARMUP + REPETITIONS):
        flush_buffer.fill_(i & 0xFF)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        if i >= WARMUP:
            times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2], times[0]


def gemm(m, n, k):
    a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, k, device=device, dtype=torch.bfloat16)
    ms, best = median_ms(lambda: torch.matmul(a, b.t()))
    return {"op": "cublaslt.gemm_bf16_nt", "shape": f"M{m} N{n} K{k}", "median_ms": ms,
            "min_ms": best, "tflops": 2 * m * n * k / (ms * 1e-3) / 1e12}


def attention(backward, b, h, s, d, causal):
    q, k, v = (torch.randn(b, h, s, d, device=device, dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        if backward:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            grad = torch.randn_like(out)
            ms, best = median_ms(
                lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True))
            flops *= 2.5
        else:
            # With autograd on, the cuDNN forward also writes the log-sum-exp, as ours must.
            ms, best = median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal))
    return {"op": "cudnn.sdpa_bwd" if backward else "cudnn.sdpa_fwd",
            "shape": f"B{b} H{h} S{s} D{d}" + (" causal" if causal else ""),
            "median_ms": ms, "min_ms": best, "tflops": flops / (ms * 1e-3) / 1e12}


def main():
    print(json.dumps({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                      "gpu": torch.cuda.get_device_name(device)}))
    rows = [gemm(8192, 8192, 8192), gemm(4096, 7168, 5120), gemm(8192, 2048, 7168),
            gemm(8192, 7168, 5120)]
    for heads in (48,):
        for causal in (False, True):
            for backward in (False, True):
                rows.append(attention(backward, 4, heads, 4096, 128, causal))
    for row in rows:
        print(json.dumps(row))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
