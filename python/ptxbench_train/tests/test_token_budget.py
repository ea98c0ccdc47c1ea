"""The built-in server's new-token budget: by default what the model's context leaves, so a
kernel reply is not cut at an arbitrary length; a cap and a request's max_tokens still bound it."""

import pytest

from ptxbench_train.server import FALLBACK_NEW_TOKENS, ApiError, new_token_budget


def test_default_is_what_the_context_leaves():
    assert new_token_budget(1000, 32768, None, None) == 31768
    assert new_token_budget(1000, None, None, None) == FALLBACK_NEW_TOKENS
    assert FALLBACK_NEW_TOKENS * 3 > 67000  # the longest expert solution, ~3 bytes a token


def test_a_request_and_a_cap_bound_it():
    assert new_token_budget(1000, 32768, None, 200) == 200
    assert new_token_budget(1000, 32768, 16, None) == 16
    assert new_token_budget(1000, 32768, 16, 200) == 16


def test_a_prompt_that_does_not_fit_is_an_error():
    with pytest.raises(ApiError):
        new_token_budget(40000, 32768, None, None)
    with pytest.raises(ApiError):
        new_token_budget(32000, 32768, 4096, 4096)
