"""Review 47: Azure OpenAI through its v1 API, and Qwen3-Coder's ``function_tag`` calls under a grammar.

Faults found, now fixed (each has a test below):

1. models/factory.py, models/openai.py: ``init_chat_model("azure_openai:<deployment>")`` with an endpoint that is
   not on an Azure host (an API Management gateway, a custom domain, a private DNS name) built a model with a
   compatible server's rules: ``AZURE_OPENAI_API_KEY`` was not read, a placeholder key was sent, ``max_tokens``
   went out instead of ``max_completion_tokens`` and calls were read from the reply's text.
2. models/openai.py ``azure_v1_url``: a per-deployment URL set in ``OPENAI_BASE_URL`` (or
   ``AZURE_OPENAI_ENDPOINT``) was refused with "set base_url to ...", naming a setting the user never gave.
3. models/grammar.py ``_RAW`` (and JSON strings in the ``function_tag`` grammar): a value holding
   ``<tool_call>`` or ``<function=`` was accepted, and the parser (which ends a call there) read a cut value,
   an invalid call or a second call back.
4. models/grammar.py ``_tag_value``: an ``enum`` or ``const`` that is not all strings (``const: 5``,
   ``enum: [1, 2]``, ``Literal["a", 1, None]``) and a union of string enums with other types
   (``Optional[Literal["a", "b"]]``) took any raw text.
5. parsing/function_tags.py ``_typed``: a non-string ``const`` (``5``) stayed the text ``"5"``, and in a union
   whose only strings are an enum or const (``int | Literal["auto"]``) the template's ``5`` stayed ``"5"``:
   neither passes the schema.
6. parsing/function_tags.py ``_KEY``: a parameter whose name holds a space, ``=``, a quote or ``>`` (JSON Schema
   allows any property name; the grammar writes it as it is) was not read back: an invalid call, or a wrong key.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from test_grammar import Gbnf
from toolwire.errors import UserError
from toolwire.messages import tool_call
from toolwire.models.dialects import format_calls, parse_reply
from toolwire.models.grammar import call_grammar
from toolwire.tools import ToolSpec

KEY = "sk-review47-SECRET-0123456789"
_ENV = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


# -- 1. azure_openai: Azure's rules whatever the endpoint's host -------------------------------------------


def test_azure_openai_on_a_gateway_keeps_azure_rules(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from toolwire.models import init_chat_model
    from toolwire.models.base import ChatRequest
    from toolwire.models.openai import ChatOpenAI

    clean_env.setenv("AZURE_OPENAI_API_KEY", KEY)
    for gateway in ("https://contoso.azure-api.net/openai/v1", "https://llm.contoso.com"):
        clean_env.setenv("AZURE_OPENAI_ENDPOINT", gateway)
        model = init_chat_model("azure_openai:my-deployment", max_tokens=64)
        assert isinstance(model, ChatOpenAI)
        assert model._api_key is not None and model._api_key.get() == KEY  # not the placeholder
        assert not model.text_tool_calls
        body = model._lower(ChatRequest(messages=[], tools=[]))
        assert body["max_completion_tokens"] == 64 and "max_tokens" not in body
        assert model.base_url == "https://contoso.azure-api.net/openai/v1" if "azure-api" in gateway else \
            model.base_url == "https://llm.contoso.com/openai/v1"
    clean_env.delenv("AZURE_OPENAI_API_KEY")
    with pytest.raises(UserError, match="AZURE_OPENAI_API_KEY"):  # a key is needed, as on an Azure host
        init_chat_model("azure_openai:my-deployment")
    # ChatOpenAI takes the same rules with azure=True
    model = ChatOpenAI("my-deployment", base_url="https://llm.contoso.com/openai/v1", azure=True, api_key=KEY)
    assert not model.text_tool_calls and not model._compatible


# -- 2. the refusal names the setting the URL came from ------------------------------------------------------


def test_a_deployment_url_in_the_environment_is_named_in_the_refusal(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from toolwire.models import init_chat_model
    from toolwire.models.openai import ChatOpenAI

    old = "https://r.openai.azure.com/openai/deployments/gpt-4o"
    clean_env.setenv("OPENAI_BASE_URL", old)
    with pytest.raises(UserError) as refused:
        ChatOpenAI("gpt-4o", api_key=KEY)
    assert "set OPENAI_BASE_URL to https://r.openai.azure.com/openai/v1" in str(refused.value)
    clean_env.delenv("OPENAI_BASE_URL")
    clean_env.setenv("AZURE_OPENAI_ENDPOINT", old)
    with pytest.raises(UserError) as refused:
        init_chat_model("azure_openai:gpt-4o", api_key=KEY)
    assert "set AZURE_OPENAI_ENDPOINT to https://r.openai.azure.com/openai/v1" in str(refused.value)
    with pytest.raises(UserError) as refused:
        ChatOpenAI("gpt-4o", api_key=KEY, base_url=old)
    assert "set base_url to https://r.openai.azure.com/openai/v1" in str(refused.value)


# -- function_tag: what the grammar accepts parses back to a valid call, and the template's calls pass ------


def _spec(props: dict[str, Any], required: list[str] | None = None) -> ToolSpec:
    return ToolSpec("t", "T.", {"type": "object", "properties": props,
                                "required": list(props) if required is None else required})


def _text(**params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function=t>\n{body}</function>\n</tool_call>"


def _round_trip(spec: ToolSpec, args: dict[str, Any]) -> None:
    """The template's form of ``args`` passes the grammar and parses back to ``args``."""
    text = format_calls([tool_call("t", args, "c1")], "function_tag", [spec])
    assert Gbnf(call_grammar([spec], "function_tag")).accepts(text), text
    parsed = parse_reply(text, [spec], "function_tag")
    assert not parsed.invalid_tool_calls, parsed.invalid_tool_calls
    assert [c["args"] for c in parsed.tool_calls] == [args]


def _accepted_parse_valid(spec: ToolSpec, text: str) -> bool:
    """Whether the grammar accepts ``text``; when it does, it must parse to one call passing the schema."""
    if not Gbnf(call_grammar([spec], "function_tag")).accepts(text):
        return False
    parsed = parse_reply(text, [spec], "function_tag")
    assert not parsed.invalid_tool_calls, (text, parsed.invalid_tool_calls)
    assert len(parsed.tool_calls) == 1, (text, parsed.tool_calls)
    jsonschema.validate(parsed.tool_calls[0]["args"], spec.parameters)
    return True


# -- 3. values holding a call's markup --------------------------------------------------------------------

STR = {"type": "string"}


@pytest.mark.parametrize("value", ["see <tool_call> here", "<function=t>", "a <function=x>\nb", "x <tool_call>"])
def test_a_raw_value_that_would_open_a_call_is_refused(value: str) -> None:
    spec = _spec({"s": STR})
    assert not _accepted_parse_valid(spec, _text(s=value))


@pytest.mark.parametrize("value", ['["<function=t>"]', '["a</parameter>\\n<parameter=b>"]', '["<tool_call>"]',
                                   '["</tool_call>"]'])
def test_a_json_string_that_would_open_or_close_a_call_is_refused(value: str) -> None:
    spec = _spec({"k": {"type": "array", "items": STR}})
    assert not _accepted_parse_valid(spec, _text(k=value))
    assert _accepted_parse_valid(spec, _text(k=value.replace("<", "\\u003c")))  # the escaped form is fine


@pytest.mark.parametrize("value", ["<functio", "x <function", "<tool_call", "a<f<t<", "<fun>ction=", "<tool_cal>l",
                                   "<<<", "a < b", "<t>", "x<", "<ff", "<function-x", "<tool_callx"])
def test_markup_short_of_a_tag_is_still_raw_text(value: str) -> None:
    spec = _spec({"s": STR, "k": {"type": "array", "items": STR}})
    _round_trip(spec, {"s": value, "k": [value]})


# -- 4, 5. enums and consts of any type, unions with a string enum ----------------------------------------


@pytest.mark.parametrize(("schema", "good", "bad"), [
    ({"const": 5}, [5], ["abc", "6", "5.5"]),
    ({"enum": [1, 2]}, [1, 2], ["abc", "3"]),
    ({"enum": ["a", 1, None]}, ["a", 1, None], ["zzz", "2"]),
    ({"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]}, ["a", "b", None], ["zzz"]),
    ({"anyOf": [{"type": "integer"}, {"const": "auto"}]}, [5, -1, "auto"], ["zzz", "1.5"]),
    ({"type": ["integer", "null"], "enum": [1, None]}, [1, None], ["2"]),
    ({"enum": [True, {"x": 1}, [1]]}, [True, {"x": 1}, [1]], ["false"]),
])
def test_enums_consts_and_unions_take_only_their_values(schema: dict[str, Any], good: list[Any],
                                                        bad: list[str]) -> None:
    spec = _spec({"k": schema})
    for value in good:
        _round_trip(spec, {"k": value})
    for text in bad:
        assert not _accepted_parse_valid(spec, _text(k=text)), text


def test_a_const_number_parses_back_as_the_number() -> None:
    spec = _spec({"k": {"const": 5}, "m": {"anyOf": [{"type": "integer"}, {"enum": ["auto", "max"]}]}})
    parsed = parse_reply(_text(k="5", m="7"), [spec], "function_tag")
    assert [c["args"] for c in parsed.tool_calls] == [{"k": 5, "m": 7}]
    parsed = parse_reply(_text(k="5", m="max"), [spec], "function_tag")
    assert [c["args"] for c in parsed.tool_calls] == [{"k": 5, "m": "max"}]


def test_a_free_string_in_a_union_still_keeps_the_text() -> None:
    spec = _spec({"k": {"anyOf": [{"type": "integer"}, {"type": "string"}]}})
    assert [c["args"] for c in parse_reply(_text(k="5"), [spec], "function_tag").tool_calls] == [{"k": "5"}]


# -- 6. parameter names the parser's pattern did not take ------------------------------------------------


@pytest.mark.parametrize("name", ["first name", "a=b", 'q"x', "it's", "x>y", " lead", "x>"])
def test_a_parameter_name_with_odd_characters_is_read_back(name: str) -> None:
    spec = _spec({name: STR, "x": {"type": "integer"}}, required=[name])
    _round_trip(spec, {name: "Ann", "x": 3})
    _round_trip(spec, {name: "y>z"})


def test_known_names_win_over_the_pattern_and_others_still_read() -> None:
    spec = _spec({"a": STR, "a b": STR}, required=[])
    parsed = parse_reply(_text(**{"a b": "1", "a": "2"}), [spec], "function_tag")
    assert [c["args"] for c in parsed.tool_calls] == [{"a b": "1", "a": "2"}]
    # a model's own spellings still read as before (quotes, spaces before the ">"), names only too
    text = '<tool_call>\n<function=t>\n<parameter="a" >\n1\n</parameter>\n</function>\n</tool_call>'
    assert [c["args"] for c in parse_reply(text, [spec], "function_tag").tool_calls] == [{"a": "1"}]
    assert [c["args"] for c in parse_reply(text, ["t"], "function_tag").tool_calls] == [{"a": "1"}]


def test_function_tag_grammar_still_parses_in_llama_cpp() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    from toolwire.models.pull import find_model

    path = find_model("smollm2-135m")
    if path is None:
        pytest.skip("smollm2-135m is not pulled (toolwire models pull smollm2-135m)")
    llm = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)  # the vocabulary only: no generation
    spec = _spec({"s": STR, "k": {"type": "array", "items": STR}, "e": {"enum": ["a", 1, None]},
                  "first name": {"anyOf": [{"enum": ["x", "y"]}, {"type": "null"}]}})
    for parallel in (True, False):
        text = call_grammar([spec], "function_tag", parallel=parallel)
        grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
        sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar._grammar.encode(), b"root")
        assert sampler, text
        llama_cpp.llama_sampler_free(sampler)


def test_azure_true_without_an_endpoint_is_refused(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match="azure=True needs the Azure OpenAI endpoint: pass base_url="):
        ChatOpenAI("my-deployment", azure=True, api_key=KEY)  # not OpenAI's own service in silence
    model = ChatOpenAI("my-deployment", base_url="https://r.openai.azure.com", azure=False, api_key=KEY)
    assert model._compatible and model.base_url == "https://r.openai.azure.com"  # azure=False: never Azure's rules
