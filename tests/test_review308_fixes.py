"""Review 308: paths, encodings and Windows-saved files.

#1 a ``--tools`` file whose path is not UTF-8 (or is non-ASCII under the C locale without UTF-8 mode) loads, and an
encoding error on toolwire's side is not blamed on the file; #2 ``eval bfcl`` writes its report and page when the
``--data`` folder's name or an item's text cannot be encoded as UTF-8, and resumes it; #3 ``chat`` reads input that
starts with a UTF-8 BOM as UTF-8 whatever stdin's encoding; #4 ``models path``/``pull`` print the path's own bytes;
#5 ``--out``/``--html`` given a symlink write through it, and lock the file it points to; #6 a report re-saved with a
UTF-8 BOM and CRLF is read and resumed; #7 a UTF-16 tools file is told to be saved as UTF-8, and a ``.PY`` file (or
one of another suffix) loads.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import cli_models, cli_tools
from toolwire.cli_tools import load_tools
from toolwire.errors import UserError
from toolwire.evals import cli as eval_cli
from toolwire.evals._report_lock import report_lock
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import Report, write_html
from toolwire.messages import AIMessage
from typed_stdin import chat_on

TOOLS_FILE = ("from toolwire import tool\n\n\n@tool\ndef echo_308(text: str) -> str:\n"
              "    \"\"\"Return the text unchanged.\"\"\"\n    return text\n\n\nTOOLS = [echo_308]\n")
UTF8_FS = sys.getfilesystemencoding().lower().replace("-", "") == "utf8" and os.name != "nt"
needs_bytes_names = pytest.mark.skipif(not UTF8_FS, reason="file names as bytes: a POSIX UTF-8 file system encoding")


@pytest.fixture
def clean_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``sys.path`` and the tools modules the test loads forgotten after it."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("toolwire_user_tools_") or name.endswith("_308"):
            sys.modules.pop(name, None)


# ------------------------------------------------------------------ 1: a tools file's path that is not UTF-8


@needs_bytes_names
def test_a_tools_file_whose_name_is_not_utf8_loads(tmp_path: Path, clean_imports: None) -> None:
    raw = os.fsencode(tmp_path) + b"/caf\xe9_tools.py"  # (a Latin-1 name: not UTF-8 in any locale)
    with open(raw, "w", encoding="utf-8") as handle:
        handle.write(TOOLS_FILE)
    assert [tool.name for tool in load_tools(os.fsdecode(raw))] == ["echo_308"]


@needs_bytes_names
def test_a_non_ascii_path_as_the_c_locale_decodes_it_loads(tmp_path: Path, clean_imports: None) -> None:
    folder = tmp_path / "dir with space" / "é中文😀"
    folder.mkdir(parents=True)
    (folder / "outils_é.py").write_text(TOOLS_FILE, encoding="utf-8")
    # (Python under LC_ALL=C without UTF-8 mode decodes the argument's bytes as ASCII with surrogateescape)
    spec = os.fsencode(folder / "outils_é.py").decode("ascii", "surrogateescape")
    assert [tool.name for tool in load_tools(spec)] == ["echo_308"]


def test_an_encoding_error_outside_the_files_code_is_not_blamed_on_the_file() -> None:
    try:
        "caf\udce9".encode()  # (raised in C: a traceback with no frame of the user's, as toolwire's own would be)
    except UnicodeEncodeError as exc:
        error = exc.with_traceback(None)
    text = cli_tools._import_failure("caf\udce9_tools.py", error)
    assert "fix the file" not in text and "fix the code" not in text, text
    assert "UnicodeEncodeError" in text and "not in the file" in text and "\n" not in text, text


# ------------------------------------------------------------------ 7: Windows-saved tools files


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-16-le", "utf-32"])
def test_a_utf16_tools_file_is_told_to_be_saved_as_utf8(tmp_path: Path, clean_imports: None, encoding: str) -> None:
    file = tmp_path / "utf16_tools.py"
    text = ("\ufeff" if encoding == "utf-16-be" else "") + TOOLS_FILE  # (utf-16-le: without a BOM)
    file.write_bytes(text.encode(encoding))
    with pytest.raises(UserError) as caught:
        load_tools(str(file))
    said = str(caught.value)
    assert "save the file as UTF-8" in said and ("UTF-16" in said or "UTF-32" in said), said
    assert "fix the code" not in said and "\n" not in said


@pytest.mark.parametrize("name", ["UPPER_TOOLS_308.PY", "mixed_308.Py", "no_suffix_308", "tools_308.txt"])
def test_a_tools_file_of_another_suffix_python_runs_loads(tmp_path: Path, clean_imports: None, name: str) -> None:
    (tmp_path / name).write_text(TOOLS_FILE, encoding="utf-8")
    assert [tool.name for tool in load_tools(str(tmp_path / name))] == ["echo_308"]


# ------------------------------------------------------------------ 2, 5, 6: BFCL reports


def _data(folder: Path, count: int = 3, word: str = "") -> Path:
    """A BFCL data folder of ``count`` simple_python items asking for ``f(x=<n>)`` (``word`` added to each question:
    written as JSON escapes, as JavaScript writes a lone surrogate)."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    function = {"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {
        "x": {"type": "integer", "description": "X."}}, "required": ["x"]}}
    questions = [{"id": f"simple_python_{n}", "question": [[{"role": "user", "content": f"{word}f of {n}"}]],
                  "function": [function]} for n in range(count)]
    answers = [{"id": f"simple_python_{n}", "ground_truth": [{"f": {"x": [n]}}]} for n in range(count)]
    (folder / "BFCL_v4_simple_python.json").write_text("\n".join(json.dumps(q) for q in questions) + "\n")
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
        "\n".join(json.dumps(a) for a in answers) + "\n")
    return folder


class _Model:
    """A duck-typed chat model answering ``f(x=<n>)`` for the question ``... f of <n>``; counts its calls."""

    def __init__(self) -> None:
        self.name = "m"
        self.calls = 0

    def bind_tools(self, tools: list[dict[str, Any]]) -> _Model:
        return self

    def invoke(self, messages: list[Any]) -> AIMessage:
        self.calls += 1
        return AIMessage("", tool_calls=[{"name": "f", "args": {"x": int(messages[-1].text.rsplit(" ", 1)[1])}}])


@needs_bytes_names
def test_a_data_folder_whose_name_is_not_utf8_is_recorded_and_resumed(tmp_path: Path) -> None:
    data = _data(Path(os.fsdecode(os.fsencode(tmp_path) + b"/bfcl_caf\xe9")))
    out = tmp_path / "r.json"
    assert len(run_bfcl(_Model(), data, "simple_python", out=out).items) == 3
    report = Report.load(out)
    assert len(report.items) == 3 and os.fsencode(report.data_dir) == os.fsencode(data.resolve())
    model = _Model()  # a run of one item: the other two, outside its selection, are kept (the folder is the same)
    assert len(run_bfcl(model, data, "simple_python", limit=1, out=out).items) == 3
    assert model.calls == 0
    page = tmp_path / "r.html"
    write_html(Report.load(out), page)
    assert "bfcl_caf\ufffd" in page.read_text(encoding="utf-8")


def test_item_text_that_is_not_utf8_is_saved_and_resumed(tmp_path: Path) -> None:
    data = _data(tmp_path / "d", word="caf\udce9 ")
    out = tmp_path / "r.json"
    report = run_bfcl(_Model(), data, "simple_python", out=out)
    assert len(report.items) == 3 and report.items[0].question.startswith("caf\udce9")
    model = _Model()
    assert len(run_bfcl(model, data, "simple_python", out=out).items) == 3
    assert model.calls == 0  # each item is known as the same item: none run again
    page = tmp_path / "r.html"
    saved = Report.load(out)
    saved.items[0].valid, saved.items[0].reason = False, "value_error"  # (a failure's question is on the page)
    write_html(saved, page)
    assert "caf\ufffd f of 0" in page.read_text(encoding="utf-8")


@needs_bytes_names
def test_eval_bfcl_writes_its_report_and_page_for_a_data_folder_not_in_utf8(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(Path(os.fsdecode(os.fsencode(tmp_path) + b"/bfcl_caf\xe9")))
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a: _Model())
    result = CliRunner().invoke(eval_cli.app, ["bfcl", "--data", str(data), "--category", "simple_python",
                                               "--out", str(out), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert len(Report.load(out).items) == 3 and page.is_file()


def test_a_report_that_cannot_be_written_says_what_to_do_in_one_line(tmp_path: Path) -> None:
    report = Report("m", ["simple_python"])
    for target in (tmp_path / "a\x00b.json", tmp_path / "file" / "r.json"):
        (tmp_path / "file").write_text("")
        with pytest.raises(UserError) as caught:
            report.save(target)
        text = str(caught.value)
        assert text.startswith("Cannot write") and "\n" not in text and ": pass" in text, text


def test_a_report_resaved_with_a_bom_and_crlf_is_read_and_resumed(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    out = tmp_path / "r.json"
    run_bfcl(_Model(), data, "simple_python", out=out)
    out.write_bytes(b"\xef\xbb\xbf" + out.read_bytes().replace(b"\n", b"\r\n"))  # (Notepad's "UTF-8 with BOM")
    assert len(Report.load(out).items) == 3
    model = _Model()
    assert len(run_bfcl(model, data, "simple_python", out=out).items) == 3
    assert model.calls == 0
    blank = tmp_path / "blank.json"
    blank.write_bytes(b"\xef\xbb\xbf\r\n")  # (an empty file saved by such an editor: no report yet)
    assert Report.load_existing(blank) is None


def test_a_report_and_page_through_a_symlink_update_the_files_it_points_to(tmp_path: Path) -> None:
    data = _data(tmp_path / "d")
    real = tmp_path / "real_reports"
    real.mkdir()
    out, page = tmp_path / "link.json", tmp_path / "link.html"
    out.symlink_to(real / "run1.json")
    page.symlink_to(real / "run1.html")
    run_bfcl(_Model(), data, "simple_python", limit=1, out=out)
    report = run_bfcl(_Model(), data, "simple_python", out=out)
    write_html(report, page)
    assert out.is_symlink() and page.is_symlink()
    assert len(Report.load(real / "run1.json").items) == 3
    assert "<!DOCTYPE html>" in (real / "run1.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in real.iterdir()) == ["run1.html", "run1.json"]  # (no temporary or lock file left)


def test_a_run_through_a_symlink_is_refused_while_another_writes_its_file(tmp_path: Path) -> None:
    (tmp_path / "rep_dir").mkdir()
    target = tmp_path / "rep_dir" / "r.json"
    link = tmp_path / "linkf.json"
    link.symlink_to(target)
    refused: list[BaseException] = []

    def second() -> None:
        try:
            with report_lock(link):
                pass
        except UserError as exc:
            refused.append(exc)

    with report_lock(target):
        thread = threading.Thread(target=second)
        thread.start()
        thread.join()
    assert len(refused) == 1 and "is being written by another run" in str(refused[0]), refused
    assert str(link) in str(refused[0])  # (named as the user gave it)


# ------------------------------------------------------------------ 3: chat input with a UTF-8 BOM


@pytest.mark.parametrize(("encoding", "errors"), [("cp1252", "strict"), ("latin-1", "strict"),
                                                  ("ascii", "surrogateescape"), ("utf-8", "strict")])
def test_chat_reads_input_with_a_utf8_bom_as_utf8(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], encoding: str,
                                                  errors: str) -> None:
    data = "\ufeffQuanto custa o café?\r\n東京\r\nexit\r\nnot sent\r\n".encode()
    questions, shown = chat_on(monkeypatch, capsys, data, encoding, errors)
    assert questions == ["Quanto custa o café?", "東京"], shown
    assert "not UTF-8" not in shown.err


def test_chat_input_with_a_utf8_bom_still_refuses_a_line_not_in_utf8(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    questions, shown = chat_on(monkeypatch, capsys, b"\xef\xbb\xbfone\ncaf\xe9\ntwo\nexit\n", "cp1252", "strict")
    assert questions == ["one", "two"] and shown.err.count("not UTF-8") == 1, shown


# ------------------------------------------------------------------ 4: models path / pull print the path's bytes


@needs_bytes_names
@pytest.mark.parametrize("name", ["/tmp/home \udcc3\udca9/models/x.gguf", "/tmp/mod_caf\udce9/x.gguf"],
                         ids=["c-locale-utf8-name", "latin-1-name"])
@pytest.mark.parametrize("command", ["path", "pull"])
def test_models_path_and_pull_print_the_paths_own_bytes(monkeypatch: pytest.MonkeyPatch, name: str,
                                                       command: str) -> None:
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii", errors="replace")  # (as tolerant_output leaves the C locale's)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(cli_models, "find_model", lambda *a, **k: Path(name))
    monkeypatch.setattr(cli_models, "pull_model", lambda *a, **k: Path(name))
    if command == "path":
        cli_models.path("smollm2-135m")
    else:
        cli_models.pull("smollm2-135m", None, None, False, True)
    stdout.flush()
    assert raw.getvalue() == os.fsencode(name) + b"\n"
