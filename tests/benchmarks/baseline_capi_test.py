"""The C ABI of libptxbench_baselines_capi.so through benchmarks/baseline_capi.py, the bindings
interleaved_baselines.py uses: errors come back as a status and a message (never an exception
across the boundary), and the library reports the versions it resolved. Needs no GPU: every
call here fails or returns before touching one. PTXBENCH_BASELINES_CAPI names the library."""
import ctypes
import json
import os
import unittest

import baseline_capi as ib


class BaselineCapiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = ib.BaselineLibrary(os.environ["PTXBENCH_BASELINES_CAPI"])

    def test_versions_name_the_libraries_and_the_cache(self):
        versions = self.library.versions()
        for key in ("cublaslt", "cudnn", "cuda_runtime", "cudnn_frontend"):
            self.assertGreater(versions[key], 0, key)
        self.assertTrue(versions["baseline_cache_dir"].endswith("baselines"))

    def test_an_impossible_shape_is_an_error_value(self):
        with self.assertRaisesRegex(ib.CapiError, "do not agree"):
            self.library.gemm(0, 64, 64, 0)

    def test_a_bad_attention_shape_is_an_error_value(self):
        with self.assertRaisesRegex(ib.CapiError, "cudnn.sdpa_fwd"):
            self.library.attention(False, 1, 2, 64, 7, False, 0)

    def test_null_handles_are_refused_with_a_message(self):
        lib, message = self.library.lib, ctypes.create_string_buffer(256)
        status = lib.ptxb_baseline_run(None, None, 0, None, 0, None, message, len(message))
        self.assertEqual(status, 1)
        self.assertIn(b"null baseline", message.value)
        status = lib.ptxb_baseline_create_gemm(8, 8, 8, None, None, message, len(message))
        self.assertEqual(status, 1)
        self.assertIn(b"null output handle", message.value)
        inputs, outputs = ctypes.c_int(), ctypes.c_int()
        self.assertEqual(lib.ptxb_baseline_arity(None, ctypes.byref(inputs),
                                                 ctypes.byref(outputs)), 1)

    def test_messages_are_truncated_to_the_buffer(self):
        lib, message = self.library.lib, ctypes.create_string_buffer(5)
        status = lib.ptxb_baseline_run(None, None, 0, None, 0, None, message, len(message))
        self.assertEqual(status, 1)
        self.assertEqual(message.value, b"null")
        self.assertEqual(lib.ptxb_library_versions(None, 0),
                         len(json.dumps(self.library.versions(), separators=(",", ":"))))


if __name__ == "__main__":
    unittest.main()
