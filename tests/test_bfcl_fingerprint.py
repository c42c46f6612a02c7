"""A resumed BFCL run runs again an item whose function docs or earlier turns changed (same id, same last question,
same answer key): the report keeps a fingerprint of what the model was asked, per item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolwire import AIMessage
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report
from toolwire.testing import ScriptedChatModel

_FUNCTION: dict[str, Any] = {
    "name": "math.add_one", "description": "Add one to x.",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}


def _data(folder: Path, function: dict[str, Any], turns: list[list[dict[str, str]]] | None = None) -> Path:
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    question = turns or [[{"role": "user", "content": "Add one to 1."}]]
    item = {"id": "simple_python_0", "question": question, "function": [function]}
    key = {"id": "simple_python_0", "ground_truth": [{"math.add_one": {"x": [1]}}]}
    (folder / "BFCL_v4_simple_python.json").write_text(json.dumps(item) + "\n", encoding="utf-8")
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(key) + "\n", encoding="utf-8")
    return folder


def _reply() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "math_add_one", "args": {"x": 1}, "id": "c1", "type": "tool_call"}])


def test_the_fingerprint_covers_turns_and_function_docs_and_nothing_else(tmp_path: Path) -> None:
    base = load_category(_data(tmp_path / "a", _FUNCTION), "simple_python")[0]
    same = load_category(_data(tmp_path / "b", json.loads(json.dumps(_FUNCTION))), "simple_python")[0]
    other_doc = load_category(_data(tmp_path / "c", {**_FUNCTION, "description": "Add 1."}), "simple_python")[0]
    system = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Add one to 1."}]]
    other_turns = load_category(_data(tmp_path / "d", _FUNCTION, system), "simple_python")[0]
    assert len(base.fingerprint) == 64 and base.fingerprint == same.fingerprint
    assert len({base.fingerprint, other_doc.fingerprint, other_turns.fingerprint}) == 3
    assert base.question_text == other_doc.question_text == other_turns.question_text  # what the old rule compared


def test_a_resume_runs_again_an_item_whose_function_docs_changed(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    first = ScriptedChatModel([_reply()])
    run_bfcl(first, _data(tmp_path / "v1", _FUNCTION), "simple_python", out=out)
    saved = Report.load(out).items[0]
    assert saved.fingerprint and len(first.requests) == 1
    again = ScriptedChatModel([_reply()])
    run_bfcl(again, _data(tmp_path / "v1", _FUNCTION), "simple_python", out=out)  # unchanged: kept
    assert not again.requests
    changed = ScriptedChatModel([_reply()])
    doc = {**_FUNCTION, "description": "Add one to x (an integer) and return the sum."}
    report = run_bfcl(changed, _data(tmp_path / "v2", doc), "simple_python", out=out)
    assert len(changed.requests) == 1 and report.items[0].fingerprint != saved.fingerprint


def test_a_report_written_before_fingerprints_still_resumes(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    data = _data(tmp_path / "v1", _FUNCTION)
    run_bfcl(ScriptedChatModel([_reply()]), data, "simple_python", out=out)
    raw = json.loads(out.read_text(encoding="utf-8"))
    for item in raw["items"]:
        del item["fingerprint"]
    out.write_text(json.dumps(raw), encoding="utf-8")
    again = ScriptedChatModel([_reply()])
    run_bfcl(again, data, "simple_python", out=out)
    assert not again.requests


class _LocalModel(ScriptedChatModel):
    """A scripted model that says which GGUF file it runs, as ChatLlamaCpp does."""

    def __init__(self, replies: list[AIMessage], digest: str) -> None:
        super().__init__(replies)
        self.digest = digest

    def file_sha256(self) -> str:
        return self.digest


def test_a_report_of_another_gguf_file_of_the_same_name_is_not_resumed(tmp_path: Path) -> None:
    import pytest

    from toolwire.errors import UserError

    out = tmp_path / "r.json"
    data = _data(tmp_path / "v1", _FUNCTION)
    run_bfcl(_LocalModel([_reply()], "a" * 64), data, "simple_python", out=out)
    assert Report.load(out).settings == {"gguf_sha256": "a" * 64, "provider": "scripted"}
    same = _LocalModel([_reply()], "a" * 64)
    run_bfcl(same, data, "simple_python", out=out)
    assert not same.requests
    with pytest.raises(UserError, match=r"GGUF file's sha256 'a{64}' there, 'b{64}' now"):
        run_bfcl(_LocalModel([_reply()], "b" * 64), data, "simple_python", out=out)
    raw = json.loads(out.read_text(encoding="utf-8"))  # a report written before the sha256 was recorded
    raw["settings"] = {}
    out.write_text(json.dumps(raw), encoding="utf-8")
    older = _LocalModel([_reply()], "b" * 64)
    run_bfcl(older, data, "simple_python", out=out)
    assert not older.requests


def test_chatllamacpp_file_sha256_hashes_a_users_file_once(tmp_path: Path, monkeypatch) -> None:
    import hashlib

    from toolwire.models import ChatLlamaCpp, _pull_verify
    from toolwire.models.registry import REGISTRY

    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    gguf = tmp_path / "mine" / "model.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF" + bytes(range(256)) * 10)
    hashed: list[Path] = []
    real = _pull_verify.sha256_file
    monkeypatch.setattr(_pull_verify, "sha256_file", lambda path, progress=None: hashed.append(path) or real(path))
    model = ChatLlamaCpp(str(gguf))
    assert model.file_sha256() == hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert model.file_sha256() == hashlib.sha256(gguf.read_bytes()).hexdigest() and hashed == [gguf]  # recorded
    assert not (gguf.parent / "model.gguf.sha256").exists()  # a user's folder is left alone
    name = next(iter(REGISTRY))
    assert ChatLlamaCpp(name).file_sha256() == REGISTRY[name].sha256  # no file read at all
