"""The KV state of a conversation's opening (the system turn with the tools), kept on disk across processes.

Every request to a local model starts with the same system turn as long as the tools do not change, and
that turn is most of a short prompt (about 200 tokens for the book's three tools: over 2 seconds of
prompt processing for qwen2.5-coder-1.5b on 2 cores). Within one process llama.cpp's KV cache already
skips it; this cache also skips it in the next process (``toolwire ask`` runs one per question), like
llama.cpp's ``--prompt-cache`` file but keyed by the prefix tokens, several prefixes at once.

Each entry is one file ``<sha256>.kv`` in the folder (named by the hash of the model key and the prefix tokens,
checked when read): a JSON header line (format version, model key, the prefix token ids, the sha256 of the state
bytes, checked before they are loaded) and the bytes of ``llama_state_seq_get_data`` for sequence 0 holding
exactly those tokens. The model key identifies the GGUF file by its content (:meth:`PromptCache.key_for`: its
sha256 when a verification record vouches for it, else its real path and mtime; always with a hash of its header and
of samples of its weights), ``n_ctx`` and the llama-cpp-python version, so a state is only loaded into the model
and build that wrote it, never into another file of the same name, size and mtime (review 138). Files are written
to a temporary name and renamed; the oldest entries beyond ``max_entries`` or ``max_bytes`` are deleted. Any
unreadable or refused entry is a miss; an entry no toolwire of this format can use (an older format, a damaged
header) is deleted, so the next store writes that prefix again.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["PromptCache"]

_FORMAT = 2  # 2: the header holds the state's sha256
_HEAD_BYTES = 4 << 20  # the GGUF header and metadata (the tokenizer's vocabulary included) of common models
_SAMPLES = 64  # pieces of the tensor data hashed into the model key, evenly spread
_SAMPLE_BYTES = 16 << 10


def file_fingerprint(path: Path) -> str:
    """Return a hash (hex) of the file at ``path``'s size, its first 4 MiB (a GGUF's header and metadata) and 64 pieces
    of 16 KiB spread evenly over the rest, the last bytes included: about 5 MiB read, milliseconds from the page
    cache, where a full sha256 of a 1 GB model takes seconds. Two models of one architecture and size differ in
    nearly every piece of their weights.

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        digest.update(f"{size}\0".encode())
        digest.update(fh.read(_HEAD_BYTES))
        rest = size - _HEAD_BYTES
        if rest > 0:
            for i in range(_SAMPLES + 1):
                fh.seek(_HEAD_BYTES + max(rest - _SAMPLE_BYTES, 0) * i // _SAMPLES)
                digest.update(fh.read(_SAMPLE_BYTES))
    return digest.hexdigest()


class PromptCache:
    """KV states of prompt prefixes for one model, in a folder.

    Args:
        folder: where the ``.kv`` files live (created on the first write).
        model_key: identifies the model file, context size and llama.cpp build (see the module docs).
        max_entries: the most prefixes kept (oldest deleted first).
        max_bytes: the most bytes kept in the folder for this and other models together.
        min_tokens: shorter prefixes are not worth a file (tokens).
    """

    def __init__(self, folder: Path, model_key: str, *, max_entries: int = 32, max_bytes: int = 512 * 2**20,
                 min_tokens: int = 32) -> None:
        self.folder = folder
        self.model_key = model_key
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.min_tokens = min_tokens
        self._headers: dict[Path, tuple[float, list[int]] | None] = {}

    @staticmethod
    def key_for(path: Path, n_ctx: int, llama_cpp: Any) -> str:
        """Return the model key of GGUF ``path`` loaded with context ``n_ctx`` (tokens) by this llama-cpp-python
        (``llama_cpp``, the module): a string naming the file's content, so that no other file, even one of the
        same name, size and mtime (Nix store files, ``cp -p`` copies, review 138), shares its entries. It holds
        :func:`file_fingerprint` and, when a verification record vouches for the file (a registry model's
        sidecar, free to read), its sha256; else its real path and ``mtime_ns``. No full hash is computed.

        Raises:
            OSError: the file cannot be read.
        """
        from toolwire.models._pull_verify import vouched_sha256

        stat = path.stat()
        digest = vouched_sha256(path)
        identity = f"sha256={digest}" if digest else f"path={os.path.realpath(path)}@{stat.st_mtime_ns}"
        return (f"{path.name}:{stat.st_size}:{file_fingerprint(path)[:32]}:{identity}:{n_ctx}:"
                f"{getattr(llama_cpp, '__version__', '?')}")

    def _file(self, tokens: Sequence[int]) -> Path:
        digest = hashlib.sha256(self.model_key.encode() + b"\0" + json.dumps(list(tokens)).encode()).hexdigest()
        return self.folder / f"{digest[:40]}.kv"

    def _header(self, path: Path) -> list[int] | None:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return None
        known = self._headers.get(path)
        if known is not None and known[0] == mtime:
            return known[1]
        tokens: list[int] | None = None
        unusable = False  # by any toolwire that reads this format: deleted (review 138: it blocked its prefix)
        try:
            with path.open("rb") as fh:
                head = json.loads(fh.readline())
            version = head.get("format")
            if not isinstance(version, int) or isinstance(version, bool) or version < _FORMAT:
                unusable = True  # damaged, or an older toolwire's entry (format 1 used the same file names)
            elif version == _FORMAT and head.get("model") == self.model_key:
                tokens = [int(t) for t in head["tokens"]]
                if self._file(tokens) != path:  # a header changed or damaged: it would load another prompt's state
                    tokens, unusable = None, True
        except OSError:
            tokens = None
        except (ValueError, KeyError, TypeError, AttributeError):  # not a JSON header line of ours
            tokens, unusable = None, True
        if unusable:
            with contextlib.suppress(OSError):
                path.unlink()
        self._headers[path] = (mtime, tokens) if tokens is not None else None
        return tokens

    def longest(self, prompt: Sequence[int]) -> tuple[int, Path] | None:
        """The longest stored prefix of ``prompt`` (its length in tokens and its file), or None."""
        best: tuple[int, Path] | None = None
        try:
            files = list(self.folder.glob("*.kv"))
        except OSError:
            return None
        for path in files:
            tokens = self._header(path)
            if tokens and len(tokens) < len(prompt) and (best is None or len(tokens) > best[0]) \
                    and list(prompt[:len(tokens)]) == tokens:
                best = (len(tokens), path)
        return best

    def restore(self, llama_cpp: Any, llm: Any, prompt: Sequence[int], at_least: int) -> int:
        """Load the longest stored prefix of ``prompt`` into ``llm`` when it is longer than ``at_least``
        tokens (what the KV cache already holds).

        Returns:
            The number of prompt tokens now in the KV cache: the prefix's length; ``at_least`` when nothing
            longer was stored or the file could not be read (the KV cache is left as is); 0 when llama.cpp
            refused the state (the KV cache is then empty, and the file, written by another build or
            configuration, is deleted).
        """
        found = self.longest(prompt)
        if found is None or found[0] <= at_least:
            return at_least
        size, path = found
        try:
            with path.open("rb") as fh:
                head = json.loads(fh.readline())
                data = fh.read()
        except (OSError, ValueError):
            return at_least
        if not data or head.get("sha256") != hashlib.sha256(data).hexdigest():  # cut short or changed on disk: a
            with contextlib.suppress(OSError):  # state that is not the one written would answer without its prompt
                path.unlink()
            return at_least
        ctx = llm._ctx.ctx
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        buf = (ctypes.c_ubyte * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_seq_set_data(ctx, buf, len(data), 0) != len(data):
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            llm.n_tokens = 0
            with contextlib.suppress(OSError):
                path.unlink()  # refused by this build: never try it again
            return 0
        llm.input_ids[:size] = list(prompt[:size])
        llm.n_tokens = size
        llm._requires_eval = True
        with contextlib.suppress(OSError):
            os.utime(path)  # most recently used
        return size

    def store(self, llama_cpp: Any, llm: Any, tokens: Sequence[int]) -> bool:
        """Write the KV state of ``llm``, which must hold exactly ``tokens``, as the entry for ``tokens``.

        Returns:
            Whether a file was written (False: too short, already stored, or the disk refused).
        """
        if len(tokens) < self.min_tokens or llm.n_tokens != len(tokens):
            return False
        path = self._file(tokens)
        if path.exists():  # (an entry no toolwire can use was deleted by _header: written again below)
            if self._header(path) is not None:
                with contextlib.suppress(OSError):
                    os.utime(path)
                return False
            if path.exists():  # a newer toolwire's entry: left to it
                return False
        ctx = llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buf = (ctypes.c_ubyte * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
        if not written:
            return False
        state = bytes(buf)[:written]
        header = json.dumps({"format": _FORMAT, "model": self.model_key, "tokens": list(tokens),
                             "sha256": hashlib.sha256(state).hexdigest()}).encode() + b"\n"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(header)
                fh.write(state)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
            return False
        self._trim()
        return True

    def _trim(self) -> None:
        files = []
        for path in self.folder.glob("*"):
            try:
                stat = path.stat()
            except OSError:  # deleted meanwhile by another process
                continue
            if path.suffix == ".tmp" and stat.st_mtime < time.time() - 3600:  # left by a crashed writer
                with contextlib.suppress(OSError):
                    path.unlink()
            elif path.suffix == ".kv":
                files.append((stat.st_mtime, stat.st_size, path))
        files.sort(reverse=True)
        total = 0
        mine = 0
        for _, size, path in files:
            own = self._header(path) is not None
            if not own and not path.exists():  # deleted as unusable (or by another process)
                continue
            total += size
            mine += own
            if total > self.max_bytes or (own and mine > self.max_entries):
                with contextlib.suppress(OSError):
                    path.unlink()
