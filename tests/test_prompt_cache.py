"""The disk cache of prompt prefixes (toolwire.models._prompt_cache): lookup, eviction, bad files, and on
the tiny model, that a restored prefix gives the same reply as one evaluated again."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from _llama_fixtures import get_weather, smol_fixture  # noqa: F401
from toolwire.models._prompt_cache import PromptCache


class FakeLlm:
    """Enough of llama_cpp.Llama for the cache: input_ids, n_tokens and a KV cache to clear."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(64, dtype=np.intc)
        self.n_tokens = 0
        self.state = b""
        self._ctx = types.SimpleNamespace(ctx=self, kv_cache_seq_rm=lambda *a: None)


def fake_lib() -> types.SimpleNamespace:
    def get_size(ctx, seq):
        return len(ctx.state)

    def get_data(ctx, buf, size, seq):
        ctypes.memmove(buf, ctx.state, len(ctx.state))
        return len(ctx.state)

    def set_data(ctx, buf, size, seq):
        if bytes(buf[:4]) == b"BAD!":
            return 0
        ctx.state = bytes(buf[:size])
        return size

    return types.SimpleNamespace(llama_state_seq_get_size=get_size, llama_state_seq_get_data=get_data,
                                 llama_state_seq_set_data=set_data)


def stored(cache: PromptCache, tokens: list[int], state: bytes) -> Path:
    llm = FakeLlm()
    llm.n_tokens = len(tokens)
    llm.state = state
    assert cache.store(fake_lib(), llm, tokens)
    return cache._file(tokens)


def test_the_longest_stored_prefix_is_restored(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    stored(cache, [1, 2, 3], b"short")
    stored(cache, [1, 2, 3, 4, 5], b"long")
    stored(cache, [9, 9, 9, 9, 9, 9], b"other")
    llm = FakeLlm()
    assert cache.restore(fake_lib(), llm, [1, 2, 3, 4, 5, 6, 7], at_least=0) == 5
    assert llm.state == b"long" and llm.n_tokens == 5 and list(llm.input_ids[:5]) == [1, 2, 3, 4, 5]
    # a prefix no longer than what the KV cache holds is not loaded; a whole prompt is never a prefix
    assert cache.restore(fake_lib(), FakeLlm(), [1, 2, 3, 4, 5, 6], at_least=5) == 5
    assert cache.restore(fake_lib(), FakeLlm(), [1, 2, 3, 4, 5], at_least=0) == 3


def test_entries_of_another_model_or_build_are_ignored(tmp_path: Path) -> None:
    stored(PromptCache(tmp_path, "model-a", min_tokens=2), [1, 2, 3], b"a")
    other = PromptCache(tmp_path, "model-b", min_tokens=2)
    assert other.longest([1, 2, 3, 4]) is None


def test_broken_and_refused_files_are_misses(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=2)
    (tmp_path / "junk.kv").write_bytes(b"\xff\xfe not json\n")
    (tmp_path / "empty.kv").write_bytes(b"")
    assert cache.longest([1, 2, 3]) is None
    bad = stored(cache, [1, 2, 3], b"BAD!state")
    llm = FakeLlm()
    assert cache.restore(fake_lib(), llm, [1, 2, 3, 4], at_least=1) == 0  # refused: KV cleared, file gone
    assert llm.n_tokens == 0 and not bad.exists()


def test_short_prefixes_and_repeats_are_not_written(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=4)
    llm = FakeLlm()
    llm.n_tokens, llm.state = 3, b"x"
    assert not cache.store(fake_lib(), llm, [1, 2, 3])
    stored(cache, [1, 2, 3, 4], b"x")
    llm.n_tokens = 4
    assert not cache.store(fake_lib(), llm, [1, 2, 3, 4])  # already there
    llm.n_tokens = 2
    assert not cache.store(fake_lib(), llm, [5, 6, 7, 8])  # the model does not hold exactly these tokens


def test_oldest_entries_go_first(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "model-a", min_tokens=1, max_entries=3)
    paths = []
    for n in range(5):
        paths.append(stored(cache, [n, n, n], b"s" * 10))
        os.utime(paths[-1], (1000 + n, 1000 + n))
    cache._trim()
    assert [p.exists() for p in paths] == [False, False, True, True, True]
    small = PromptCache(tmp_path, "model-a", min_tokens=1, max_bytes=150)
    small._trim()
    assert sum(p.exists() for p in paths) < 3
    header = json.loads(next(tmp_path.glob("*.kv")).read_bytes().split(b"\n", 1)[0])
    assert header["format"] == 2 and header["model"] == "model-a"


# -- on the tiny model ----------------------------------------------------------------------------------

_SCRIPT = """
import json, sys
from toolwire.models.llamacpp import ChatLlamaCpp
from toolwire.examples.book import get_weather
model = ChatLlamaCpp("smollm2-135m", prompt_cache=sys.argv[1] == "on").bind_tools([get_weather])
reply = model.invoke("What is the weather in Paris?", max_tokens=24)
print(json.dumps({"text": reply.text, "calls": [[c["name"], c["args"]] for c in reply.tool_calls],
                  "cached": reply.usage["cached_tokens"]}))
"""


@pytest.mark.model
def test_a_new_process_reuses_the_system_turn_and_answers_the_same(smol, tmp_path: Path) -> None:
    env = {**os.environ, "TOOLWIRE_HOME": str(tmp_path)}
    models = Path(smol.model_path()).parent
    env["TOOLWIRE_MODEL_PATH"] = str(models)

    def run(mode: str) -> dict:
        out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], env=env, capture_output=True, text=True,
                             timeout=300, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    first, second, off = run("on"), run("on"), run("off")
    assert first["cached"] == 0 and second["cached"] > 50  # the system turn with the tool came from disk
    assert len(list((tmp_path / "prompt-cache").glob("*.kv"))) == 1
    assert second["text"] == first["text"] == off["text"] and second["calls"] == first["calls"] == off["calls"]
