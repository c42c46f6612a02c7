"""Fuzzing the parsers with realistic, seeded model outputs and argument strings.

Inputs are generated deterministically (a seeded ``random.Random`` plus Hypothesis with
``derandomize=True``): valid calls in every dialect, then mutated (cut at random points, tags, quotes and
brackets inserted, slices deleted or repeated), unicode everywhere, and very deep nesting. Nothing may
raise except :class:`ToolCallParseError` from ``normalize_arguments``; every reply must hold well-formed
records with unique ids; unmutated calls must round-trip exactly.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolCallParseError
from toolwire.parsing import DIALECTS, ParsedReply, PartialJSONParser, normalize_arguments, parse_tool_calls

TOOLS = ["get_weather", "get_time", "web_search", "calculate", "brave_search.call"]
MODES = (None, *DIALECTS)
SEED = 20240607
N_OUTPUTS = 6_000  # model outputs, each parsed in the 6 modes
N_ARGUMENTS = 4_000  # argument strings through normalize_arguments
SCHEMA = {"type": "object", "properties": {
    "city": {"type": "string"}, "opts": {"type": "object"},
    "days": {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "array"}}}},
    "nested": {"type": "object", "properties": {"tags": {"type": "array"}}}}}

WORDS = ["Oslo", "Tóquio", "São Paulo", "東京", "🌧 rain", "naïve café", "x", "", "a b c", "Ελλάδα", "null"]
NASTY = ['} ] )', "{x}", '"quoted"', "it's", "back\\slash", "</tool_call>", "<tool_call>", "[TOOL_CALLS]",
         "<|python_tag|>", "[ARGS]", "line\nbreak", "tab\t", "```json", "f(a=1)", "\u2028", "\x00",
         '[{"q": "[1]"}, 2]', '{"a": 1}', "[1, 2]", '"[1]"', "[]", "{}", "<function=f>", "</parameter>"]
MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "```", "<function=")
PROSE = ["", "", "Sure, let me check.", "Vou verificar o tempo.", "東京の天気を調べます。", "Done!",
         "I'll call a tool now:", "Here you go\n", "Thinking... ok.", "Result follows."]
TOKENS = ["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "<|python_tag|>", "<|eom_id|>",
          "```json\n", "```", "{", "}", "[", "]", "(", ")", '"', "'", "\\", ",", ":", ";", "=", "\n", " ", "é",
          "🌧", "\x00", "\ud800", "True", "null", "1e999", "-", "{'name': ", '{"name": "get_weather", ',
          '"arguments": ', '"parameters": {', "get_weather(", "get_time()", "[get_time(), ", "name", "#",
          "<function=", "<function=get_time>", "</function>", "<parameter=", "<parameter=q>", "</parameter>", ">"]
DEEP = [
    "[" * 5000, "{" * 5000, "(" * 5000, '"' * 5000, "'" * 5000, '{"a":' * 5000, "{'a': " * 3000,
    "[f(" * 2000, "[{" * 3000, '[{"name": "get_time", "arguments": {}}, ' * 2000, "<tool_call>" * 2000,
    "<tool_call>{" * 2000, "<tool_call>" + "[" * 5000, "[TOOL_CALLS]" + "[" * 5000, "[TOOL_CALLS]" * 2000,
    "<|python_tag|>" + "{" * 5000, "```json\n" + "[" * 5000 + "\n```", "[get_weather(city=" * 2000,
    '{"name": "get_weather", "arguments": ' + "[" * 5000, "get_weather(city=" + "[" * 5000,
    "[get_weather(city='a'), " * 3000, '{"name": "get_weather", "arguments": {"city": "' + "x" * 100_000,
    "get_weather(" * 3000, "[TOOL_CALLS]get_time[ARGS]" * 2000, '{"' * 5000, "```" * 5000,
]

counts = {"outputs": 0, "parses": 0, "arguments": 0}


def check(reply: ParsedReply) -> None:
    assert isinstance(reply, ParsedReply)
    assert isinstance(reply.content, str) and reply.content == reply.content.strip()
    ids = []
    for call in reply.tool_calls:
        assert list(call) == ["name", "args", "id", "type"] and call["type"] == "tool_call"
        assert call["name"] in TOOLS and isinstance(call["args"], dict)
        json.dumps(call["args"], allow_nan=False, ensure_ascii=False).encode("utf-8")  # strict JSON, UTF-8
        ids.append(call["id"])
    for bad in reply.invalid_tool_calls:
        assert list(bad) in (["name", "args", "id", "error", "type"], ["name", "args", "id", "error", "type", "index"])
        assert bad["type"] == "invalid_tool_call" and type(bad.get("index", 0)) is int  # index: a valid call follows
        assert bad["name"] is None or isinstance(bad["name"], str)
        assert bad["args"] is None or isinstance(bad["args"], str)
        assert isinstance(bad["error"], str) and bad["error"]
        ids.append(bad["id"])
    assert all(isinstance(i, str) and i for i in ids)
    assert len(set(ids)) == len(ids)


def parse_all(text: str) -> dict[Any, ParsedReply]:
    out = {}
    for mode in MODES:
        reply = parse_tool_calls(text, TOOLS, mode)
        check(reply)
        out[mode] = reply
        counts["parses"] += 1
    counts["outputs"] += 1
    return out


def normalize(raw: Any) -> None:
    counts["arguments"] += 1
    for schema in (None, SCHEMA):
        try:
            result = normalize_arguments(raw, schema)
        except ToolCallParseError as exc:
            assert exc.raw is raw and str(exc)
        else:
            assert isinstance(result, dict)
            json.dumps(result, allow_nan=False, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------------- generation


def gen_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return rng.choice(WORDS + NASTY)
    if kind == 1:
        return rng.randint(-10**6, 10**6)
    if kind == 2:
        return round(rng.uniform(-1e3, 1e3), 3)
    if kind == 3:
        return rng.choice([True, False, None])
    if kind in (4, 5):
        return rng.choice(WORDS)
    if kind in (6, 7):
        return [gen_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return gen_args(rng, depth + 1)


def gen_args(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    keys = ["city", "q", "tz", "expression", "days", "opts", "a_b", "ñ"]
    return {rng.choice(keys): gen_value(rng, depth) for _ in range(rng.randrange(4))}


def gen_calls(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    return [(rng.choice(TOOLS[:4]), gen_args(rng)) for _ in range(rng.randint(1, 3))]


def dumps(rng: random.Random, value: Any) -> str:
    return json.dumps(value, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, None, 2]))


def render(rng: random.Random, calls: list[tuple[str, dict[str, Any]]]) -> tuple[str, str]:
    """Write ``calls`` in a random dialect; return ``(dialect, text of the calls)``."""
    style = rng.choice(["hermes", "tag", "bare", "list", "fence", "pydict", "mistral_list", "mistral_args",
                        "pythonic", "function_tag"])
    objs = [{"name": n, "arguments": a} for n, a in calls]
    if style == "function_tag":  # Qwen3-Coder's XML parameters when every value is plain text, else Llama 3.1's
        xml = all(isinstance(v, str) and "<" not in v for _, a in calls for v in a.values())
        blocks = [f"<tool_call>\n<function={n}>\n" + "".join(f"<parameter={k}>\n{v}\n</parameter>\n"
                                                            for k, v in a.items()) + "</function>\n</tool_call>"
                  if xml else f"<function={n}>{dumps(rng, a)}</function>" for n, a in calls]
        return "function_tag", "\n".join(blocks)
    if style == "hermes":
        blocks = [f"<tool_call>\n{dumps(rng, o)}\n" + ("</tool_call>" if rng.random() < 0.8 else "")
                  for o in objs]
        return "hermes", "\n".join(blocks)
    if style == "tag":
        body = "; ".join(dumps(rng, {"name": n, "parameters": a}) for n, a in calls)
        return "json", "<|python_tag|>" + body + rng.choice(["", "<|eom_id|>", "<|eot_id|>"])
    if style == "bare":
        return "json", "\n".join(dumps(rng, o) for o in objs)
    if style == "list":
        return "json", dumps(rng, objs)
    if style == "fence":
        return "json", "```json\n" + dumps(rng, objs if len(objs) > 1 else objs[0]) + "\n```"
    if style == "pydict":
        return "json", repr(objs[0]) if len(objs) == 1 else repr(objs)
    if style == "mistral_list":
        return "mistral", "[TOOL_CALLS] " + dumps(rng, objs)
    if style == "mistral_args":
        return "mistral", "".join(f"[TOOL_CALLS]{n}[ARGS]{dumps(rng, a)}" for n, a in calls)
    parts = [f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls]
    if len(parts) == 1 and rng.random() < 0.5:
        return "pythonic", parts[0]
    return "pythonic", "[" + ", ".join(parts) + "]"


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        i = rng.randrange(len(text) + 1)
        if op == 0:
            text = text[:i]  # cut off, as a stream stopped by max_tokens
        elif op == 1:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif op == 2:
            j = min(len(text), i + rng.randint(1, 8))
            text = text[:i] + text[j:]
        elif op == 3:
            j = min(len(text), i + rng.randint(1, 30))
            text = text[:j] + text[i:j] + text[j:]
        elif op == 4:
            text = text.replace('"', "'", rng.randint(1, 3))
        else:
            text = text[:i] + "".join(rng.choice(TOKENS) for _ in range(rng.randint(2, 6))) + text[i:]
    return text


# --------------------------------------------------------------------------------- the fuzz tests


def test_fuzz_generated_model_outputs():
    rng = random.Random(SEED)
    round_trips = 0
    for n in range(N_OUTPUTS):
        calls = gen_calls(rng)
        dialect, body = render(rng, calls)
        text = f"{rng.choice(PROSE)} {body} {rng.choice(PROSE)}" if rng.random() < 0.7 else body
        if n % 3 == 0:
            replies = parse_all(text)
            expected = [(name, json.loads(json.dumps(args))) for name, args in calls]
            got = [(c["name"], c["args"]) for c in replies[dialect].tool_calls]
            if body.startswith("{'") and "'" in json.dumps(expected):
                continue  # an apostrophe in repr() output may switch quotes; checked below anyway
            assert got == expected, (dialect, text)
            foreign = [m for m in MARKERS if m in json.dumps(expected) or (m == "```" and m in text)]
            if not foreign:
                assert [(c["name"], c["args"]) for c in replies[None].tool_calls] == expected, text
            round_trips += 1
        else:
            parse_all(mutate(rng, text))
    assert round_trips > 1_500


def test_fuzz_generated_argument_strings():
    rng = random.Random(SEED + 1)
    for _ in range(N_ARGUMENTS):
        args = gen_args(rng)
        choice = rng.randrange(6)
        if choice == 0:
            raw: Any = dumps(rng, args)
            assert normalize_arguments(raw) == json.loads(raw)
        elif choice == 1:
            raw = json.dumps(dumps(rng, args))  # double-encoded
            assert normalize_arguments(raw) == args
        elif choice == 2:
            raw = repr(args)  # Python literal
            assert normalize_arguments(raw) == json.loads(json.dumps(args))
        else:
            raw = mutate(rng, dumps(rng, args))
        normalize(raw)
        normalize(args)


def test_fuzz_deep_nesting_and_huge_inputs():
    for text in DEEP:
        parse_all(text)
        normalize(text)
        parser = PartialJSONParser()
        parser.feed(text, build=False)
        parser.value()


# Hypothesis: arbitrary text and token soups (derandomized, so runs are repeatable).

token_soup = st.lists(st.sampled_from(TOKENS + WORDS + NASTY), max_size=25).map("".join)


@settings(derandomize=True, max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(max_size=200), token_soup))
def test_hypothesis_text_never_crashes(text):
    parse_all(text)
    normalize(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(json_values, st.lists(st.integers(min_value=0, max_value=10_000), max_size=12), st.booleans())
def test_hypothesis_partial_json_streams(value, cuts, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    parser = PartialJSONParser()
    for a, b in itertools.pairwise(points):
        parser.feed(text[a:b])  # every prefix gives a value without raising
    assert parser.scanned == len(text) and parser.error is None
    assert parser.value() == value
    counts["arguments"] += 1
    if isinstance(value, dict):
        assert normalize_arguments(text) == value


@settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(st.sampled_from(["city", "q", "n"]), json_values, max_size=3),
       st.sampled_from(["hermes", "json", "mistral", "pythonic", "function_tag"]), st.integers(min_value=0))
def test_hypothesis_calls_round_trip_or_fail_cleanly(args, dialect, cut):
    rng = random.Random(cut)
    body = {
        "hermes": f"<tool_call>{json.dumps({'name': 'get_time', 'arguments': args})}</tool_call>",
        "json": json.dumps({"name": "get_time", "parameters": args}),
        "mistral": f"[TOOL_CALLS]get_time[ARGS]{json.dumps(args)}",
        "pythonic": "[get_time(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")]",
        "function_tag": f"<function=get_time>{json.dumps(args)}</function>",
    }[dialect]
    replies = parse_all(body)
    assert [(c["name"], c["args"]) for c in replies[dialect].tool_calls] == [("get_time", args)]
    parse_all(body[: cut % (len(body) + 1)])
    parse_all(mutate(rng, body))


# Review 3 #6, #10: whatever the text, what the parsers return can be sent on as strict JSON in UTF-8 (no
# NaN/Infinity, no lone surrogates from "\ud83d" escapes read the Python way or cut off).

ESCAPES = ["\\ud83d", "\\ude00", "\\ud83d\\ude00", "\\/", "\\\\", "NaN", "Infinity", "-Infinity", "1e999",
           "-1e400", "1.5", ",}", ",]", ", ", "true", "null", "True", "None", "'", '"', "}", "]", ")", "é😀"]
TEMPLATES = [
    '<tool_call>{{"name": "get_weather", "arguments": {{"city": "{0}", "n": {1}}}}}</tool_call>',
    '<tool_call>\n{{"name": "get_time", "arguments": {{"tz": "{0}"}}}}\n{{"name": "calculate", "arguments": {{"x": {1}'
    "}}}}\n</tool_call>",
    '{{"name": "calculate", "arguments": {{"expression": "{0}", "x": {1},}}}}',
    "{{'name': 'get_weather', 'arguments': {{'city': '{0}', 'n': {1}}}}}",
    '[{{"name": "get_time", "arguments": {{"tz": "{0}"}}}}, {{"name": "calculate", "arguments": {{"x": {1}',
    '[TOOL_CALLS][{{"name": "calculate", "arguments": {{"x": {1}, "s": "{0}"}}}},]',
    '[TOOL_CALLS]get_weather[ARGS]{{"city": "{0}", "n": {1}}}',
    '<|python_tag|>{{"name": "get_weather", "parameters": {{"city": "{0}", "n": {1}}}}}',
    '[get_weather(city="{0}", n={1}), calculate(expression=\'{0}\')]',
    'calculate(expression="{0}", x={1})',
]
escape_soup = st.lists(st.sampled_from(ESCAPES + WORDS), max_size=6).map("".join)
strict_texts = st.one_of(
    st.text(max_size=200),  # no surrogate characters: the input itself is valid UTF-8
    st.lists(st.sampled_from([t for t in TOKENS if t != "\ud800"] + ESCAPES + WORDS), max_size=25).map("".join),
    st.builds(lambda template, a, b, cut: template.format(a, b)[: cut or None], st.sampled_from(TEMPLATES),
              escape_soup, escape_soup, st.integers(min_value=0, max_value=200)),
)


@settings(derandomize=True, max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(strict_texts)
def test_hypothesis_parse_results_are_strict_json_in_utf8(text):
    for reply in parse_all(text).values():
        json.dumps(reply._asdict(), allow_nan=False, ensure_ascii=False).encode("utf-8")
    for schema in (None, SCHEMA):
        try:
            args = normalize_arguments(text, schema)
        except ToolCallParseError as exc:
            str(exc).encode("utf-8")
        else:
            json.dumps(args, allow_nan=False, ensure_ascii=False).encode("utf-8")


def test_zzz_fuzz_volume():
    """The seeded inputs alone exceed 10,000; Hypothesis adds more (counted when run in this process)."""
    assert N_OUTPUTS + 2 * N_ARGUMENTS >= 10_000
    assert counts["parses"] == counts["outputs"] * len(MODES)
    if counts["outputs"] >= N_OUTPUTS:  # the whole file ran here (not split across workers)
        assert counts["outputs"] + counts["arguments"] >= 10_000
