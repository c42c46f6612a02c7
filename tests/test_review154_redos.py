"""Review 154 #1: masking URL credentials (``redact_url``) and stripping an HTML error page's tags (``_clip``) take
time linear in the text's length, so a long error text that quotes the model's argument cannot stall the process."""

from __future__ import annotations

import time

import pytest

from toolwire._secrets import redact_url, url_secrets
from toolwire.models._retry import _clip

_N = 100_000


@pytest.mark.parametrize("text", [
    "a." * (_N // 2),
    "a1+" * (_N // 3),
    "abc-def-" * (_N // 8),
    "x://" + "a:" * (_N // 2),
    "<" * _N,
])
def test_masking_a_100kb_adversarial_text_is_fast(text: str) -> None:
    start = time.perf_counter()
    assert redact_url(text) == text
    _clip(text)
    assert time.perf_counter() - start < 2.0


def test_masking_is_still_right_around_a_long_run() -> None:
    text = "a." * (_N // 2) + " http://user:pw@host/x and git+ssh://me:tok@example.org/r.git"
    start = time.perf_counter()
    clean = redact_url(text)
    assert time.perf_counter() - start < 2.0
    assert clean.endswith(" http://****@host/x and git+ssh://****@example.org/r.git")
    assert "pw" not in clean[-80:] and "tok" not in clean


@pytest.mark.parametrize(("url", "masked"), [
    ("http://user:pw@host/v1", "http://****@host/v1"),
    ("see (HTTPS://u:p@h.example:8080/a?b=1)", "see (HTTPS://****@h.example:8080/a?b=1)"),
    ("x.y+z://a@b@c/d", "x.y+z://****@c/d"),
    ("-http://u:p@h", "-http://****@h"),  # a scheme after "-", as before
    ("http://host/a@b", "http://host/a@b"),  # an "@" in the path is no user info
    ("a://u@b.c://v@h", "a://****@b.c://****@h"),
])
def test_user_info_is_masked_as_before(url: str, masked: str) -> None:
    assert redact_url(url) == masked


def test_url_secrets_finds_the_user_info() -> None:
    assert url_secrets("https://me:s3cret@host/v1?api_key=k1") == ["me:s3cret", "k1"]


def test_clip_strips_tags_of_an_html_page() -> None:
    assert _clip("<html><body><h1>502 Bad Gateway</h1></body></html>") == "502 Bad Gateway"
