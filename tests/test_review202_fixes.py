"""Review 202: HF_ENDPOINT's password never shown by `models pull` (#1), the eval --out lock on a file system without
locks (#3), a bracketed IPv6 host kept by the loose user-info rule (#4), and white space after
'openai-compatible:' (#6).

No model is loaded and no network is reached (only 127.0.0.1, or nothing at all).
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

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
    ("http://alice:123/s3cret@mirror.example", "has '/', '?' or '#' in its user name or password"),
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

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
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
