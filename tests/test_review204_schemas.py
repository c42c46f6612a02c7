"""Review 204 #2, #5, #6: a key a union branch requires but no ``properties`` declare, the tagged-union error of a
union that may be null, and the @tool regex SchemaError naming what pydantic-core's Rust engine refused."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from toolwire import tool
from toolwire.errors import SchemaError


def _refusal(pattern: str) -> str:
    with pytest.raises(SchemaError) as caught:
        @tool
        def lookup(code: Annotated[str, Field(pattern=pattern)]) -> str:
            """Look up a code."""
            return code

    text = str(caught.value)
    assert "\n" not in text and type(caught.value) is SchemaError and "parameter 'code'" in text, text
    return text


# -- #6: the regex SchemaError names the construct the Rust engine refused -----------------------------------------

def test_python_end_anchor_is_named_with_its_rust_spelling() -> None:
    text = _refusal(r"^\d+\Z")
    assert "lookaround" not in text and "backreference" not in text, text
    assert "'\\Z'" in text and "write '$' in its place" in text and "regex_engine='python-re'" in text, text


@pytest.mark.parametrize(("pattern", "named"), [
    (r"^(?!TMP-)[A-Z0-9-]+$", "uses a lookaround '(?!'"),
    (r"(?<=a)b", "uses a lookaround '(?<='"),
    (r"(a)\1", "uses a backreference '\\1'"),
    ("a\n(?=b)", "uses a lookaround '(?='"),  # (a pattern of several lines, which Rust shows numbered)
])
def test_lookaround_and_backreference_are_named(pattern: str, named: str) -> None:
    text = _refusal(pattern)
    assert named in text and "regex_engine='python-re'" in text and "Tool.from_schema" in text, text


def test_another_construct_gets_rusts_own_reason() -> None:
    text = _refusal(r"(?P<x>a)(?P=x)")
    assert "lookaround" not in text and "backreference '" not in text, text
    assert "'(?P=x)' (Rust's regex: unrecognized flag)" in text and "regex_engine='python-re'" in text, text


def test_a_pattern_no_engine_reads_is_said_to_be_invalid() -> None:
    text = _refusal(r"a{2,1}")
    assert "'a{2,1}'" in text and "is not a valid regular expression" in text and "correct it" in text, text
    assert "python-re" not in text, text
