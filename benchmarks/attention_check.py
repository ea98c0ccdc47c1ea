"""A quick development check of one attention candidate on the GPU, outside the judge: the
candidate's shared object (built with ptxbench's own nvcc flags, docs/running.md) is loaded with
TVM-FFI from Python and called with PyTorch tensors.

Correctness: outputs NaN-poisoned before the call, compared with an fp32 reference per head
(every head up to S=1024, six spread-out heads above) under |x-y| <= 0.01 + 0.01|y|, with
cuDNN's own error on the same inputs printed beside (the element rule does not count cuDNN's
mismatches: where the errors match cuDNN's, a mismatch is rounding, not a bug). S=1024 uses a
spiky Q. Timing: median of CUDA-event samples, L2 flushed before each, against
scaled_dot_product_attention on the cuDNN backend (backward: torch.autograd.grad).

This is a kernel author's feedback loop, not a verdict: `ptxbench eval` judges
(sanitizer, the high-precision reference, the executed-instruction proof, its own timing).

Usage: attention_check.py CANDIDATE.so TASK.json [S,S,...|-] [--time S|0]"""
import json, math, sys, time
import torch
import tvm_ffi

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
from torch.nn.attention import sdpa_kernel, SDPBackend

so, task_path = sys.argv[1], sys.argv[2]
sizes = [512, 1024, 4096]
time_s = 4096
args = sys.argv[3:]
if args and not args[0].startswith("--"):
    sizes = [] if args[0] == "-" else [int(x) for x in args[0].split(",")]
    args = args[1:]
if "--time" in args:
    time_s = int(args[args.index("--time") + 1])
task = json.load(open(task_path))
B = task["axes"]["B"]["value"]; H = task["axes"]["H"]["value"]; D = task["axes"]["D"]["value"]
causal = bool(task["parameters"].get("causal", 0)); scale = task["parameters"]["scale"]
backward = task["op_type"] == "mha_bwd"
mod = tvm_ffi.load_module(so)
run = mod["run"]
dev = "cuda"
flush = torch.empty(512 << 20, dtype=torch.uint8, device=dev)


def checked_heads(S):
    # fp32 reference math costs S^2: every head up to S=1024, 6 spread-out (b, h) pairs above.
    pairs = [(b, h) for b in range(B) for h in range(H)]
    if S <= 1024: return pairs
    idx = [0, 1, len(pairs) // 3, len(pairs) // 2, (2 * len(pairs)) // 3, len(pairs) - 1]
    return [pairs[i] for i in idx]


def reference_fwd(q, k, v):
    o = torch.full_like(q, float("nan"), dtype=torch.float32); lse = torch.full(q.shape[:3], float("nan"), device=dev)
    S = q.shape[2]
    mask = torch.ones(S, S, device=dev, dtype=torch.bool).tril() if causal else None
    for b, h in checked_heads(S):
            s = (q[b, h].float() @ k[b, h].float().T) * scale
            if mask is not None: s.masked_fill_(~mask, -math.inf)
            l = torch.logsumexp(s, -1)
            p = torch.exp(s - l[:, None])
            o[b, h] = p @ v[b, h].float(); lse[b, h] = l
    return o, lse


def reference_bwd(q, k, v, o, do, lse):
    dq = torch.full_like(q, float("nan"), dtype=torch.float32); dk = torch.full_like(dq, float("nan")); dv = torch.full_like(dq, float("nan"))
    S = q.shape[2]
    mask = torch.ones(S, S, device=dev, dtype=torch.bool).tril() if causal else None
    for b, h in checked_heads(S):
            qf, kf, vf, dof = q[b, h].float(), k[b, h].float(), v[b, h].float(), do[b, h].float()
            s = (qf @ kf.T) * scale
            if mask is not None: s.masked_fill_(~mask, -math.inf)
            p = torch.exp(s - lse[b, h][:, None])
            dv[b, h] = p.mT @ dof
            dp = dof @ vf.T
            delta = (dof * o[b, h].float()).sum(-1)
            ds = p * (dp - delta[:, None])
            dq[b, h] = scale * ds @ kf; dk[b, h] = scale * ds.mT @ qf
    return dq, dk, dv


def cudnn_fwd(q, k, v):
    r = torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 0.0, causal, False, scale=scale)
    return r[0], r[1].reshape(q.shape[0], q.shape[1], q.shape[2]).contiguous()  # cuDNN's is [B,H,S,1]


def cudnn_bwd_fn(q, k, v, do):
    qg, kg, vg = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        out = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)
    return lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)


def compare(name, got, ref, lib=None):
    S = got.shape[2]
    sel = checked_heads(S)
    pick = lambda t: torch.stack([t[b, h] for b, h in sel])
    got, ref = pick(got), pick(ref)
    if lib is not None: lib = pick(lib)
    err = (got.float() - ref).abs()
    tol = 0.01 + 0.01 * ref.abs()
    bad = (err > tol) | ~torch.isfinite(got.float())
    line = f"    {name} ({len(sel)} heads): max_abs {err.max().item():.4g} mean_abs {err.mean().item():.3g} mismatched {int(bad.sum())}/{bad.numel()}"
    if lib is not None:
        lerr = (lib.float() - ref).abs()
        line += f" | cudnn max_abs {lerr.max().item():.4g} mean_abs {lerr.mean().item():.3g}"
    print(line)
    return int(bad.sum()) == 0


def median_ms(fn, reps=15):
    fn(); torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        flush.zero_()
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def inputs(S, seed, spiky=False):
    g = torch.Generator(device=dev).manual_seed(seed)
    shape = (B, H, S, D)
    t = [torch.randn(shape, generator=g, device=dev).to(torch.bfloat16) for _ in range(3)]
    if spiky:
        t[0] = (t[0].float() * (1 + 7 * (torch.rand(shape, generator=g, device=dev) < 0.01))).to(torch.bfloat16)
    return t


ok_all = True
for S in sizes:
    q, k, v = inputs(S, 1000 + S, spiky=(S == 1024))
    t0 = time.time()
    if not backward:
        o = torch.full_like(q, float("nan")); lse = torch.full((B, H, S), float("nan"), device=dev)
        run(q, k, v, o, lse); torch.cuda.synchronize()
        ro, rl = reference_fwd(q, k, v); lo, ll = cudnn_fwd(q, k, v)
        print(f"  S={S}{' spiky' if S == 1024 else ''}:")
        ok = compare("O", o, ro, lo) & compare("LSE", lse, rl, ll)
    else:
        lo, ll = cudnn_fwd(q, k, v)
        do = torch.randn_like(q)
        dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(3))
        run(q, k, v, lo, do, ll.contiguous(), dq, dk, dv); torch.cuda.synchronize()
        rq, rk, rv = reference_bwd(q, k, v, lo, do, ll)
        cq, ck, cv = cudnn_bwd_fn(q, k, v, do)()
        print(f"  S={S}:")
        ok = compare("dQ", dq, rq, cq) & compare("dK", dk, rk, ck) & compare("dV", dv, rv, cv)
    ok_all &= ok
    print(f"    -> {'ok' if ok else 'WRONG'} ({time.time() - t0:.1f} s)")
    del q, k, v
    torch.cuda.empty_cache()

if time_s:
    q, k, v = inputs(time_s, 7)
    flops = 4 * B * H * time_s * time_s * D * (0.5 if causal else 1.0) * (2.5 if backward else 1.0)
    if not backward:
        o = torch.empty_like(q); lse = torch.empty((B, H, time_s), device=dev)
        mine = median_ms(lambda: run(q, k, v, o, lse))
        lib = median_ms(lambda: cudnn_fwd(q, k, v))
    else:
        lo, ll = cudnn_fwd(q, k, v); ll = ll.contiguous(); do = torch.randn_like(q)
        dq, dk, dv = (torch.empty_like(q) for _ in range(3))
        mine = median_ms(lambda: run(q, k, v, lo, do, ll, dq, dk, dv))
        lib = median_ms(cudnn_bwd_fn(q, k, v, do))
    print(f"  timing S={time_s}: candidate {mine:.3f} ms ({flops / mine / 1e9:.0f} TF/s), cuDNN {lib:.3f} ms "
          f"({flops / lib / 1e9:.0f} TF/s), speedup {lib / mine:.3f}x")
print("RESULT", "ok" if ok_all else "WRONG")
