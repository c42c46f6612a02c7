"""Review 269 #4-#5.

#4: argument text written as a Python dict (a native call's ``function.arguments``, ``tool.invoke``'s ``args``) reads
an int, float, bool or None dict key as a call written as a Python dict does (``{3: 'North'}`` -> ``{"3": "North"}``),
and names a set, a tuple key or two keys of one text in its error.

#5: the 400 a Mistral-family server answers for a tool call id that is not 9 letters and digits (a Mistral model
served under a name toolwire does not know as Mistral's) says to pass ``ChatOpenAI(..., mistral_call_ids=True)``, and
is not retried; the command line, which has no such option, says to give the model a Mistral name instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests._queued_http import QueuedServer, serving

from toolwire import Agent, AIMessage, ToolExecutor, tool
from toolwire.errors import ProviderError, ToolCallParseError
from toolwire.models import ChatOpenAI
from toolwire.parsing import parse_tool_calls
from toolwire.parsing.arguments import normalize_arguments, tool_call_from_native


@tool
def zones(names: dict[int, str], final: bool = False) -> str:
    """Name the zones by number."""
    return repr(names)


# ------------------------------------------------------------------------------------------- #4: dict keys


@pytest.mark.parametrize(("text", "expected"), [
    ("{'names': {3: 'North'}}", {"names": {"3": "North"}}),
    ("{'names': {-1: 'South', 2.5: 'x'}, 'final': True}", {"names": {"-1": "South", "2.5": "x"}, "final": True}),
    ("{'names': {None: 'a', False: 'b'}}", {"names": {"null": "a", "false": "b"}}),
    ("{'names': {123456789012345678901234567890: 'a'}}", {"names": {"123456789012345678901234567890": "a"}}),
    ("{'names': {3: 'North', 'x': {4: {5: 'deep'}}}}", {"names": {"3": "North", "x": {"4": {"5": "deep"}}}}),
])
def test_python_dict_argument_text_reads_scalar_keys_as_a_python_dict_call_does(text: str, expected: Any) -> None:
    assert normalize_arguments(text) == expected
    assert normalize_arguments(json.dumps(text)) == expected  # (double-encoded: a JSON string holding the dict)
    in_reply = parse_tool_calls(f"{{'name': 'zones', 'arguments': {text}}}", tool_names=["zones"])
    assert [c["args"] for c in in_reply.tool_calls] == [expected]


def test_native_call_and_tool_invoke_run_with_an_int_key() -> None:
    call = tool_call_from_native("zones", "{'names': {3: 'North'}, 'final': True}", "call_1")
    assert call["type"] == "tool_call" and call["args"] == {"names": {"3": "North"}, "final": True}
    assert ToolExecutor([zones]).execute(AIMessage("", tool_calls=[call]))[0].content == "{3: 'North'}"
    given = {"name": "zones", "args": "{'names': {3: 'North', 4: 'South'}}", "id": "c1", "type": "tool_call"}
    assert zones.invoke(given).content == "{3: 'North', 4: 'South'}"


@pytest.mark.parametrize(("text", "named"), [
    ("{'names': {1: 'a', '1': 'b'}}", "two keys of the same text ('1')"),
    ("{'names': {(1, 2): 'a'}}", "a key that is not a string, number, True, False or None ((1, 2))"),
    ("{'names': {1e400: 'a'}}", "a key that is not a string, number, True, False or None (inf)"),
    ("{'names': {3: {1, 2}}}", "a set value"),
    ("{'names': {3: b'North'}}", "a bytes value"),
])
def test_values_json_cannot_carry_are_named_as_in_a_python_dict_call(text: str, named: str) -> None:
    with pytest.raises(ToolCallParseError) as caught:
        normalize_arguments(text)
    message = str(caught.value)
    assert f"hold {named}, which JSON cannot carry" in message
    assert "write lists for sets, and strings or numbers for dict keys" in message
    in_reply = parse_tool_calls(f"{{'name': 'zones', 'arguments': {text}}}", tool_names=["zones"])
    assert f"holds {named}, which JSON cannot carry" in in_reply.invalid_tool_calls[0]["error"]
    invalid = tool_call_from_native("zones", text, "call_1")
    assert invalid["type"] == "invalid_tool_call" and named in (invalid["error"] or "")


def test_a_key_given_twice_as_int_and_bool_is_refused() -> None:
    with pytest.raises(ToolCallParseError, match="given twice"):
        normalize_arguments("{'names': {1: 'a', True: 'b'}}")


# ----------------------------------------------------------------------------------- #5: Mistral call ids

_MISTRAL_COMMON = "Tool call id was {bad} but must be a-z, A-Z, 0-9, with a length of 9."
"""mistral_common's refusal (Mistral's API, vLLM in Mistral mode: HTTP 400)."""
_HF_TEMPLATE = "Tool call IDs should be alphanumeric strings with length 9!"
"""The refusal of Mistral's Hugging Face chat templates (vLLM with the HF tokenizer, llama-server --jinja)."""


@tool
def web_search(q: str) -> str:
    """Search the web."""
    return "It rains in Oslo."


def _answer(status: int, text: str) -> Any:
    def answer(body: Any, n: int) -> Any:
        ids = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
        if any(len(i) != 9 or not i.isalnum() for i in ids):
            return status, {"object": "error", "message": text.format(bad=ids[0]), "type": "BadRequestError",
                            "param": None, "code": status}
        content = ('[TOOL_CALLS][{"name": "web_search", "arguments": {"q": "rain"}}]' if n == 0
                   else "It rains in Oslo.")
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "local",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}]}
    return answer


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        yield found


@pytest.mark.parametrize(("status", "text"), [(400, _MISTRAL_COMMON), (400, _HF_TEMPLATE), (500, _HF_TEMPLATE)])
def test_the_id_refusal_names_mistral_call_ids_and_is_not_retried(server: QueuedServer, status: int,
                                                                    text: str) -> None:
    server.answer = _answer(status, text)
    llm = ChatOpenAI(model="local", base_url=server.url, max_retries=2)
    with pytest.raises(ProviderError) as caught:
        Agent(llm, [web_search]).invoke("Is it raining in Oslo?")
    error = caught.value
    assert "ChatOpenAI(..., mistral_call_ids=True)" in str(error)
    assert not error.retryable and len(server.requests) == 2  # (the same ids get the same refusal)
    command_line = error.without_api_advice()
    assert "ChatOpenAI" not in command_line and "give the model a name with mistral in it" in command_line


def test_the_advice_works(server: QueuedServer) -> None:
    server.answer = _answer(400, _MISTRAL_COMMON)
    for llm in (ChatOpenAI(model="local", base_url=server.url, mistral_call_ids=True),
                ChatOpenAI(model="mistral", base_url=server.url)):  # (what the command line can give)
        assert Agent(llm, [web_search]).invoke("Is it raining in Oslo?").output == "It rains in Oslo."


def test_other_400s_keep_their_hint(server: QueuedServer) -> None:
    server.answer = _answer(400, "Tool call id was {bad}: unknown tool.")
    with pytest.raises(ProviderError) as caught:
        Agent(ChatOpenAI(model="local", base_url=server.url), [web_search]).invoke("q")
    assert "mistral_call_ids" not in str(caught.value) and "which field" in str(caught.value)
