"""Review 202: HF_ENDPOINT's password never shown by `models pull` (#1), the eval --out lock on a file system without
locks (#3), a bracketed IPv6 host kept by the loose user-info rule (#4), and white space after
'openai-compatible:' (#6).

No model is loaded and no network is reached (only 127.0.0.1, or nothing at all).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

from _bfcl_data import add_one_data
from toolwire import AIMessage
from toolwire.errors import UserError

# -- 1. HF_ENDPOINT with a password holding "/", "?" or "#", or a port that is not a number --------------------------

_SECRET = "s3cretpart"


class _NoImport(types.ModuleType):
    """A huggingface_hub whose import fails as the real one's does on such an HF_ENDPOINT (and prints as it does)."""

    def __getattr__(self, name: str) -> Any:
        print(f"Error importing huggingface_hub.file_download: Port could not be cast to integer value as '{_SECRET}'")
        raise ValueError(f"Port could not be cast to integer value as '{_SECRET}'")


@pytest.mark.parametrize(("endpoint", "said"), [
    (f"http://alice:{_SECRET}/rest@mirror.example", "has '/', '?' or '#' in its user name or password"),
    (f"http://alice:{_SECRET}#x@mirror.example", "has '/', '?' or '#' in its user name or password"),
    (f"https://alice:{_SECRET}?x@mirror.example/", "has '/', '?' or '#' in its user name or password"),
    ("http://alice:12a/s3cret@mirror.example", "has '/', '?' or '#' in its user name or password"),
    (f"http://alice:{_SECRET}@mirror.example:abc", "has a port that is not a number"),
    (f"http://alice:{_SECRET}@mirror.example:99999", "has a port that is not a number"),
    (f"http://alice:{_SECRET}@[::1", "has no host that can be read"),
    (f"ftp://alice:{_SECRET}@mirror.example", "is not an http(s) URL"),
])
def test_a_bad_hf_endpoint_is_one_masked_sentence_before_huggingface_hub_is_imported(
        endpoint: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import SourceError

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setitem(sys.modules, "huggingface_hub", _NoImport("huggingface_hub"))
    monkeypatch.setattr(pull_mod, "_hub_reachable", lambda *a: pytest.fail("the endpoint was probed"))
    with pytest.raises(SourceError) as refused:
        pull_mod._fetch_hub(types.SimpleNamespace(hub_repo="x/y", hub_file="f.gguf"), None, None)  # type: ignore[arg-type]
    text = str(refused.value)
    assert text.startswith("HF_ENDPOINT '") and said in text and "\n" not in text
    assert "cret" not in text and "****@" in text
    assert "cret" not in capsys.readouterr().out  # (huggingface_hub was not imported: nothing printed)


def test_the_import_error_and_the_probe_reason_mask_every_piece_of_the_password(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import http.client
    import urllib.request

    from toolwire.models import pull as pull_mod
    from toolwire.models._pull_hub import hub_reachable
    from toolwire.models.pull import SourceError

    endpoint = f"http://alice:{_SECRET}@127.0.0.1:9"  # (a URL huggingface_hub reads: only its reasons quote parts)

    def urlopen(*args: object, **kwargs: object) -> Any:
        raise http.client.InvalidURL(f"nonnumeric port: '{_SECRET}'")

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", urlopen)  # (the probe's opener follows no redirect)
    reason = hub_reachable(endpoint, 3)
    assert reason is not None and _SECRET not in reason and "nonnumeric port" in reason

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setitem(sys.modules, "huggingface_hub", _NoImport("huggingface_hub"))
    with pytest.raises(SourceError, match=r"^huggingface_hub cannot be loaded \(ValueError: ") as refused:
        pull_mod._fetch_hub(types.SimpleNamespace(hub_repo="x/y", hub_file="f.gguf"), None, None)  # type: ignore[arg-type]
    assert _SECRET not in str(refused.value)


def test_models_pull_says_one_line_and_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "TOOLWIRE_HOME": str(tmp_path / "tw"), "HF_HOME": str(tmp_path / "hf"),
           "HF_ENDPOINT": f"http://alice:{_SECRET}/rest@mirror.example", "NO_COLOR": "1", "COLUMNS": "400"}
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("TOOLWIRE_MODEL_PATH", None)
    done = subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", "models", "pull",
                           "qwen2.5-coder-0.5b", "--source", "hub", "-q"],
                          capture_output=True, text=True, env=env, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in output and "cret" not in output and "rest" not in output
    assert "hub: HF_ENDPOINT 'http://****@mirror.example' has '/', '?' or '#' in its user name or password" in output


# -- 3. the --out lock on a file system without locks ---------------------------------------------------------------


def _replies(count: int) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"name": "add_one", "args": {"x": n}, "id": f"c{n}", "type": "tool_call"}])
            for n in range(count)]


@pytest.fixture(params=[errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS])
def no_flock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """flock fails as the kernel makes it fail on NFS without lockd and some SMB or FUSE mounts."""
    fcntl = pytest.importorskip("fcntl")
    from toolwire.evals import _report_lock

    def flock(fd: int, operation: int) -> None:
        raise OSError(request.param, os.strerror(request.param))

    monkeypatch.setattr(fcntl, "flock", flock)
    monkeypatch.setattr(_report_lock, "_warned", set(), raising=False)
    return int(request.param)


def test_a_run_goes_on_without_the_lock_warning_once_and_leaves_no_lock_file(tmp_path: Path, no_flock: int) -> None:
    from toolwire.evals._report_lock import report_lock
    from toolwire.evals.bfcl_runner import run_bfcl
    from toolwire.testing import ScriptedChatModel

    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with report_lock(out):  # (as the command line takes it before run_bfcl takes it again)
            assert not (tmp_path / "r.json.lock").exists()
            report = run_bfcl(ScriptedChatModel(_replies(2), cycle=True), data, "simple_python", out=out)
    assert len(report.items) == 2 and out.is_file()
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and said[0].startswith(f"{str(out)!r} is on a file system without file locks (")
    assert "not stopped there: start one run at a time into this --out." in said[0]
    assert "folder you can write" not in said[0] and sorted(p.name for p in tmp_path.iterdir()) == ["d", "r.json"]


def test_the_command_runs_without_the_lock_and_says_so(tmp_path: Path, no_flock: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire.cli import app
    from toolwire.evals import cli as eval_cli
    from toolwire.testing import ScriptedChatModel

    data, out = add_one_data(tmp_path / "d", 2), tmp_path / "r.json"
    model = ScriptedChatModel(_replies(2), cycle=True)
    monkeypatch.setattr(eval_cli, "_load_model", lambda *a, **k: model)
    with pytest.warns(UserWarning, match="is on a file system without file locks") as caught:
        result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(data), "--category", "simple_python",
                                          "--out", str(out)])
    assert len([w for w in caught if "file locks" in str(w.message)]) == 1
    assert result.exit_code == 0, result.output
    assert "cannot be locked" not in result.output and "folder you can write" not in result.output
    assert not (tmp_path / "r.json.lock").exists() and len(model.requests) == 2


def test_another_thread_is_still_refused_without_flock(tmp_path: Path, no_flock: int) -> None:
    import threading

    from toolwire.evals._report_lock import report_lock

    out, seen = tmp_path / "r.json", []

    def other() -> None:
        try:
            with report_lock(out):
                seen.append("locked")
        except UserError as exc:
            seen.append(str(exc))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with report_lock(out):
            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
        other()
    assert "is being written by another run" in seen[0] and seen[1] == "locked"
    assert not (tmp_path / "r.json.lock").exists()


# -- 4. a bracketed IPv6 host is no user name ---------------------------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    ("http://[::1]:4873/@scope/pkg", "http://[::1]:4873/@scope/pkg"),
    ("https://[2001:db8::7]/@alice/post/1", "https://[2001:db8::7]/@alice/post/1"),
    ("GET http://[fd00::2]:8000/v1/models/@latest failed", "GET http://[fd00::2]:8000/v1/models/@latest failed"),
    ("http://user:p/ss@[::1]/x", "http://****@[::1]/x"),
    ("http://user:p/ss@[::1]:4873/x", "http://****@[::1]:4873/x"),
    ("redis://:p/w@[fd00::2]:6379/0", "redis://****@[fd00::2]:6379/0"),
    ("http://user:pw@[::1]:8000/v1", "http://****@[::1]:8000/v1"),
])
def test_an_ipv6_host_keeps_its_place_and_a_password_before_it_is_masked(text: str, shown: str) -> None:
    from toolwire._secrets import redact_url, url_secrets

    assert redact_url(text) == shown
    assert (url_secrets(text) == []) == (text == shown)


@pytest.mark.parametrize("text", [
    "http://[" * 150_000, "a://[::" * 150_000, "http://[::1]:" + "1:" * 450_000, "a://[:" + "[:" * 450_000 + "@",
    "x://u:p/" + "[::1]@" * 150_000, "http://[::1]/@" * 70_000,
])
def test_masking_stays_linear_on_brackets(text: str) -> None:
    import time

    from toolwire._secrets import redact_url, url_secrets

    start = time.perf_counter()
    redact_url(text)
    url_secrets(text)
    assert time.perf_counter() - start < 3  # (well under a second; a quadratic search takes minutes)


# -- 6. white space after "openai-compatible:" ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai-compatible: m@http://host/v1", "openai-compatible:m @ http://host/v1 ",
                                  "openai-compatible:\tm@http://host/v1"])
def test_white_space_around_the_model_and_url_is_dropped(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import init_chat_model

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = init_chat_model(name)
    assert model.model == "m" and model.base_url == "http://host/v1"


@pytest.mark.parametrize("name", ["openai-compatible: http://user:pw42@host/v1",
                                  "openai-compatible:  HTTPS://user:pw42@host/v1 "])
def test_a_url_alone_after_a_space_names_no_model(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import init_chat_model

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError) as refused:
        init_chat_model(name)
    assert "openai-compatible:<model>@<base_url>" in str(refused.value) and "pw42" not in str(refused.value)


def test_a_model_with_spaces_and_base_url_given_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import init_chat_model

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = init_chat_model("openai-compatible: m ", base_url=" http://host/v1 ")
    assert model.model == "m" and model.base_url == "http://host/v1"
