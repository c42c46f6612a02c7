"""Golden tests of the OpenAI codec (no client, no network): Chat Completions and Responses, both ways,
and the shared streamed tool-call merger.

Reply and stream examples follow the OpenAI API reference ("The chat completion object", "The chat
completion chunk object", "The response object", Responses "Streaming events") and the function-calling
guide.
"""

from __future__ import annotations

import json

import pytest

from toolwire import AIMessage, HumanMessage, ProviderError, SystemMessage, ToolMessage, UserError
from toolwire.examples.book import calculate, get_weather
from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models.base import ChatRequest
from toolwire.models.lowering._stream import ToolCallMerger
from toolwire.models.lowering.openai import (
    ResponsesStreamState,
    StreamState,
    convert_to_openai_responses_tool,
    lower_messages,
    lower_request,
    lower_responses_messages,
    lower_responses_request,
    parse_response,
    parse_responses_response,
)

CALLS = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "a1"},
         {"name": "calculate", "args": {"expression": "2 + 2"}, "id": "a2"}]
CONVERSATION = [
    SystemMessage("Seja breve."),
    HumanMessage(["Clima e conta?", {"type": "image", "url": "https://example.com/a.png"}]),
    AIMessage("", tool_calls=CALLS),
    ToolMessage("4", tool_call_id="a2"),
    ToolMessage([{"type": "text", "text": "sol"}, {"type": "text", "text": "22 C"}], tool_call_id="a1"),
    AIMessage("Sol, e 4."),
]


def test_chat_messages_both_ways():
    assert lower_messages(CONVERSATION) == [
        {"role": "system", "content": "Seja breve."},
        {"role": "user", "content": [{"type": "text", "text": "Clima e conta?"},
                                     {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "a2", "type": "function", "function": {"name": "calculate",
                                                          "arguments": '{"expression": "2 + 2"}'}}]},
        {"role": "tool", "tool_call_id": "a1", "content": "sol\n22 C"},  # E3 order, E4 text joined
        {"role": "tool", "tool_call_id": "a2", "content": "4"},
        {"role": "assistant", "content": "Sol, e 4."},
    ]


def test_chat_invalid_call_goes_back_as_valid_json():
    # (was: the raw text went back as it was; vLLM and SGLang json.loads every past call's arguments and answer
    # 400 on every later request, vllm-project/vllm#43995 (review 66, F1): what can be read of it goes back)
    invalid = {"name": "calculate", "args": '{"expression": "2 +', "id": "bad", "error": "cut off",
               "type": "invalid_tool_call"}
    lowered = lower_messages([HumanMessage("?"), AIMessage("", invalid_tool_calls=[invalid])])
    assert lowered[1]["tool_calls"][0]["function"] == {"name": "calculate", "arguments": '{"expression": "2 +"}'}


def test_a_result_block_the_api_cannot_take_reaches_the_model_as_text():
    """Chat tool messages take text only: an image in a tool result is described, not silently dropped."""
    lowered = lower_messages([HumanMessage("?"), AIMessage("", tool_calls=CALLS[:1]), ToolMessage(
        [{"type": "text", "text": "chart:"}, {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}],
        tool_call_id="a1")])
    assert lowered[2]["content"] == ("chart:\n[The result holds an image (image/png) that cannot be shown here: this "
                                     "API takes only text in a tool result.]")  # (review 111: a note the model reads)


@pytest.mark.parametrize(("choice", "chat", "responses"), [
    ("auto", "auto", "auto"), ("none", "none", "none"), ("required", "required", "required"),
    ("calculate", {"type": "function", "function": {"name": "calculate"}}, {"type": "function", "name": "calculate"}),
])
def test_tool_choice_and_parallel(choice, chat, responses):
    request = ChatRequest([HumanMessage("oi")], (get_weather.spec, calculate.spec), choice, False, None,
                          {"max_tokens": 99})
    body = lower_request(request, "gpt-5-mini", {"temperature": 0.5, "seed": 3})
    assert body["tool_choice"] == chat and body["parallel_tool_calls"] is False
    assert body["max_completion_tokens"] == 99 and body["temperature"] == 0.5 and body["seed"] == 3
    assert lower_request(request, "qwen", max_tokens_field="max_tokens")["max_tokens"] == 99
    rbody = lower_responses_request(request, "gpt-5-mini", {"temperature": 0.5})
    assert rbody["tool_choice"] == responses and rbody["parallel_tool_calls"] is False
    assert rbody["max_output_tokens"] == 99 and rbody["tools"][1]["name"] == "calculate"


def test_no_tools_means_no_tool_fields():
    body = lower_request(ChatRequest([HumanMessage("oi")], (), "auto", False), "gpt-5-mini")
    assert body == {"model": "gpt-5-mini", "messages": [{"role": "user", "content": "oi"}]}


def test_responses_tool_always_states_strict():
    assert convert_to_openai_responses_tool(get_weather) == {
        "type": "function", "name": "get_weather", "description": "Obtém o clima atual de uma determinada cidade.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                       "additionalProperties": False},
        "strict": False}
    strict = convert_to_openai_responses_tool(get_weather, strict=True)
    assert strict["strict"] is True and strict["parameters"]["additionalProperties"] is False


def test_responses_input_items():
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}
    conversation = [*CONVERSATION[:2], CONVERSATION[2].copy(provider_data={"openai": {"reasoning": [reasoning]}}),
                    *CONVERSATION[3:]]
    assert lower_responses_messages(conversation) == [
        {"role": "system", "content": "Seja breve."},
        {"role": "user", "content": [{"type": "input_text", "text": "Clima e conta?"},
                                     {"type": "input_image", "image_url": "https://example.com/a.png"}]},
        reasoning,
        {"type": "function_call", "call_id": "a1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"type": "function_call", "call_id": "a2", "name": "calculate", "arguments": '{"expression": "2 + 2"}'},
        {"type": "function_call_output", "call_id": "a1", "output": "sol\n22 C"},
        {"type": "function_call_output", "call_id": "a2", "output": "4"},
        {"role": "assistant", "content": "Sol, e 4."},
    ]


def test_responses_refuses_options_it_lacks():
    with pytest.raises(UserError, match="Responses API has no 'stop'"):
        lower_responses_request(ChatRequest([HumanMessage("oi")], options={"stop": ["x"]}), "gpt-5-mini")


CHAT_DOC = {
    "id": "chatcmpl-abc123", "object": "chat.completion", "created": 1699896916, "model": "gpt-4o-mini",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_abc123", "type": "function",
         "function": {"name": "get_current_weather", "arguments": "{\n\"location\": \"Boston, MA\"\n}"}},
        {"id": "call_def456", "type": "function", "function": {"name": "get_current_weather",
                                                               "arguments": '{"location": "Bost'}},
    ]}, "logprobs": None, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99,
              "prompt_tokens_details": {"cached_tokens": 64}},
}


def test_parse_chat_response():
    reply = parse_response(CHAT_DOC)
    assert reply.text == "" and reply.id == "chatcmpl-abc123"
    assert reply.tool_calls == [{"name": "get_current_weather", "args": {"location": "Boston, MA"},
                                 "id": "call_abc123", "type": "tool_call"}]
    assert reply.invalid_tool_calls[0]["args"] == '{"location": "Bost'  # P1: cut-off text kept, never {}
    assert reply.usage == {"input_tokens": 82, "output_tokens": 17, "total_tokens": 99, "cached_tokens": 64}
    assert reply.response_metadata == {"model": "gpt-4o-mini",
                                       "model_name": "gpt-4o-mini", "finish_reason": "tool_calls"}


def _chunk(delta=None, finish=None, usage=None):
    data = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
            "choices": [] if usage else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    if usage:
        data["usage"] = usage
    return data


def test_chat_stream_merges_parallel_calls_by_index():
    args = ['{"lo', 'cation": "Paris"}', '{"location"', ': "Tokyo"}']
    events = [
        _chunk({"role": "assistant", "content": None}),
        _chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                "function": {"name": "get_weather", "arguments": ""}}]}),
        _chunk({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                                "function": {"name": "get_weather", "arguments": ""}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[0]}}]}),  # interleaved
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": args[2]}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[1]}}]}),
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": args[3]}}]}),
        _chunk(finish="tool_calls"),
        _chunk(usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}),
    ]
    state = StreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    merged = merge_chunks(chunks, as_chunk=False)
    whole = parse_response({"id": "chatcmpl-9", "model": "gpt-4o-mini", "choices": [{"message": {
        "content": None, "tool_calls": [
            {"id": "call_1", "function": {"name": "get_weather", "arguments": args[0] + args[1]}},
            {"id": "call_2", "function": {"name": "get_weather", "arguments": args[2] + args[3]}}]},
        "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}})
    assert merged == whole
    assert state.merger.partial_args(1) == {"location": "Tokyo"}


RESPONSES_DOC = {
    "id": "resp_67ccd2bed1ec8190b14f964abc054267", "object": "response", "created_at": 1741476542,
    "status": "completed", "model": "gpt-4.1-2025-04-14",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
        {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz", "name": "get_weather",
         "arguments": "{\"location\":\"Paris, France\"}", "status": "completed"},
    ],
    "usage": {"input_tokens": 36, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 87,
              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 123},
}


def test_parse_responses_response():
    reply = parse_responses_response(RESPONSES_DOC)
    assert reply.text == "Checking."
    assert reply.tool_calls == [{"name": "get_weather", "args": {"location": "Paris, France"},
                                 "id": "call_12345xyz", "type": "tool_call"}]
    # the output's order is kept too (review 66, F2): the message item goes back after its reasoning item
    assert reply.provider_data == {"openai": {"reasoning": [RESPONSES_DOC["output"][0]],
                                              "function_call_ids": {"call_12345xyz": "fc_12345xyz"},
                                              "output": [{"type": "reasoning", "index": 0}, RESPONSES_DOC["output"][1],
                                                         {"type": "function_call", "id": "fc_12345xyz",
                                                          "call_id": "call_12345xyz"}]}}
    assert reply.usage == {"input_tokens": 36, "output_tokens": 87, "total_tokens": 123}
    assert reply.response_metadata == {"model": "gpt-4.1-2025-04-14",
                                       "model_name": "gpt-4.1-2025-04-14", "finish_reason": "completed"}
    with pytest.raises(ProviderError, match="quota"):
        parse_responses_response({**RESPONSES_DOC, "status": "failed", "error": {"message": "quota"}})


def test_responses_stream_matches_the_whole_reply():
    item = RESPONSES_DOC["output"][2]
    events = [
        {"type": "response.created", "response": {**RESPONSES_DOC, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**RESPONSES_DOC["output"][0]}},
        {"type": "response.output_item.done", "output_index": 0, "item": RESPONSES_DOC["output"][0]},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "delta": "Check"},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "delta": "ing."},
        {"type": "response.output_item.added", "output_index": 2, "item": {**item, "arguments": ""}},
        *({"type": "response.function_call_arguments.delta", "item_id": "fc_12345xyz", "output_index": 2,
           "delta": d} for d in ['{"', 'location":"Paris', ', France"}']),
        {"type": "response.function_call_arguments.done", "item_id": "fc_12345xyz", "output_index": 2,
         "arguments": item["arguments"]},
        {"type": "response.output_item.done", "output_index": 2, "item": item},
        {"type": "response.completed", "response": RESPONSES_DOC},
    ]
    state = ResponsesStreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    assert merge_chunks(chunks, as_chunk=False) == parse_responses_response(RESPONSES_DOC)
    with pytest.raises(ProviderError, match="overloaded"):
        ResponsesStreamState().feed({"type": "error", "code": "server_error", "message": "overloaded"})


# --------------------------------------------------------------------------- the shared merger


def test_merger_keys_by_index_then_id():
    merger = ToolCallMerger()
    merger.add(index=0, id="c1", name="a", args='{"x": ')
    merger.add(index=0, id="c2", name="b", args='{"y": 2}')  # a server reusing index 0 for a new call
    merger.add(index=0, args="")
    merger.add(index=None, id="c1", args="1}")
    merger.add(name="c", args={"z": 3})  # no index, no id, a new name: the next call
    merger.add(args=None)  # nothing new: continues it
    calls = merger.tool_calls()
    assert [(c["name"], c["args"], c["id"]) for c in calls[:2]] == [("a", {"x": 1}, "c1"), ("b", {"y": 2}, "c2")]
    assert (calls[2]["name"], calls[2]["args"]) == ("c", {"z": 3}) and len(calls) == 3


def test_chat_stream_keeps_one_call_whose_id_changes_on_every_piece():
    """Review 2, finding 1: Poolside, mlx-openai-server and vLLM gpt-oss send a new id on every piece of one
    call (same index, the name only on the first). It was split into get_weather({}) plus two broken calls."""
    def piece(index, call_id, name, args):
        fn = {"arguments": args, **({"name": name} if name else {})}
        return _chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function", "function": fn}]})

    events = [piece(0, "call_a1", "get_weather", ""), piece(1, "call_b1", "calculate", ""),
              piece(0, "call_a2", None, '{"city": '), piece(1, "call_b2", None, '{"expression": "2 + 2"}'),
              piece(0, "call_a3", None, '"Paris"}'), _chunk(finish="tool_calls")]
    state = StreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    merged = merge_chunks(chunks, as_chunk=False)
    assert merged.invalid_tool_calls == []
    assert [(c["name"], c["args"], c["id"]) for c in merged.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "call_a1"), ("calculate", {"expression": "2 + 2"}, "call_b1")]
    assert merged == parse_response({"id": "chatcmpl-9", "model": "gpt-4o-mini", "choices": [{"message": {
        "content": None, "tool_calls": [
            {"id": "call_a1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_b1", "function": {"name": "calculate", "arguments": '{"expression": "2 + 2"}'}}]},
        "finish_reason": "tool_calls"}]})


@pytest.mark.parametrize(("pieces", "expected"), [
    # a new id on every piece, the name only on the first: one call
    ([(0, "a1", "f", '{"x": '), (0, "a2", None, "1}")], [("f", {"x": 1}, "a1")]),
    # the name repeated while the JSON is still open: one call
    ([(0, "a1", "f", '{"x": '), (0, "a2", "f", "1}")], [("f", {"x": 1}, "a1")]),
    # index 0 reused for the same function: the first JSON is complete, so the new id starts a call
    ([(0, "a1", "f", '{"x": 1}'), (0, "a2", "f", ""), (0, None, None, '{"x": 2}')],
     [("f", {"x": 1}, "a1"), ("f", {"x": 2}, "a2")]),
    # a call with no argument text, then another name on index 0: two calls, the first with {}
    ([(0, "a1", "get_time", ""), (0, "b1", "get_weather", '{"city": "Oslo"}')],
     [("get_time", {}, "a1"), ("get_weather", {"city": "Oslo"}, "b1")]),
    # a repeated name with no id and no text after complete JSON: nothing to tell apart, one call
    ([(0, "a1", "f", '{"x": 1}'), (0, None, "f", "")], [("f", {"x": 1}, "a1")]),
])
def test_merger_tells_per_piece_ids_from_a_reused_index(pieces, expected):
    merger = ToolCallMerger()
    chunks = [AIMessageChunk(tool_call_chunks=[merger.add(index=i, id=c, name=n, args=a)]) for i, c, n, a in pieces]
    assert [(c["name"], c["args"], c["id"]) for c in merger.tool_calls()] == expected
    assert [(c["name"], c["args"], c["id"]) for c in merge_chunks(chunks, as_chunk=False).tool_calls] == expected


def test_merger_scans_each_fragment_once():
    text = json.dumps({"query": "a" * 5000, "n": [1, 2, 3]})
    merger = ToolCallMerger()
    for i in range(0, len(text), 3):
        merger.add(index=0, id="c", name="search", args=text[i:i + 3])
    parser = merger._slots[0].parser
    assert parser.scanned == len(text)  # linear: every character examined once
    assert merger.partial_args(0) == json.loads(text)


def test_merger_generates_ids_and_keeps_invalid_text():
    merger = ToolCallMerger()
    first = merger.add(index=0, name="get_weather", args='{"city": "Pa')
    assert first["id"].startswith("call_") and first["index"] == 0
    assert merger.partial_args(0) == {"city": "Pa"}
    (call,) = merger.tool_calls()
    assert call["type"] == "invalid_tool_call" and call["args"] == '{"city": "Pa'


NAMELESS_CHAT = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "", "arguments": "{}"}}]}}]}
NAMELESS_RESPONSES = {"status": "completed", "output": [
    {"type": "function_call", "call_id": "c1", "name": "", "arguments": "{}"}]}


@pytest.mark.parametrize(("parse", "reply"), [(parse_response, NAMELESS_CHAT),
                                              (parse_responses_response, NAMELESS_RESPONSES)])
def test_a_nameless_call_names_the_bound_tools_or_none_of_them(parse, reply):
    """Finding 5: the error names the bound tools when they are given, and never says there are none."""
    (bad,) = parse(reply, tool_names=["get_weather", "calculate"]).invalid_tool_calls
    assert bad["error"] == "The tool call has no name; call one of the available tools: calculate, get_weather."
    assert (bad["name"], bad["args"], bad["id"]) == (None, "{}", "c1")
    (bad,) = parse(reply).invalid_tool_calls
    assert bad["error"] == "The tool call has no name; send it again with the name of the tool to call."


def test_call_ids_too_long_for_openai_are_cut_alike_in_the_call_and_its_result():
    """Review 57: OpenAI refuses a tool call id over 40 characters (Responses: 64); ids from other providers
    (``call_0_<uuid>``, ``fc_<48 hex>``) run longer, so they are cut the same way in a call and its result."""
    long_ids = ["call_0_4b24360d-45b4-425f-a66e-0c9e7a4f5a11", "fc_" + "ab" * 24, "fc_" + "ab" * 24 + "c"]
    calls = [{"name": "get_weather", "args": {"city": "Paris"}, "id": i} for i in long_ids]
    short = {"name": "calculate", "args": {"expression": "1"}, "id": "a" * 40}
    convo = [HumanMessage("q"), AIMessage("", tool_calls=[*calls, short]),
             *(ToolMessage("sol", tool_call_id=i) for i in [*long_ids, "a" * 40])]
    chat = lower_messages(convo)
    sent = [c["id"] for c in chat[1]["tool_calls"]]
    assert sent[-1] == "a" * 40 and all(len(i) <= 40 for i in sent) and len(set(sent)) == 4
    assert [m["tool_call_id"] for m in chat[2:]] == sent
    assert sent[0].startswith("call_0_4b24360d") and sent == [c["id"] for c in lower_messages(convo)[1]["tool_calls"]]
    items = lower_responses_messages(convo)
    call_ids = [i["call_id"] for i in items if i.get("type") == "function_call"]
    assert all(len(i) <= 64 for i in call_ids) and len(set(call_ids)) == 4
    assert call_ids[0] == long_ids[0]  # 43 characters: within the Responses API's 64
    assert [i["call_id"] for i in items if i.get("type") == "function_call_output"] == call_ids
