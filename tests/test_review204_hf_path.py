"""An HF_ENDPOINT whose path holds '@' (a repository manager's mirror, http://host/repository/@hf) is a valid
endpoint with no user info, read by the rule toolwire masks URLs by: the text before the first '/' holds no '@'
and no ':' but before a port's digits (review 204 #3)."""

from __future__ import annotations

import pytest

from toolwire.models._pull_hub import endpoint_problem, shown_endpoint


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:48731/repository/@hf", "https://mirror.example/@hf/",
                                      "http://[::1]:8080/@hf", "http://host:8080/a@b"])
def test_an_at_sign_in_the_path_is_no_user_info(endpoint: str) -> None:
    assert endpoint_problem(endpoint) is None
    assert shown_endpoint(endpoint) == endpoint


@pytest.mark.parametrize("endpoint", ["http://user:pa/ss@mirror", "http://u:p/q@h/x@y"])
def test_user_info_before_a_slash_is_still_refused_and_masked(endpoint: str) -> None:
    problem = endpoint_problem(endpoint)
    assert problem is not None and "****@" in problem and "pa/ss" not in problem and "u:p" not in problem


@pytest.mark.parametrize(("endpoint", "shown"), [
    ("http://alice:s3cret@host/repository/@hf", "http://****@host/repository/@hf"),
    ("https://bob@mirror.example:8443/a@b/", "https://****@mirror.example:8443/a@b/")])
def test_a_login_then_a_path_with_an_at_sign_is_read_and_masked(endpoint: str, shown: str) -> None:
    assert endpoint_problem(endpoint) is None  # (review 210 #3)
    assert shown_endpoint(endpoint) == shown
