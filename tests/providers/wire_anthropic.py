"""Anthropic wire format: ``POST /v1/messages``, whole and streamed.

Request shapes and reply examples follow the Anthropic API reference ("Messages", "Streaming Messages")
and the tool-use guide (tool_result blocks first in the user turn right after the tool_use turn).
"""

from __future__ import annotations

import json
from typing import Any

from .wire_servers import TOOL_NAME, Checker, Reply, WireServer, fragments, sse, usage_counts

KEYS = {"model", "max_tokens", "messages", "system", "tools", "tool_choice", "temperature", "top_p", "top_k",
        "stop_sequences", "stream", "metadata", "thinking", "service_tier", "container", "mcp_servers",
        "context_management"}


class Anthropic:
    """``POST /v1/messages``."""

    name = "anthropic"

    def route(self, path: str, query: Any) -> str | None:
        return "messages" if path == "/v1/messages" else None

    def is_stream(self, route: str, body: Any, query: Any) -> bool:
        return isinstance(body, dict) and body.get("stream") is True

    def model_of(self, route: str, body: Any) -> str:
        return str(body.get("model"))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
                529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    # -- requests --------------------------------------------------------------------------------------

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        c = Checker()
        if not c.obj(body, "body", KEYS, ("model", "max_tokens", "messages")):
            return c.problems
        c.expect(headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer "), "headers",
                 "missing x-api-key (or a bearer token)")
        c.expect(headers.get("anthropic-version"), "headers", "missing anthropic-version")
        if _file_sources(body.get("messages")):  # the Files API guide: uploaded files need the beta header
            c.expect("files-api-2025-04-14" in headers.get("anthropic-beta", "").split(","), "headers",
                     "a file_id source needs anthropic-beta: files-api-2025-04-14")
        c.text(body["model"], "model", non_empty=True)
        c.expect(isinstance(body["max_tokens"], int) and body["max_tokens"] >= 1, "max_tokens", "must be >= 1")
        if "system" in body:
            system = body["system"]
            if isinstance(system, list):
                for i, block in enumerate(system):
                    self._text(c, block, f"system[{i}]")
            else:
                c.text(system, "system", non_empty=True)
        names = self._tools(c, body)
        if "tool_choice" in body:
            choice = body["tool_choice"]
            if c.obj(choice, "tool_choice", {"type", "name", "disable_parallel_tool_use"}, ("type",)):
                c.expect(choice["type"] in ("auto", "any", "tool", "none"), "tool_choice.type", "bad type")
                c.expect((choice["type"] == "tool") == ("name" in choice), "tool_choice.name",
                         "name goes with type 'tool' only")
                if choice["type"] == "tool":
                    c.expect(choice.get("name") in names, "tool_choice.name", "must name a tool")
                if "disable_parallel_tool_use" in choice:
                    c.kind(choice["disable_parallel_tool_use"], bool, "tool_choice.disable_parallel_tool_use")
                    c.expect(choice["type"] != "none", "tool_choice", "disable_parallel_tool_use not with none")
        if c.kind(body["messages"], list, "messages") and c.expect(body["messages"], "messages", "empty"):
            self._messages(c, body["messages"], server)
        return c.problems

    def _text(self, c: Checker, block: Any, path: str) -> None:
        if c.obj(block, path, {"type", "text", "cache_control", "citations"}, ("type", "text")):
            c.expect(block["type"] == "text", f"{path}.type", "must be 'text'")
            c.text(block["text"], f"{path}.text", non_empty=True)  # "text content blocks must be non-empty"

    def _image(self, c: Checker, block: Any, path: str) -> None:
        if c.obj(block, path, {"type", "source", "cache_control"}, ("type", "source")):
            source = block["source"]
            if isinstance(source, dict) and source.get("type") == "url":
                c.obj(source, f"{path}.source", {"type", "url"}, ("type", "url"))
            else:
                c.obj(source, f"{path}.source", {"type", "media_type", "data"}, ("type", "media_type", "data"))

    def _document(self, c: Checker, block: Any, path: str) -> None:
        """A ``document`` block: a PDF (base64 or URL), plain text, or an uploaded file (Messages API reference)."""
        if not c.obj(block, path, {"type", "source", "title", "context", "citations", "cache_control"},
                     ("type", "source")):
            return
        source = block["source"]
        kind = source.get("type") if isinstance(source, dict) else None
        shapes = {"base64": ({"type", "media_type", "data"}, "application/pdf"),
                  "text": ({"type", "media_type", "data"}, "text/plain"),
                  "url": ({"type", "url"}, None), "file": ({"type", "file_id"}, None)}
        if not c.expect(kind in shapes, f"{path}.source.type", "must be base64, text, url or file"):
            return
        keys, media_type = shapes[kind]
        if c.obj(source, f"{path}.source", keys, tuple(sorted(keys))) and media_type:
            c.expect(source["media_type"] == media_type, f"{path}.source.media_type", f"must be {media_type!r}")

    def _tools(self, c: Checker, body: dict[str, Any]) -> set[str]:
        names: set[str] = set()
        for i, tool in enumerate(body.get("tools") or ()):
            path = f"tools[{i}]"
            if not c.obj(tool, path, {"name", "description", "input_schema", "type", "cache_control", "strict"},
                         ("name", "input_schema")):
                continue
            c.expect(TOOL_NAME.match(str(tool["name"])), f"{path}.name", "bad name")
            names.add(tool["name"])
            schema = tool["input_schema"]
            if c.obj(schema, f"{path}.input_schema"):
                c.expect(schema.get("type") == "object", f"{path}.input_schema.type", "must be 'object'")
                for key in ("anyOf", "oneOf", "allOf"):
                    c.expect(key not in schema, f"{path}.input_schema",
                             f"input_schema does not support {key} at the top level")
            if "strict" in tool:
                c.expect(isinstance(tool["strict"], bool), f"{path}.strict", "must be a boolean")
                if tool["strict"] is True:
                    _strict_subset(c, schema, f"{path}.input_schema")
        c.expect(sum(t.get("strict") is True for t in body.get("tools") or () if isinstance(t, dict)) <= 20,
                 "tools", "at most 20 strict tools per request")
        return names

    def _messages(self, c: Checker, messages: list[Any], server: WireServer) -> None:
        expected_results: list[str] = []
        for i, msg in enumerate(messages):
            path = f"messages[{i}]"
            if not c.obj(msg, path, {"role", "content"}, ("role", "content")):
                continue
            role = msg["role"]
            c.expect(role in ("user", "assistant"), f"{path}.role", "must be user or assistant")
            if i == 0:
                c.expect(role == "user", path, "the first message must use the user role")
            elif isinstance(messages[i - 1], dict):
                c.expect(role != messages[i - 1].get("role"), path, "roles must alternate between user and "
                         "assistant")
            content = msg["content"]
            if isinstance(content, str):
                c.text(content, f"{path}.content", non_empty=True)
                blocks: list[Any] = []
            elif c.kind(content, list, f"{path}.content") and c.expect(content, f"{path}.content", "empty"):
                blocks = content
            else:
                blocks = []
            if role == "user":
                results = [b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") ==
                           "tool_result"]
                if expected_results:
                    c.expect(sorted(results) == sorted(expected_results), path,
                             f"tool_use ids were found without tool_result blocks immediately after: "
                             f"{sorted(set(expected_results) - set(results))}")
                    leading = [b.get("type") for b in blocks[: len(results)] if isinstance(b, dict)]
                    c.expect(leading == ["tool_result"] * len(results), path,
                             "tool_result blocks must come first in the user message")
                else:
                    c.expect(not results, path, "tool_result blocks answer no tool_use of the previous turn")
                expected_results = []
            else:
                c.expect(not expected_results, path, "an assistant turn follows unanswered tool_use blocks")
                expected_results = [b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") ==
                                    "tool_use"]
                self._thinking(c, blocks, path, server)
            for j, block in enumerate(blocks):
                self._block(c, block, f"{path}.content[{j}]", role)
        c.expect(not expected_results, "messages", "the last assistant turn's tool_use blocks have no results")

    def _thinking(self, c: Checker, blocks: list[Any], path: str, server: WireServer) -> None:
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") in server.issued:
                issued = server.issued[block["id"]]
                if blocks and blocks[0] == issued:
                    server.returned.append(issued["signature"])
                else:
                    c.fail(path, "when thinking is used with tools, the thinking block must be sent back "
                                 "unchanged, first in the assistant turn")

    def _block(self, c: Checker, block: Any, path: str, role: str) -> None:
        if not isinstance(block, dict) or "type" not in block:
            c.fail(path, "a content block needs a type")
            return
        kind = block["type"]
        if kind == "text":
            self._text(c, block, path)
        elif kind == "image":
            self._image(c, block, path)
        elif kind == "document":
            self._document(c, block, path)
        elif kind == "tool_use":
            c.expect(role == "assistant", path, "tool_use only in assistant turns")
            if c.obj(block, path, {"type", "id", "name", "input", "cache_control"}, ("id", "name", "input")):
                c.obj(block["input"], f"{path}.input")
        elif kind == "tool_result":
            c.expect(role == "user", path, "tool_result only in user turns")
            if c.obj(block, path, {"type", "tool_use_id", "content", "is_error", "cache_control"}, ("tool_use_id",)):
                content = block.get("content", "")
                if isinstance(content, list):
                    for k, sub in enumerate(content):
                        if isinstance(sub, dict) and sub.get("type") == "image":
                            self._image(c, sub, f"{path}.content[{k}]")
                        elif isinstance(sub, dict) and sub.get("type") == "document":
                            self._document(c, sub, f"{path}.content[{k}]")
                        else:
                            self._text(c, sub, f"{path}.content[{k}]")
                else:
                    c.kind(content, str, f"{path}.content")
                if "is_error" in block:
                    c.kind(block["is_error"], bool, f"{path}.is_error")
        elif kind == "thinking":
            c.expect(role == "assistant", path, "thinking only in assistant turns")
            c.obj(block, path, {"type", "thinking", "signature"}, ("thinking", "signature"))
        elif kind == "redacted_thinking":
            c.obj(block, path, {"type", "data"}, ("data",))
        else:
            c.fail(f"{path}.type", f"unknown block type {kind!r}")

    def conversation(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        turns: list[dict[str, Any]] = []
        for msg in body["messages"]:
            content = msg["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            for b in blocks:
                if b.get("type") == "tool_result":
                    inner = b.get("content", "")
                    inner_text = inner if isinstance(inner, str) else "".join(x.get("text", "") for x in inner)
                    turns.append({"role": "tool", "text": inner_text, "call_id": b["tool_use_id"]})
            if msg["role"] == "assistant":
                calls = [{"id": b["id"], "name": b["name"], "args": b["input"]} for b in blocks
                         if b.get("type") == "tool_use"]
                turns.append({"role": "assistant", "text": text, "calls": calls})
            elif text:
                turns.append({"role": "user", "text": text})
        return turns

    # -- replies -----------------------------------------------------------------------------------------

    def _content(self, reply: Reply, server: WireServer) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.opaque:
            blocks.append({"type": "thinking", "thinking": f"Thinking about {reply.opaque}.",
                           "signature": f"sig-{reply.opaque}"})
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        for i, (name, _) in enumerate(reply.calls):
            call_id = f"toolu_{server.new_id():04d}"
            blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": json.loads(reply.arguments(i))})
            if reply.opaque:
                server.issued[call_id] = blocks[0]
        return blocks

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        prompt, completion = usage_counts(len(body["messages"]), reply)
        return {"input_tokens": prompt, "output_tokens": completion, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0}

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        return {"id": f"msg_{server.new_id():04d}", "type": "message", "role": "assistant", "model": model,
                "content": self._content(reply, server),
                "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
                "usage": self._usage(body, reply)}

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        usage = self._usage(body, reply)
        frames = [sse({"type": "message_start", "message": {
            "id": f"msg_{server.new_id():04d}", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}}, "message_start")]
        frames.append(sse({"type": "ping"}, "ping"))
        for index, block in enumerate(self._content(reply, server)):
            def delta(body: dict[str, Any], index: int = index) -> None:
                frames.append(sse({"type": "content_block_delta", "index": index, "delta": body},
                                  "content_block_delta"))

            if block["type"] == "text":
                start = {"type": "text", "text": ""}
            elif block["type"] == "tool_use":
                start = {**block, "input": {}}
            else:
                start = {"type": "thinking", "thinking": "", "signature": ""}
            frames.append(sse({"type": "content_block_start", "index": index, "content_block": start},
                              "content_block_start"))
            if block["type"] == "text":
                for piece in fragments(block["text"], reply.piece):
                    delta({"type": "text_delta", "text": piece})
            elif block["type"] == "tool_use":
                for piece in fragments(json.dumps(block["input"], ensure_ascii=False), reply.piece):
                    delta({"type": "input_json_delta", "partial_json": piece})
            else:
                for piece in fragments(block["thinking"], reply.piece):
                    delta({"type": "thinking_delta", "thinking": piece})
                delta({"type": "signature_delta", "signature": block["signature"]})
            frames.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        frames.append(sse({"type": "message_delta", "delta": {"stop_reason": "tool_use" if reply.calls else "end_turn",
                                                              "stop_sequence": None},
                           "usage": {"output_tokens": usage["output_tokens"]}}, "message_delta"))
        frames.append(sse({"type": "message_stop"}, "message_stop"))
        return frames


def _file_sources(value: Any) -> int:
    """How many blocks of a request's messages have an uploaded file (``{"type": "file", "file_id"}``) as source."""
    if isinstance(value, list):
        return sum(map(_file_sources, value))
    if not isinstance(value, dict):
        return 0
    found = isinstance(value.get("source"), dict) and value["source"].get("type") == "file"
    return int(found) + sum(_file_sources(v) for v in value.values() if isinstance(v, list))


# strict tool use ("Structured outputs", "JSON Schema limitations"): the keywords a strict input_schema may hold, and
# the string formats it takes (as anthropic-python's transform_schema keeps them)
_STRICT_KEYS = {"type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "enum", "const",
                "$ref", "$defs", "definitions", "description", "title", "format", "minItems"}
_STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}


def _strict_subset(c: Checker, node: Any, path: str) -> None:
    """Check a strict tool's schema node the way the API refuses one outside the strict subset (400)."""
    if not c.obj(node, path):
        return
    for key in node:
        c.expect(key in _STRICT_KEYS, f"{path}.{key}", "is not supported in strict mode")
    c.expect(not isinstance(node.get("type"), list), f"{path}.type", "must be one type in strict mode")
    if "format" in node:
        c.expect(node["format"] in _STRICT_FORMATS, f"{path}.format", "is not a supported format")
    if "minItems" in node:
        c.expect(node["minItems"] in (0, 1), f"{path}.minItems", "only 0 or 1 is supported")
    for key in ("enum", "const"):
        values = node.get("enum", []) if key == "enum" else [node.get("const")]
        c.expect(all(v is None or isinstance(v, str | int | float | bool) for v in values), f"{path}.{key}",
                 "complex types are not supported")
    if node.get("type") == "object" or "properties" in node:
        c.expect(node.get("additionalProperties") is False, f"{path}.additionalProperties",
                 "must be false for every object in strict mode")
        for name, sub in (node.get("properties") or {}).items():
            _strict_subset(c, sub, f"{path}.properties.{name}")
    if "items" in node:
        _strict_subset(c, node["items"], f"{path}.items")
    closed = [set(sub.get("properties") or ()) for sub in node.get("allOf") or ()
              if isinstance(sub, dict) and sub.get("additionalProperties") is False]
    c.expect(len(closed) < 2 or all(keys == closed[0] for keys in closed), f"{path}.allOf",
             "closed objects with different properties: no value can match all of them")
    for key in ("anyOf", "allOf"):
        for i, sub in enumerate(node.get(key) or ()):
            _strict_subset(c, sub, f"{path}.{key}[{i}]")
    for key in ("$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            _strict_subset(c, sub, f"{path}.{key}.{name}")
