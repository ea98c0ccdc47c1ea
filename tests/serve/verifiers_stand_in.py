"""A stand-in of verifiers' documented vf.Rubric / vf.SingleTurnEnv (verifiers itself cannot be
installed here or on the GPU machine): the rubric awaits each reward function with completion,
answer and info, as verifiers does. Used by trainer_adapters_test.py and
benchmarks/gpu-check/rl_load.py."""

import sys
import types


def install_verifiers_stand_in() -> None:
    module = types.ModuleType("verifiers")

    class Rubric:
        def __init__(self, funcs, weights=None):
            self.funcs, self.weights = funcs, weights or [1.0] * len(funcs)

        async def score(self, completion, answer, info):
            values = [await f(completion=completion, answer=answer, info=info)
                      for f in self.funcs]
            return sum(w * v for w, v in zip(self.weights, values))

    class SingleTurnEnv:
        def __init__(self, dataset, rubric, **kwargs):
            self.dataset, self.rubric = dataset, rubric

    module.Rubric, module.SingleTurnEnv = Rubric, SingleTurnEnv
    sys.modules["verifiers"] = module
