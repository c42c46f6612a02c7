"""Review 103 (the session's new docs checked against behaviour): what changed in code."""

from __future__ import annotations

import pytest

from toolwire._secrets import redact_url


@pytest.mark.parametrize(("name", "masked"), [
    ("code", True), ("session", True), ("sessionid", True), ("jwt", True), ("bearer", True), ("pass", True),
    ("db_pass", True), ("sas", True), ("country_code", False), ("compass", False), ("zip", False), ("q", False),
])
def test_the_query_names_the_readme_lists_are_masked_and_look_alikes_are_not(name: str, masked: bool) -> None:
    text = redact_url(f"https://h.example/p?{name}=VALUE&y=2")
    assert ("VALUE" not in text) is masked and text.endswith("&y=2")
