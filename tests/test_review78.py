"""Review 78 (a skeptic on the thirty-third session's features): partials of methods, partial docstrings, streamed
calls in a chunk's additional_kwargs, and local model names that are no usable path."""

from __future__ import annotations

import functools

import pytest

from toolwire import SchemaError, UserError, tool
from toolwire.messages import AIMessageChunk
from toolwire.models import init_chat_model
from toolwire.models.llamacpp import ChatLlamaCpp


class Shop:
    def price(self, item: str, count: int) -> float:
        """Price of some items.

        Args:
            item: the item.
            count: how many.
        """
        return 2.5 * count


def test_a_partial_of_a_method_read_from_its_class_is_refused_when_the_tool_is_made() -> None:
    for made in (functools.partial(Shop.price, count=2), functools.partial(Shop.price)):
        with pytest.raises(SchemaError, match=r"partial of the method Shop\.price with no instance for 'self': .*"
                                              r"functools\.partial\(Shop\(\)\.price, \.\.\.\)"):
            tool(made)


def test_a_partial_that_fills_self_or_wraps_a_bound_method_works() -> None:
    assert tool(functools.partial(Shop.price, Shop(), count=2)).invoke({"item": "pen"}) == 5.0
    assert tool(functools.partial(Shop.price, self=Shop(), count=2)).invoke({"item": "pen"}) == 5.0
    assert tool(functools.partial(Shop().price, count=2)).invoke({"item": "pen"}) == 5.0


def test_a_partial_of_an_undocumented_function_says_to_add_a_docstring() -> None:
    def nodoc(a: int) -> int:
        return a

    with pytest.raises(SchemaError, match="add a docstring to the function or pass description="):
        tool(functools.partial(nodoc))


def test_a_subclass_of_partial_without_a_docstring_reads_the_wrapped_function() -> None:
    class Bound(functools.partial):  # type: ignore[type-arg]
        pass

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    made = tool(Bound(add, 1))
    assert made.description == "Add two numbers." and made.invoke({"b": 2}) == 3


@pytest.mark.parametrize("raw", [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}, "calls"])
def test_streamed_calls_in_additional_kwargs_that_are_no_list_are_refused(raw: object) -> None:
    with pytest.raises(UserError, match="takes a list of tool calls"):
        AIMessageChunk("", additional_kwargs={"tool_calls": raw})


def test_a_streamed_call_that_is_no_dict_is_refused() -> None:
    with pytest.raises(UserError, match="holds NoneType where a streamed call is a dict"):
        AIMessageChunk("", additional_kwargs={"tool_calls": [None]})


def test_streamed_calls_in_a_tuple_are_read() -> None:
    raw = ({"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x": 1}'}},)
    assert AIMessageChunk("", additional_kwargs={"tool_calls": raw}).tool_calls[0]["args"] == {"x": 1}


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_local_model_name_is_refused(name: str) -> None:
    with pytest.raises(UserError, match="The model name is empty"):
        ChatLlamaCpp(model=name)


@pytest.mark.parametrize("name", ["a" * 5000, "a" * 5000 + ".gguf"])
def test_a_model_name_too_long_for_a_path_is_one_sentence(name: str) -> None:
    with pytest.raises(UserError, match="is not a usable path"):
        ChatLlamaCpp(model=name)
    with pytest.raises(UserError, match="is not a usable path"):
        init_chat_model("local:" + name)


def test_merging_joins_the_text_pieces_of_additional_kwargs_and_keeps_every_key() -> None:
    from toolwire.messages import merge_chunks

    parts = [AIMessageChunk("", additional_kwargs={"reasoning_content": "Let me ", "x": 1}),
             AIMessageChunk("", additional_kwargs={"reasoning_content": "think.", "tags": ["a"]}),
             AIMessageChunk("Hi", additional_kwargs={"y": 2, "x": 3})]
    want = {"reasoning_content": "Let me think.", "x": 4, "tags": ["a"], "y": 2}  # (ints added, as merge_dicts does)
    assert merge_chunks(parts).response_metadata["additional_kwargs"] == want
    assert (parts[0] + parts[1] + parts[2]).response_metadata["additional_kwargs"] == want
    assert merge_chunks(parts, as_chunk=False).response_metadata == {"additional_kwargs": want}
    assert merge_chunks([AIMessageChunk("a"), AIMessageChunk("b")]).response_metadata == {}


@pytest.mark.parametrize("index", [-1, "0", True, 1.0])
def test_an_invalid_calls_index_that_is_no_place_is_left_out(index: object) -> None:
    from toolwire import AIMessage
    from toolwire._call_records import in_reply_order
    from toolwire.messages import invalid_tool_call, tool_call

    bad = {**invalid_tool_call("f", "{", "bad", "cut off"), "index": index}
    message = AIMessage("", tool_calls=[tool_call("f", {}, id="a"), tool_call("f", {}, id="b")],
                        invalid_tool_calls=[bad])
    assert "index" not in message.invalid_tool_calls[0]
    calls, invalid = message.tool_calls, message.invalid_tool_calls
    assert [c["id"] for c in in_reply_order(calls, invalid, invalid)] == ["a", "b", "bad"]  # after the valid calls


@pytest.mark.parametrize("count", [3.5, "3", -1, float("nan"), float("inf"), True])
def test_a_usage_metadata_count_that_is_no_whole_number_of_tokens_is_refused(count: object) -> None:
    from toolwire import AIMessage

    for make in (AIMessage, AIMessageChunk):
        with pytest.raises(UserError, match="not a whole number of tokens"):
            make("a", usage_metadata={"input_tokens": count, "output_tokens": 1})


def test_a_whole_float_count_is_read_as_its_number() -> None:
    assert AIMessageChunk("a", usage_metadata={"input_tokens": 3.0, "output_tokens": 2}).usage == {
        "input_tokens": 3, "output_tokens": 2, "total_tokens": 5}


def test_an_option_the_api_has_not_is_never_offered_as_the_close_match() -> None:
    from toolwire.models.anthropic import ChatAnthropic
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match=r"'sed': use one of api_key") as caught:
        ChatAnthropic("claude-x", api_key="k", sed=1)
    assert "seed" not in str(caught.value).split(":", 1)[1]
    with pytest.raises(UserError) as caught:
        ChatOpenAI("gpt-x", api_key="k", use_responses_api=True, sead=1)
    assert "'seed'" not in str(caught.value)
    with pytest.raises(UserError, match="did you mean 'seed'"):  # Chat Completions takes seed
        ChatOpenAI("gpt-x", api_key="k", sead=1)
