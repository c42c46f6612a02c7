"""Review 173 #3: ask/chat --help show the ranges of --n-ctx, --max-steps and --n-threads again; an empty value is
named as one; toolwire eval bfcl's number options are refused in the project's sentences, not pydantic's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import cli


def _said(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli.app, args, terminal_width=200)
    return result.exit_code, " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


@pytest.mark.parametrize("command", [["ask"], ["chat"]])
def test_help_shows_the_ranges(command: list[str]) -> None:
    code, text = _said([*command, "--help"])
    assert code == 0
    assert "in tokens, at least 256 (default 8192" in text
    assert "CPU threads a local model uses, 1 to 512 (default" in text  # (the most ggml takes: review 199 #2)
    assert re.search(r"The most model calls( per question)?, at least 1\.", text)


@pytest.mark.parametrize(("args", "said"), [
    (["ask", "hi", "--n-ctx", ""], "Invalid value for '--n-ctx': an empty value is not a number of tokens of at least "
     "256: pass one, such as 8192."),
    (["ask", "hi", "--tool-timeout", " "], "Invalid value for '--tool-timeout': an empty value is not a number of "
     "seconds of at least 0.001"),
    (["chat", "--max-steps", ""], "Invalid value for '--max-steps': an empty value is not a number of model calls"),
])
def test_an_empty_value_is_named(args: list[str], said: str) -> None:
    code, text = _said(args)
    assert code == 2 and said in text


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--concurrency", "0", "0 is not a number of threads of at least 1: pass one, such as 4."),
    ("--concurrency", "x", "x is not a number of threads of at least 1: pass one, such as 4."),
    ("--limit", "-1", "-1 is not a number of items of at least 0: pass one, such as 100."),
    ("--min-call-probability", "2", "2 is not a number from 0 to 1: pass one, such as 0.5."),
    ("--min-value-probability", "nan", "nan is not a number from 0 to 1: pass one, such as 0.5."),
    ("--optional-argument-share", "-0.1", "-0.1 is not a number from 0 to 1: pass one, such as 0.5."),
    ("--parallel-call-share", "", "an empty value is not a number from 0 to 1: pass one, such as 0.5."),
])
def test_eval_bfcl_numbers_are_refused_in_the_projects_words(tmp_path: Path, option: str, value: str,
                                                             said: str) -> None:
    code, text = _said(["eval", "bfcl", "--data", str(tmp_path), "--model", "openai:gpt-4o", option, value])
    assert code == 2
    assert f"Invalid value for '{option}': {said}" in text
    assert "Input should" not in text


def test_eval_bfcl_numbers_in_range_are_taken(tmp_path: Path) -> None:
    code, text = _said(["eval", "bfcl", "--data", str(tmp_path), "--model", "openai:gpt-4o", "--limit", "0",
                        "--concurrency", "2", "--min-call-probability", "0", "--parallel-call-share", "1"])
    assert code == 1 and "No BFCL data" in text
    code, text = _said(["eval", "bfcl", "--help"])
    assert "Items run at once (threads), at least 1." in text and "(from 0 to 1; default" in text


def test_share_parser() -> None:
    from toolwire._cli_errors import share

    assert share("0.25") == 0.25 and share("1") == 1.0 and share(" 0 ") == 0.0
