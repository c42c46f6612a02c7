"""B7, B8, B9: the embedded model, ChatLlamaCpp (wall clock, in one process).

Needs llama-cpp-python and the default GGUF (``toolwire models pull``); B9's peer also needs
langchain-community and langchain-core. Each call is seconds long, so runs are timed with
``time.perf_counter``, taking turns with their peer, and medians are reported.

* B7: the second model call of a conversation (after a tool result), which reuses the KV cache of the
  first, against the same call after the cache is cleared. Goal: at most 0.5x.
* B8: generation speed (tokens per second) of ChatLlamaCpp on a fixed prompt, against raw
  llama-cpp-python ``create_completion`` on the same rendered prompt and the same loaded model.
  Goal: at least 0.95x.
* B9: the book's three questions, full cycle (call, run the tools, call again) as in
  ``examples/chapter13.py``, against the same questions through LangChain's ChatLlamaCpp
  (langchain-community) on the same GGUF, same threads, greedy decoding, same n_ctx and max_tokens,
  in three set-ups (see ``LC_SETUPS``); toolwire is compared with the fastest of them and with the
  most right answers any of them got. Goal: faster in total, and with more right answers.

Threads: all cores, or ``TOOLWIRE_BENCH_THREADS`` (``run.py --model-threads``); on a machine where
another process keeps a core busy, llama.cpp's threads wait for each other and one thread gives the
steadier ratios. B7 and B8 report the best of their repeats (other load only ever slows a run).

Run alone: ``python benchmarks/bench_model.py [--json OUT] [--only B7,B9] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Result, dump, fmt_time, median, skipped

QUESTIONS = [
    "Como está o clima em Paris?",
    "Quanto é 123 multiplicado por 456?",
    "Como está o clima em Tóquio e quanto é 123 * 456?",
]
B8_PROMPT = "Write the numbers from one to two hundred in English words, separated by commas."
B8_TOKENS = 96
THREADS = int(os.environ.get("TOOLWIRE_BENCH_THREADS") or 0) or os.cpu_count() or 1


def get_weather(city: str) -> str:
    """Obtém o clima atual de uma determinada cidade."""
    return f"It's always sunny in {city}!"


def calculate(expression: str) -> str:
    """Avalia uma expressão aritmética simples como '123 * 456'."""
    from toolwire.examples.arith import evaluate

    return str(evaluate(expression))


def search_web(query: str) -> str:
    """Pesquisa na web informações atuais sobre um tópico."""
    return f"Top result for '{query}': ..."


FUNCTIONS = [get_weather, calculate, search_web]


def is_right(question: int, answer: str) -> bool:
    """Whether the final answer to question ``question`` (0-2) holds the facts the tools gave."""
    digits = re.sub(r"(?<=\d)[.,\s\u00a0\u202f](?=\d{3})", "", answer)
    product = "56088" in digits
    # the tool said "It's always sunny in <city>!"; a reply in Portuguese may say so in several ways
    sunny = re.search(r"sunny|ensolarad|\bsol\b|\bclaro\b|c[ée]u limpo|clear|☀", answer, re.IGNORECASE) is not None
    return [sunny, product, sunny and product][question]


# -- B7 ------------------------------------------------------------------------------------------------


def b7(repeat: int) -> list[Result]:
    from toolwire import HumanMessage, tool
    from toolwire.models import ChatLlamaCpp

    llm = ChatLlamaCpp(n_threads=THREADS, prompt_cache=False)  # "cleared" means nothing cached at all
    tools = [tool(f) for f in FUNCTIONS]
    bound = llm.bind_tools(tools)
    question = [HumanMessage(QUESTIONS[0])]
    first = bound.invoke(question)
    if not first.tool_calls:
        return [Result("B7", "second call of a conversation (after a tool result), KV cache reused",
                       "the same call with the KV cache cleared", None, "", "<= 0.5", False,
                       f"the model made no tool call: {first.content[:80]!r}")]
    tool_map = {t.name: t for t in tools}
    conversation = [*question, first, *(tool_map[c["name"]].invoke(c) for c in first.tool_calls)]
    llm_cpp = llm.load().llm
    warm: list[float] = []
    cold: list[float] = []
    cached: list[int] = []
    replies = set()
    for _ in range(repeat):
        llm_cpp.reset()
        bound.invoke(question)  # the first call again: the cache now holds it, as in a conversation
        start = time.perf_counter()
        reply = bound.invoke(conversation)
        warm.append(time.perf_counter() - start)
        cached.append((reply.usage or {}).get("cached_tokens", 0))
        replies.add(reply.content)
        llm_cpp.reset()  # no cached prefix: the whole prompt is processed again
        start = time.perf_counter()
        reply = bound.invoke(conversation)
        cold.append(time.perf_counter() - start)
        replies.add(reply.content)
    ratio = min(warm) / min(cold)  # best of N: other load on the machine only ever slows a run down
    usage = reply.usage or {}
    return [Result("B7", "ChatLlamaCpp: second call of a conversation (after a tool result)",
                   "the same call with the KV cache cleared", ratio, "cache reused / cache cleared", "<= 0.5",
                   ratio <= 0.5,
                   f"reused {fmt_time(min(warm))} ({median(cached):.0f} of {usage.get('input_tokens')} prompt "
                   f"tokens cached), cleared {fmt_time(min(cold))} (medians {fmt_time(median(warm))} / "
                   f"{fmt_time(median(cold))}); {usage.get('output_tokens')} tokens out; "
                   f"same reply both ways: {len(replies) == 1}; best of {repeat}, {THREADS} threads")]


# -- B8 ------------------------------------------------------------------------------------------------


def b8(repeat: int) -> list[Result]:
    from toolwire import HumanMessage
    from toolwire.models import ChatLlamaCpp

    llm = ChatLlamaCpp(n_threads=THREADS, max_tokens=B8_TOKENS)
    loaded = llm.load()
    messages = [HumanMessage(B8_PROMPT)]
    prompt = loaded.render(llm.dialect_for(loaded, 0).render(messages, (), tool_choice="auto"))
    raw_llm = loaded.llm

    def ours() -> tuple[int, str]:
        reply = llm.invoke(messages)
        return (reply.usage or {}).get("output_tokens", 0), reply.content

    def raw() -> tuple[int, str]:
        out = raw_llm.create_completion(prompt, max_tokens=B8_TOKENS, temperature=0.0, top_k=40, top_p=0.95,
                                        min_p=0.05, repeat_penalty=1.0)
        return out["usage"]["completion_tokens"], out["choices"][0]["text"]

    speeds: dict[str, list[float]] = {"toolwire": [], "raw": []}
    texts: dict[str, str] = {}
    for round_ in range(repeat):
        pair = (("toolwire", ours), ("raw", raw))
        for name, func in pair if round_ % 2 == 0 else pair[::-1]:  # each side first in turn: no order bias
            raw_llm.reset()  # both process the same prompt from scratch
            start = time.perf_counter()
            tokens, text = func()
            speeds[name].append(tokens / (time.perf_counter() - start))
            texts[name] = text
    ratio = max(speeds["toolwire"]) / max(speeds["raw"])  # best of N, as in B7
    same = texts["toolwire"].strip() == texts["raw"].strip()
    return [Result("B8", "ChatLlamaCpp generation speed, fixed prompt",
                   "raw llama-cpp-python create_completion, same rendered prompt and model", ratio,
                   "toolwire tokens/s / raw tokens/s", ">= 0.95", ratio >= 0.95,
                   f"toolwire {max(speeds['toolwire']):.1f} tok/s, raw {max(speeds['raw']):.1f} tok/s "
                   f"(medians {median(speeds['toolwire']):.1f} / {median(speeds['raw']):.1f}; {B8_TOKENS} tokens, "
                   f"prompt included); same text: {same}; best of {repeat}, {THREADS} threads")]


# -- B9 ------------------------------------------------------------------------------------------------


def _toolwire_cycle() -> Any:
    from toolwire import HumanMessage, tool
    from toolwire.models import ChatLlamaCpp

    started = time.perf_counter()
    # no disk prompt cache: the first question processes the tools' system turn, as LangChain's side does
    llm = ChatLlamaCpp(n_threads=THREADS, prompt_cache=False)
    llm.load()
    load = time.perf_counter() - started
    tools = [tool(f) for f in FUNCTIONS]
    llm_with_tools = llm.bind_tools(tools)
    tool_map = {t.name: t for t in tools}

    def ask(question: str) -> tuple[str, list[Any]]:
        messages = [HumanMessage(question)]
        ai_msg = llm_with_tools.invoke(messages)
        messages.append(ai_msg)
        if not ai_msg.tool_calls:
            return ai_msg.content, []
        for call in ai_msg.tool_calls:
            messages.append(tool_map[call["name"]].invoke(call))
        return llm_with_tools.invoke(messages).content, ai_msg.tool_calls

    return ask, load


# LangChain's ChatLlamaCpp has no one obvious tool-calling set-up, so B9 runs three and compares toolwire
# with the best of them on each count (the fastest total, the most right answers):
LC_SETUPS = {
    # the book's code unchanged: bind_tools, the GGUF's own chat template (LangChain's default)
    "template": (None, False),
    # llama-cpp-python's tool-calling handler, with bind_tools (which passes no tool_choice, and the
    # handler's "no tool choice" case then leaves the tools out of the prompt)
    "fc": ("chatml-function-calling", False),
    # the same handler with tool_choice="auto", which bind_tools refuses, so bound with Runnable.bind
    "fc-auto": ("chatml-function-calling", True),
}


def _langchain_cycle(model_path: Path, chat_format: str | None, auto: bool) -> Any:
    from langchain_community.chat_models import ChatLlamaCpp as LCChatLlamaCpp
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    started = time.perf_counter()
    kwargs = {"chat_format": chat_format} if chat_format else {}
    llm = LCChatLlamaCpp(model_path=str(model_path), n_ctx=8192, n_threads=THREADS, n_batch=512, temperature=0.0,
                         max_tokens=512, verbose=False, model_kwargs=kwargs)
    load = time.perf_counter() - started
    tools = [tool(f) for f in FUNCTIONS]
    if auto:
        llm_with_tools = llm.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice="auto")
    else:
        llm_with_tools = llm.bind_tools(tools)
    tool_map = {t.name: t for t in tools}

    def ask(question: str) -> tuple[str, list[Any]]:
        messages: list[Any] = [HumanMessage(question)]
        ai_msg = llm_with_tools.invoke(messages)
        messages.append(ai_msg)
        if not ai_msg.tool_calls:
            return str(ai_msg.content), []
        for call in ai_msg.tool_calls:
            messages.append(tool_map[call["name"]].invoke(call))
        return str(llm_with_tools.invoke(messages).content), ai_msg.tool_calls

    return ask, load


def b9(model_path: Path, setups: list[str], log: list[str]) -> list[Result]:
    try:
        import langchain_community  # noqa: F401
        import langchain_core  # noqa: F401
    except ImportError as exc:
        return [skipped("B9", "the book's three questions, full cycle", "LangChain ChatLlamaCpp, same GGUF",
                        "faster, more right", f"{exc.name} is not installed (pip install langchain-community)")]
    sides: dict[str, Any] = {}
    loads: dict[str, float] = {}
    sides["toolwire"], loads["toolwire"] = _toolwire_cycle()
    for name in setups:
        sides[f"LangChain {name}"], loads[f"LangChain {name}"] = _langchain_cycle(model_path, *LC_SETUPS[name])
    totals = dict.fromkeys(sides, 0.0)
    right = dict.fromkeys(sides, 0)
    for index, question in enumerate(QUESTIONS):
        for name, ask in sides.items():  # each side in turn, question by question
            start = time.perf_counter()
            try:
                answer, calls = ask(question)
            except Exception as exc:  # a side that fails a question gets no point for it
                answer, calls = f"<{type(exc).__name__}: {exc}>", []
            totals[name] += time.perf_counter() - start
            good = is_right(index, answer)
            right[name] += good
            shown = [(c["name"], c["args"]) for c in calls]
            log.append(f"B9 {name} Q{index + 1} {'right' if good else 'WRONG'} "
                       f"{time.perf_counter() - start:.1f}s calls={shown} answer={answer[:160]!r}")
    peers = [name for name in sides if name != "toolwire"]
    fastest = min(peers, key=lambda n: totals[n])
    most_right = max(right[n] for n in peers)
    ratio = totals["toolwire"] / totals[fastest]
    ok = ratio < 1 and right["toolwire"] > most_right
    detail = "; ".join(f"{n}: {fmt_time(totals[n])}, {right[n]}/3 right" for n in sides)
    results = [Result("B9", "the book's three questions, full cycle, embedded default model",
                      f"LangChain ChatLlamaCpp (langchain-community), same GGUF, best of {len(peers)} set-ups", ratio,
                      f"toolwire total / fastest LangChain set-up ({fastest})", "< 1, more right answers", ok,
                      f"{detail} (model loads not counted; {THREADS} threads)")]
    if "LangChain template" in totals:  # the book's code unchanged, LangChain's default set-up
        plain = totals["toolwire"] / totals["LangChain template"]
        results.append(Result(
            "B9b", "the same, against the book's code unchanged", "LangChain ChatLlamaCpp, template set-up (default)",
            plain, "toolwire total / LangChain template total", "< 1, more right answers",
            plain < 1 and right["toolwire"] > right["LangChain template"],
            f"toolwire {fmt_time(totals['toolwire'])}, {right['toolwire']}/3 right; LangChain template "
            f"{fmt_time(totals['LangChain template'])}, {right['LangChain template']}/3 right"))
    return results


def run(repeat: int = 3, setups: list[str] | None = None, only: set[str] | None = None,
        log: list[str] | None = None) -> list[Result]:
    log = log if log is not None else []
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        why = "llama-cpp-python is not installed in this interpreter (pass --model-python)"
        return [skipped(i, "embedded model", "", "", why) for i in ("B7", "B8", "B9")]
    from toolwire.models.pull import find_model

    path = find_model()
    if path is None:
        return [skipped(i, "embedded model", "", "", "the default model is not pulled (toolwire models pull)")
                for i in ("B7", "B8", "B9")]
    results: list[Result] = []
    for name, func in (("B7", lambda: b7(repeat)), ("B8", lambda: b8(repeat)),
                       ("B9", lambda: b9(path, setups or list(LC_SETUPS), log))):
        if only and name not in only:
            continue
        started = time.perf_counter()
        results.extend(func())
        log.append(f"{name} took {time.perf_counter() - started:.0f} s")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description="B7-B9 (the embedded model).")
    parser.add_argument("--json", help="write the results here as JSON")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="comma-separated subset, e.g. B7,B9")
    parser.add_argument("--lc-setups", default=",".join(LC_SETUPS),
                        help=f"LangChain set-ups for B9, from {', '.join(LC_SETUPS)}")
    opts = parser.parse_args()
    log: list[str] = []
    only = set(opts.only.split(",")) if opts.only else None
    results = run(opts.repeat, opts.lc_setups.split(","), only, log)
    for line in log:
        print(line, file=sys.stderr)
    if opts.json:
        Path(opts.json).write_text(json.dumps({"results": json.loads(dump(results)), "log": log}))
    for r in results:
        shown = f"{r.ratio:.3f}" if r.ratio is not None else "-"
        print(f"{r.id}: {shown} ({r.ratio_of}; goal {r.goal}: {r.verdict}) {r.context}")


if __name__ == "__main__":
    main()
