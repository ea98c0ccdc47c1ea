"""The Python client against a running `ptxbench serve --no-gpu` (PTXBENCH_EXE): tasks,
prompts, an evaluation streamed to its record, an RL episode, the example loop, and errors."""

import os
import pathlib
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from ptxbench_client import Client, ServiceError
from ptxbench_client import client as client_module

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "python" / "ptxbench_client" / "examples" / "rl_loop.py"
TOKEN = "python-client-token-0123456789"
NARROW_TOKEN = "python-narrow-token-0123456789"  # one evaluation in flight at most
TASK = "gemm_n7168_k5120"


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        root = pathlib.Path(cls.dir.name)
        (root / "tokens").write_text(f"python {TOKEN} 4\nnarrow {NARROW_TOKEN} 1\n")
        port_file = root / "port"
        cls.serve = subprocess.Popen(
            [os.environ["PTXBENCH_EXE"], "serve", "--no-gpu", "--sandbox", "best-effort",
             "--port", "0",
             "--port-file", str(port_file), "--journal", str(root / "journal"),
             "--tokens", str(root / "tokens")])
        for _ in range(600):
            if port_file.exists() and port_file.read_text().strip():
                break
            time.sleep(0.1)
        cls.url = f"http://127.0.0.1:{port_file.read_text().strip()}"
        cls.client = Client(cls.url, TOKEN)

    @classmethod
    def tearDownClass(cls):
        cls.serve.terminate()
        assert cls.serve.wait(timeout=120) == 0
        cls.dir.cleanup()

    def test_tasks_and_prompts(self):
        names = [t["name"] for t in self.client.tasks()]
        self.assertIn(TASK, names)
        self.assertEqual(self.client.task(TASK)["definition"]["name"], TASK)
        messages = self.client.prompt(TASK, "hopper", "isa")
        self.assertEqual([m["role"] for m in messages], ["system", "user"])

    def test_an_evaluation_streams_to_its_record(self):
        record = self.client.evaluate(TASK, "hopper", reply="no code here")
        self.assertEqual(record["verdict"], "NO_CODE")
        self.assertEqual(record["task"], TASK)

    def test_an_rl_episode(self):
        episode = self.client.reset("hopper", task=TASK, seed=1, max_turns=2)
        self.assertEqual(episode.task, TASK)
        first = self.client.step(episode, "thinking")
        self.assertEqual(first.record["verdict"], "NO_CODE")
        self.assertEqual(first.reward, 0.0)
        self.assertFalse(first.done)
        second = self.client.step(episode, "still thinking")
        self.assertTrue(second.done)
        self.assertEqual(len(episode.messages), 6)

    def test_the_example_loop_runs(self):
        out = subprocess.run(
            [sys.executable, str(EXAMPLE), "--url", self.url, "--token", TOKEN,
             "--task", TASK, "--max-turns", "2", "--replies", str(HERE / "data" / "replay")],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("turn 1: NO_CODE reward 0.0", out.stdout)

    def test_errors_carry_status_and_reason(self):
        with self.assertRaises(ServiceError) as caught:
            Client(self.url, "wrong-token-0123456789").tasks()
        self.assertEqual(caught.exception.status, 401)
        with self.assertRaises(ServiceError) as caught:
            self.client.submit("gemm_nope", "hopper", code="x")
        self.assertEqual(caught.exception.status, 400)
        self.assertIn("gemm_nope", caught.exception.message)
        self.assertIsNone(caught.exception.retry_after)

    def test_a_refusal_says_when_to_retry(self):
        narrow = Client(self.url, NARROW_TOKEN)
        # The prompt's ABI example compiles for seconds, keeping the client's one slot.
        system = narrow.prompt(TASK, "hopper")[0]["content"]
        example = system.split("```cuda\n", 1)[1].split("\n```", 1)[0]
        first = narrow.submit(TASK, "hopper", code=example)
        with self.assertRaises(ServiceError) as caught:
            narrow.submit(TASK, "hopper", reply="no code here")
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(caught.exception.retry_after, 5)
        narrow.wait(first)

    def test_a_refused_step_waits_for_its_turn(self):
        """The narrow token's one slot is busy: a step is refused (429) with refusal_wait_s=0,
        and answered once the slot frees with the default."""
        system = self.client.prompt(TASK, "hopper")[0]["content"]
        example = system.split("```cuda\n", 1)[1].split("\n```", 1)[0]
        impatient = Client(self.url, NARROW_TOKEN, refusal_wait_s=0)
        episode = impatient.reset("hopper", task=TASK, max_turns=4)
        busy = impatient.submit(TASK, "hopper", code=example)
        with self.assertRaises(ServiceError) as caught:
            impatient.step(episode, "no code here")
        self.assertEqual(caught.exception.status, 429)
        impatient.wait(busy)
        busy = impatient.submit(TASK, "hopper", code=example + "\n// again\n")
        patient = Client(self.url, NARROW_TOKEN)
        waits = []
        real_sleep = client_module.time.sleep
        with mock.patch.object(client_module.time, "sleep",
                               side_effect=lambda s: (waits.append(s), real_sleep(s))):
            result = patient.step(episode, "no code here")
        self.assertEqual(result.record["verdict"], "NO_CODE")
        self.assertGreaterEqual(len(waits), 1)  # refused first, then retried after Retry-After
        self.assertEqual(waits[0], 5)
        patient.wait(busy)


if __name__ == "__main__":
    unittest.main()
