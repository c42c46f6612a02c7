"""Where B9's time goes: toolwire's three full cycles of the book's questions, call by call, and llama.cpp's raw
prompt evaluation speed with and without flash attention.

``python benchmarks/profile_b9.py`` (the default model, pulled if needed; about a minute). For each model call it
prints the seconds, the prompt tokens (and how many were reused from the KV cache) and the tokens written, as B9
runs them (``ChatLlamaCpp(prompt_cache=False)``, ``TOOLWIRE_BENCH_THREADS`` or all cores); then the tokens per
second of evaluating a 300-token prompt with ``llama_cpp.Llama`` as toolwire loads it, and with
``flash_attn=True`` (best of two).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_model import FUNCTIONS, QUESTIONS, THREADS


def cycles() -> Path:
    from toolwire import HumanMessage, tool
    from toolwire.models import ChatLlamaCpp

    llm = ChatLlamaCpp(n_threads=THREADS, prompt_cache=False)
    llm.load()
    tools = [tool(f) for f in FUNCTIONS]
    bound = llm.bind_tools(tools)
    by_name = {t.name: t for t in tools}
    total = 0.0
    for number, question in enumerate(QUESTIONS, 1):
        messages: list = [HumanMessage(question)]
        for turn in ("call", "answer"):
            start = time.perf_counter()
            reply = bound.invoke(messages)
            seconds = time.perf_counter() - start
            total += seconds
            usage = reply.usage_metadata
            print(f"Q{number} {turn:6s} {seconds:5.2f} s  prompt {usage['input_tokens']} tokens "
                  f"({usage.get('cached_tokens', 0)} reused)  wrote {usage['output_tokens']}")
            messages.append(reply)
            if not reply.tool_calls:
                break
            messages += [by_name[call["name"]].invoke(call) for call in reply.tool_calls]
    print(f"total {total:.2f} s")
    return llm.model_path()


def prefill(path: Path) -> None:
    import llama_cpp

    for options in ({}, {"flash_attn": True}):
        llm = llama_cpp.Llama(str(path), n_ctx=8192, n_threads=THREADS, n_threads_batch=THREADS, n_batch=512,
                              verbose=False, **options)
        tokens = llm.tokenize(("The quick brown fox jumps over the lazy dog. " * 40).encode())[:300]
        best = float("inf")
        for _ in range(2):
            llm.reset()
            llm._ctx.kv_cache_clear()
            start = time.perf_counter()
            llm.eval(tokens)
            best = min(best, time.perf_counter() - start)
        print(f"prompt evaluation {options or 'as toolwire loads it'}: {len(tokens) / best:.1f} tokens/s")
        del llm


if __name__ == "__main__":
    prefill(cycles())
