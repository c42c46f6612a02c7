"""A fake llama.cpp for the tests of the embedded model's cache and lifetime (``models/_loaded.py``): no weights are
read, each ``Llama`` made and closed is recorded (used by test_review283_close.py and test_review286_lifetime.py)."""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

__all__ = ["_FakeLlama", "fake_model_cache"]


class _FakeLlama:
    """What LoadedModel reads from a ``llama_cpp.Llama`` when it is made; records each one made and closed."""

    metadata: ClassVar[dict[str, str]] = {}
    _model = types.SimpleNamespace(vocab=None)
    made: ClassVar[list[_FakeLlama]] = []

    def __init__(self, n_ctx: int) -> None:
        self.size = n_ctx
        self.closed = 0
        _FakeLlama.made.append(self)

    def token_bos(self) -> int:
        return -1

    def token_eos(self) -> int:
        return -1

    def n_ctx(self) -> int:
        return self.size

    def close(self) -> None:
        self.closed += 1


def fake_model_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fake llama.cpp, an empty model cache (of the module's own kind) and no model held; yields a fake GGUF
    path."""
    from toolwire.models import _loaded, llamacpp

    lib = types.SimpleNamespace(llama_token_to_piece=None, llama_vocab_is_eog=None,
                                llama_vocab_get_add_bos=lambda vocab: 0)
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(llamacpp, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(_loaded, "_llama", lambda lib, path, n_ctx, *rest: _FakeLlama(n_ctx))
    monkeypatch.setattr(_loaded, "_MODELS", type(_loaded._MODELS)())
    monkeypatch.setattr(_loaded, "_HELD", [])
    monkeypatch.setattr(_FakeLlama, "made", [])
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"not read: llama.cpp is a fake here")
    yield path
