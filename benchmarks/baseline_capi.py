"""ctypes bindings of libptxbench_baselines_capi.so (benchmarks/baseline_capi.cpp): ptxbench's
baselines created for one shape, run on caller-owned CUDA tensors (anything with data_ptr(),
is_cuda and is_contiguous(), e.g. PyTorch's) on a caller-given stream. Errors come back from the
library as a status and a message and are raised here as CapiError."""
import ctypes
import json
import os


class CapiError(RuntimeError):
    pass


class BaselineLibrary:
    """The C ABI of baseline_capi.cpp, with argument and result types declared."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        lib = ctypes.CDLL(self.path)
        vp, i64, cint, size = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_size_t
        text, handle_out = ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)
        pointers = ctypes.POINTER(ctypes.c_void_p)
        signatures = {
            "ptxb_baseline_create_gemm": ([i64, i64, i64, vp, handle_out, text, size], cint),
            "ptxb_baseline_create_attention":
                ([cint, i64, i64, i64, i64, cint, vp, handle_out, text, size], cint),
            "ptxb_baseline_arity": ([vp, ctypes.POINTER(cint), ctypes.POINTER(cint)], cint),
            "ptxb_baseline_run": ([vp, pointers, cint, pointers, cint, vp, text, size], cint),
            "ptxb_baseline_derive_inputs": ([vp, pointers, cint, vp, text, size], cint),
            "ptxb_baseline_describe": ([vp, text, size], size),
            "ptxb_baseline_destroy": ([vp], None),
            "ptxb_library_versions": ([text, size], size),
        }
        for name, (argtypes, restype) in signatures.items():
            function = getattr(lib, name)
            function.argtypes = argtypes
            function.restype = restype
        self.lib = lib

    def versions(self):
        buffer = ctypes.create_string_buffer(4096)
        self.lib.ptxb_library_versions(buffer, len(buffer))
        return json.loads(buffer.value.decode())

    def gemm(self, m, n, k, stream):
        return Baseline(self, "create_gemm", (m, n, k), stream)

    def attention(self, backward, batch, heads, seq_len, head_dim, causal, stream):
        return Baseline(self, "create_attention",
                        (int(backward), batch, heads, seq_len, head_dim, int(causal)), stream)


def pointer_array(tensors):
    for t in tensors:
        if not t.is_cuda or not t.is_contiguous():
            raise ValueError("baseline operands must be contiguous CUDA tensors")
    return (ctypes.c_void_p * len(tensors))(*[t.data_ptr() for t in tensors])


class Baseline:
    """One ptxbench baseline for one shape; operands are bound once (bind), then run() queues a
    call on the stream given at creation."""

    def __init__(self, library, create, dims, stream):
        self.lib = library.lib
        self.stream = ctypes.c_void_p(stream)
        self.message = ctypes.create_string_buffer(4096)
        self.handle = ctypes.c_void_p()
        status = getattr(self.lib, "ptxb_baseline_" + create)(
            *dims, self.stream, ctypes.byref(self.handle), self.message, len(self.message))
        self._raise_if(status)
        if not self.handle.value:
            raise CapiError("the baseline library returned no handle")
        inputs, outputs = ctypes.c_int(), ctypes.c_int()
        self._raise_if(self.lib.ptxb_baseline_arity(self.handle, ctypes.byref(inputs),
                                                    ctypes.byref(outputs)))
        self.arity = (inputs.value, outputs.value)
        self.inputs = self.outputs = None
        self._keep = ()

    def _raise_if(self, status):
        if status != 0:
            raise CapiError(self.message.value.decode(errors="replace") or f"status {status}")

    def describe(self):
        buffer = ctypes.create_string_buffer(1024)
        needed = self.lib.ptxb_baseline_describe(self.handle, buffer, len(buffer))
        if needed >= len(buffer):
            buffer = ctypes.create_string_buffer(needed + 1)
            self.lib.ptxb_baseline_describe(self.handle, buffer, len(buffer))
        return buffer.value.decode(errors="replace")

    def bind(self, inputs, outputs):
        if (len(inputs), len(outputs)) != self.arity:
            raise ValueError(f"the baseline takes {self.arity} operands, got "
                             f"{(len(inputs), len(outputs))}")
        self._keep = (list(inputs), list(outputs))  # the pointers stay valid while bound
        self.inputs, self.outputs = pointer_array(inputs), pointer_array(outputs)

    def derive_inputs(self):
        self._raise_if(self.lib.ptxb_baseline_derive_inputs(
            self.handle, self.inputs, self.arity[0], self.stream, self.message,
            len(self.message)))

    def run(self):
        self._raise_if(self.lib.ptxb_baseline_run(
            self.handle, self.inputs, self.arity[0], self.outputs, self.arity[1], self.stream,
            self.message, len(self.message)))

    def close(self):
        if self.handle.value:
            self.lib.ptxb_baseline_destroy(self.handle)
            self.handle = ctypes.c_void_p()
        self._keep = ()
        self.inputs = self.outputs = None
