"""Review 247: a reply that starts with a UTF-8 BOM is a reply the server sent, not a request that could not be
written (#1); a tagged union's tag is the property that tells its members apart, a defaulted constant shared by
none of them included (#2), also when the call leaves a defaulted tag out (#3) or the members share a class name
(#4); structured output's union errors are capped as its other errors are (#5); an injected ``Unpack`` key is told
to be ``NotRequired`` (#6); a cyclic default instance is left out of the schema, not refused (#7)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolwire.errors import ProviderError

# -- #1: a reply body (or SSE line) that starts with a BOM -----------------------------------------------------------

_CHAT = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
_CHUNK = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
          "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}, "finish_reason": None}]}
_GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}


@pytest.fixture
def bom_server() -> Iterator[tuple[str, list[str]]]:
    """A server answering every POST 200 with a correct reply that starts with a UTF-8 BOM: an OpenAI stream
    (``"stream": true`` asked) as one SSE ``data:`` line with the BOM in it, a Gemini reply for ``models/``
    paths, else an OpenAI chat completion. Gives its URL and the paths it was asked."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            hits.append(self.path)
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if json.loads(raw).get("stream"):
                body, kind = f"data: \ufeff{json.dumps(_CHUNK)}\n\ndata: [DONE]\n\n", "text/event-stream"
            else:
                body, kind = "\ufeff" + json.dumps(_GEMINI if "models/" in self.path else _CHAT), "application/json"
            data = body.encode()
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def _blames_the_reply(error: ProviderError, kind: str) -> None:
    text = str(error)
    assert f"not {kind} reply" in text and "BOM" in text, text
    assert "could not be written as JSON" not in text and "nothing was sent" not in text, text


def test_bom_stream_line_is_a_reply_the_server_sent(bom_server: tuple[str, list[str]]) -> None:
    from toolwire.models.openai import ChatOpenAI

    url, hits = bom_server
    model = ChatOpenAI(model="m", base_url=url + "/v1", api_key="sk-test", max_retries=0)
    with pytest.raises(ProviderError) as caught:
        list(model.stream("hi"))
    _blames_the_reply(caught.value, "an OpenAI")
    assert hits  # (the request was sent)


def test_bom_gemini_body_is_a_reply_the_server_sent(bom_server: tuple[str, list[str]]) -> None:
    pytest.importorskip("google.genai")
    from toolwire.models.google import ChatGoogleGenAI

    url, hits = bom_server
    model = ChatGoogleGenAI(model="gemini-2.0-flash", base_url=url, api_key="AIza-test", max_retries=0)
    with pytest.raises(ProviderError) as caught:
        model.invoke("hi")
    _blames_the_reply(caught.value, "a Gemini")
    assert hits


def test_decode_errors_raised_in_json_init_are_not_unsendable() -> None:
    from toolwire.models._sdk_errors import _unsendable

    for text in ("\ufeff{}", "", "{"):
        try:
            json.loads(text)
        except ValueError as exc:
            assert _unsendable(exc, "openai") is None, text
    try:
        json.dumps({"tools": [{"x": float("inf")}]}, allow_nan=False)
    except ValueError as exc:
        found = _unsendable(exc, "openai")
        assert found is not None and "tools[0].x" in str(found) and found.retryable is False


# -- #2, #3, #4: which property is a tagged union's tag --------------------------------------------------------------

def _said(fn: Any, args: dict[str, Any]) -> str:
    from toolwire import Tool

    tool = Tool.from_function(fn)
    return str(tool.invoke({"type": "tool_call", "name": tool.name, "id": "c", "args": args}).content)


def test_a_defaulted_constant_before_the_required_tag_is_not_the_tag() -> None:
    from typing import Literal

    from pydantic import BaseModel

    class Add(BaseModel):
        api: Literal["v1"] = "v1"
        op: Literal["add"]
        text: str

    class Delete(BaseModel):
        api: Literal["v2"] = "v2"
        op: Literal["delete"]
        id: int

    def edit(step: Add | Delete) -> str:
        """Edit."""
        return repr(step)

    text = _said(edit, {"step": {"op": "delete", "id": "seven"}})
    assert "with op \"delete\": 'step.id'" in text, text
    assert "Input should be 'add'" not in text and "step.text" not in text, text
    text = _said(edit, {"step": {"op": "add", "text": "x", "id": 3}})
    assert "with op \"add\": 'step.id' is not an allowed field" in text, text
    assert "Input should be 'delete'" not in text, text
    # (the call that sends the other constant is told about it under the member its op picks)
    text = _said(edit, {"step": {"api": "v1", "op": "delete", "id": 3}})
    assert "with op \"delete\": 'step.api': Input should be 'v2'" in text and "step.text" not in text, text


def test_a_shared_constant_is_no_tag() -> None:
    from typing import Literal

    from pydantic import BaseModel

    class Add(BaseModel):
        kind: Literal["edit"] = "edit"
        op: Literal["add"]
        text: str

    class Delete(BaseModel):
        kind: Literal["edit"] = "edit"
        op: Literal["delete"]
        id: int

    def edit(step: Add | Delete) -> str:
        """Edit."""
        return repr(step)

    text = _said(edit, {"step": {"op": "delete", "id": "seven"}})
    assert "with op \"delete\": 'step.id'" in text and "step.text" not in text, text


def test_a_left_out_defaulted_tag_picks_its_member() -> None:
    from typing import Literal

    from pydantic import BaseModel

    class Add(BaseModel):
        op: Literal["add"] = "add"
        text: str

    class Delete(BaseModel):
        op: Literal["delete"]
        id: int

    def edit(step: Add | Delete) -> str:
        """Edit."""
        return repr(step)

    for args in ({}, {"text": 5}):
        text = _said(edit, {"step": args})
        assert "with op \"add\" (its default): 'step.text'" in text, text
        assert "'step.op' is required" not in text and "step.id" not in text, text


def test_member_classes_sharing_a_name_keep_the_picked_members_errors() -> None:
    from typing import Literal

    from pydantic import BaseModel

    num = type("Step", (BaseModel,), {"__annotations__": {"op": Literal["num"], "v": int}})
    txt = type("Step", (BaseModel,), {"__annotations__": {"op": Literal["txt"], "v": str}})

    def run(step: num | txt) -> str:  # type: ignore[valid-type]
        """Run a step."""
        return repr(step)

    text = _said(run, {"step": {"op": "txt", "v": 5}})
    assert "with op \"txt\": 'step.v': Input should be a valid string (got 5)" in text, text
    assert "Input should be 'num'" not in text, text
    text = _said(run, {"step": {"op": "num", "v": "x"}})
    assert "with op \"num\": 'step.v'" in text and "Input should be 'txt'" not in text, text


# -- #5: structured output's union errors are capped -----------------------------------------------------------------

def test_structured_output_union_errors_are_capped_as_others_are() -> None:
    from typing import Literal

    from pydantic import BaseModel

    from toolwire import AIMessage
    from toolwire.errors import ToolCallParseError
    from toolwire.messages import tool_call
    from toolwire.models._structured_retry import _MOST_PROBLEMS
    from toolwire.testing import ScriptedChatModel

    class Add(BaseModel):
        op: Literal["add"]
        text: str

    class Delete(BaseModel):
        op: Literal["delete"]
        id: int

    class Plan(BaseModel):
        """A plan."""

        steps: list[Add | Delete]

    bad = AIMessage("", tool_calls=[tool_call("Plan", {"steps": [{"op": "delete", "id": f"n{i}"} for i in range(40)]},
                                              "c1")])
    with pytest.raises(ToolCallParseError) as caught:
        ScriptedChatModel([bad]).with_structured_output(Plan).invoke("Plan it.")
    text = str(caught.value)
    assert "with op \"delete\": 'steps.0.id'" in text, text
    assert f"'steps.{_MOST_PROBLEMS - 1}.id'" in text and f"'steps.{_MOST_PROBLEMS}.id'" not in text, text
    assert f"and {40 - _MOST_PROBLEMS} more" in text and len(text) < 1000, text


# -- #7: a default instance that reaches itself is left out of the schema, not refused ----------------------------

def test_a_cyclic_default_instance_is_left_out_not_refused() -> None:
    import dataclasses

    from pydantic import BaseModel, ConfigDict

    from toolwire import Tool

    @dataclasses.dataclass
    class Config:
        name: str
        links: dict[str, Any] = dataclasses.field(default_factory=dict)

    by_dict = Config("by-dict")
    by_dict.links["self"] = by_dict
    by_list = Config("by-list")
    loop: list[Any] = []
    loop.append(loop)
    by_list.links["loop"] = loop

    class Node(BaseModel):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        name: str
        extra: dict[str, Any] = {}

    node = Node(name="node")
    node.extra["me"] = node

    for default in (by_dict, by_list, node):
        def run(config: Any = default) -> str:
            """Run with a config."""
            return str(config.name)

        made = Tool.from_function(run)
        assert "default" not in made.spec.parameters["properties"]["config"]
        assert made.invoke({"type": "tool_call", "name": "run", "id": "c", "args": {}}).content == default.name


# -- #6: a required InjectedToolCallId key of Unpack[TD] outside a call ----------------------------------------------

def test_a_required_call_id_key_outside_a_call_is_told_to_be_not_required() -> None:
    pytest.importorskip("langchain_core")
    from typing import Annotated, NotRequired

    from langchain_core.tools import InjectedToolCallId
    from typing_extensions import TypedDict, Unpack

    from toolwire import Tool
    from toolwire.errors import UserError

    # (built at run time: the annotations of local classes and functions are text under __future__.annotations)
    opts = TypedDict("opts", {"city": str, "tool_call_id": Annotated[str, InjectedToolCallId]})  # noqa: UP013

    def weather(**kwargs: Any) -> str:
        """Weather."""
        return json.dumps(kwargs)

    weather.__annotations__ = {"kwargs": Unpack[opts], "return": str}

    made = Tool.from_function(weather)
    with pytest.raises(UserError) as caught:
        made.invoke({"city": "Rome"})
    text = str(caught.value)
    assert "key 'tool_call_id'" in text and "NotRequired[...]" in text, text
    assert "default" not in text, text
    assert json.loads(str(made.invoke({"type": "tool_call", "name": "weather", "id": "c7",
                                       "args": {"city": "Rome"}}).content)) == {"city": "Rome", "tool_call_id": "c7"}

    loose_opts = TypedDict("loose_opts", {"city": str,  # noqa: UP013
                                          "tool_call_id": NotRequired[Annotated[str, InjectedToolCallId]]})

    def loose(**kwargs: Any) -> str:
        """Weather."""
        return json.dumps(kwargs)

    loose.__annotations__ = {"kwargs": Unpack[loose_opts], "return": str}

    assert json.loads(str(Tool.from_function(loose).invoke({"city": "Rome"}))) == {"city": "Rome"}

    def named(city: str, tool_call_id: str) -> str:
        """Weather."""
        return city

    named.__annotations__ = {"city": str, "tool_call_id": Annotated[str, InjectedToolCallId], "return": str}

    with pytest.raises(UserError, match="give that parameter a default"):
        Tool.from_function(named).invoke({"city": "Rome"})
