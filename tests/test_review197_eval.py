"""Review 197 (`toolwire eval bfcl`, third reading): a model that takes only its default temperature, a run whose
first items all fail with one client error, generated ids equal to another line's, two runs into one --out, and a
server URL with a trailing slash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _bfcl_data import add_one_data
from toolwire import AIMessage
from toolwire.evals.bfcl_runner import model_settings, run_bfcl
from toolwire.testing import ScriptedChatModel


def _replies(count: int) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])
            for n in range(count)]


class _ServerModel(ScriptedChatModel):
    """A scripted model that says which server it talks to, as a ChatOpenAI with base_url does."""

    def __init__(self, replies: list[Any], base_url: str) -> None:
        super().__init__(replies, cycle=True)
        self.base_url = base_url
        self.name = "fake"


# --- #4: the same server with and without a trailing slash -------------------------------------------------------

def test_a_trailing_slash_is_the_same_server_on_resume(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18197/v1"), data, "simple_python", limit=1, out=out)
    again = _ServerModel(_replies(2), "http://127.0.0.1:18197/v1/")
    run_bfcl(again, data, "simple_python", out=out)
    assert len(again.requests) == 1  # the first item was kept
    assert json.loads(out.read_text())["settings"]["base_url"] == "http://127.0.0.1:18197/v1"


def test_a_report_that_recorded_the_trailing_slash_is_resumed_without_it(tmp_path: Path) -> None:
    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    run_bfcl(_ServerModel(_replies(2), "http://127.0.0.1:18197/v1"), data, "simple_python", limit=1, out=out)
    saved = json.loads(out.read_text())
    saved["settings"]["base_url"] = "http://127.0.0.1:18197/v1/"  # as reports before review 197 recorded it
    out.write_text(json.dumps(saved))
    again = _ServerModel(_replies(2), "http://127.0.0.1:18197/v1")
    run_bfcl(again, data, "simple_python", out=out)
    assert len(again.requests) == 1


def test_the_recorded_server_keeps_its_query_and_drops_the_slash_and_credentials() -> None:
    settings = model_settings(_ServerModel([], "https://u:pw@llm.example.org/v1/?api_key=secret"))
    assert settings["base_url"] == "https://llm.example.org/v1?api_key=****"
