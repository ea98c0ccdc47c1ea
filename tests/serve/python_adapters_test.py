"""The client's batch calls and the OpenEnv-style environment against a running `ptxbench serve
--no-gpu` (standard library only): results carry reward and parts, keys never re-evaluate, a
per-batch reward function applies, and an episode runs reset/step/close."""

import os
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from unittest import mock

from ptxbench_client import Client, ServiceError, candidate_key
from ptxbench_client import client as client_module
from ptxbench_client.openenv import KernelEnv
from ptxbench_client.scoring import completion_text, score_replies
from serve_fixture import TASK, Service

TIERED = {"kind": "tiered"}


class BatchClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.service = Service(max_in_flight=2)
        cls.client = Client(cls.service.url, cls.service.token)

    @classmethod
    def tearDownClass(cls):
        assert cls.service.close() == 0

    def test_a_batch_larger_than_the_clients_limit_is_sent_until_done(self):
        items = [{"key": candidate_key(TASK, "hopper", f"no code {i}"), "task": TASK,
                  "arch": "hopper", "reply": f"no code {i}"} for i in range(5)]
        results = self.client.evaluate_batch(items, reward=TIERED, timeout_s=120)
        self.assertEqual([r["key"] for r in results], [i["key"] for i in items])
        for result in results:
            self.assertEqual(result["parts"]["verdict"], "NO_CODE")
            self.assertEqual(result["reward"], -0.5)
        again = self.client.submit_batch(items[:2])
        self.assertTrue(all(r["reused"] for r in again["items"]))

    def test_scoring_keeps_order_and_judges_a_repeat_once(self):
        replies = ["a", "b", "a"]
        results = score_replies(self.client, [TASK] * 3, ["hopper"] * 3, replies)
        self.assertEqual(results[0]["evaluation_id"], results[2]["evaluation_id"])
        self.assertNotEqual(results[0]["evaluation_id"], results[1]["evaluation_id"])
        self.assertEqual([r["reward"] for r in results], [0.0, 0.0, 0.0])

    def test_steps_of_many_episodes_go_together(self):
        episodes = [self.client.reset("hopper", task=TASK, seed=i, max_turns=1) for i in range(2)]
        results = self.client.step_all([(e, f"no code {i}") for i, e in enumerate(episodes)])
        self.assertEqual([r.reward_parts["verdict"] for r in results], ["NO_CODE", "NO_CODE"])
        self.assertTrue(all(r.done for r in results))
        self.assertEqual(len(episodes[0].messages), 4)
        with self.assertRaises(ValueError):
            self.client.step_all([(episodes[0], "a"), (episodes[0], "b")])

    def test_completion_text_reads_every_trainer_shape(self):
        self.assertEqual(completion_text("x"), "x")
        self.assertEqual(completion_text([{"role": "assistant", "content": "y"}]), "y")
        self.assertEqual(completion_text([{"role": "user", "content": "u"},
                                          {"role": "assistant", "content": "z"}]), "z")
        with self.assertRaises(TypeError):
            completion_text(3)


class ServeFlagsTest(unittest.TestCase):
    def test_a_fixit_folder_that_cannot_be_read_stops_the_service(self):
        with tempfile.TemporaryDirectory() as root:
            tokens = os.path.join(root, "tokens")
            with open(tokens, "w") as f:
                f.write("trainer flag-test-token-0123456789 1\n")
            out = subprocess.run(
                [os.environ["PTXBENCH_EXE"], "serve", "--no-gpu", "--sandbox", "best-effort",
                 "--port", "0", "--tokens", tokens, "--journal", os.path.join(root, "journal"),
                 "--fixit", os.path.join(root, "no-such-fixit")],
                capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("ptxbench serve: --fixit: ", out.stderr)


class OpenEnvTest(unittest.TestCase):
    def test_an_episode_resets_steps_and_closes(self):
        service = Service()
        try:
            env = KernelEnv(Client(service.url, service.token), max_turns=2, reward=TIERED)
            first = env.reset(task=TASK)
            self.assertEqual(first.task, TASK)
            self.assertEqual([m["role"] for m in first.messages], ["system", "user"])
            outcome = env.step("thinking, no code yet")
            self.assertEqual(outcome.reward, -0.5)
            self.assertFalse(outcome.done)
            self.assertEqual(outcome.info["reward_parts"]["verdict"], "NO_CODE")
            self.assertEqual(outcome.observation.messages[-1]["role"], "user")
            self.assertTrue(env.step("still nothing").done)
            episode = env.episode
            env.close()
            with self.assertRaises(RuntimeError):
                env.step("after close")
            # The close reached the service: the session is gone there.
            with self.assertRaises(ServiceError) as gone:
                env.client.close(episode)
            self.assertEqual(gone.exception.status, 404)
        finally:
            self.assertEqual(service.close(), 0)


class ConnectionLimitTest(unittest.TestCase):
    def test_a_batch_refused_for_connections_is_sent_again(self):
        """One connection per address: while another connection holds it, the batch's POST is
        refused (503, nothing judged); the client waits its Retry-After and sends it again."""
        service = Service(extra_flags=["--max-connections-per-address", "1"])
        try:
            port = int(service.url.rsplit(":", 1)[1])
            holder = socket.create_connection(("127.0.0.1", port))
            time.sleep(0.3)  # the service has admitted it
            with self.assertRaises(ServiceError) as refused:
                Client(service.url, service.token, refusal_wait_s=0).submit_batch(
                    [{"key": "k0", "task": TASK, "arch": "hopper", "reply": "no code"}])
            self.assertEqual(refused.exception.status, 503)
            threading.Timer(1.0, holder.close).start()  # frees the slot during the first wait
            waits = []
            real_sleep = client_module.time.sleep
            items = [{"key": "k1", "task": TASK, "arch": "hopper", "reply": "no code"}]
            with mock.patch.object(client_module.time, "sleep",
                                   side_effect=lambda s: (waits.append(s), real_sleep(s))):
                results = Client(service.url, service.token).evaluate_batch(
                    items, reward=TIERED, timeout_s=120)
            self.assertEqual(results[0]["parts"]["verdict"], "NO_CODE")
            self.assertEqual(waits[:1], [5])  # refused once, sent again after Retry-After
        finally:
            self.assertEqual(service.close(), 0)


if __name__ == "__main__":
    unittest.main()
