"""OpenAI wire formats: Chat Completions (``POST /v1/chat/completions``) and Responses (``POST /v1/responses``).

Request shapes and reply examples follow the OpenAI API reference ("Create chat completion", "The chat
completion object", "The chat completion chunk object", "Create a model response", "The response
object", "Streaming events").
"""

from __future__ import annotations

import json
from typing import Any

from .wire_servers import TOOL_NAME, Checker, Reply, WireServer, fragments, sse, usage_counts

CHAT_KEYS = {"model", "messages", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p",
             "max_tokens", "max_completion_tokens", "stop", "seed", "stream", "stream_options", "n", "user",
             "response_format", "frequency_penalty", "presence_penalty", "logprobs", "top_logprobs", "logit_bias",
             "metadata", "store", "reasoning_effort", "service_tier", "modalities", "prediction", "audio",
             "verbosity", "prompt_cache_key", "safety_identifier", "web_search_options"}
RESPONSES_KEYS = {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
                  "max_output_tokens", "temperature", "top_p", "stream", "store", "reasoning", "include",
                  "previous_response_id", "metadata", "text", "truncation", "user", "service_tier", "background",
                  "max_tool_calls", "prompt", "prompt_cache_key", "safety_identifier", "stream_options",
                  "top_logprobs", "conversation"}


def check_strict(c: Checker, schema: Any, path: str) -> None:
    """Strict mode: every object lists all properties in ``required`` and forbids others."""
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")  # (a type list holding "object", ["object", "null"], is an object too: review 228 #1)
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema:
        props = schema.get("properties") or {}
        c.expect(schema.get("additionalProperties") is False, path, "strict mode needs additionalProperties false")
        c.expect(sorted(schema.get("required") or []) == sorted(props), path, "strict mode needs every property "
                 "in required")
        for name, sub in props.items():
            check_strict(c, sub, f"{path}.properties.{name}")
    c.expect("default" not in schema, path, "strict mode does not support 'default'")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or ()):
            check_strict(c, sub, f"{path}.{key}[{i}]")
    if isinstance(schema.get("items"), dict):
        check_strict(c, schema["items"], f"{path}.items")


def _parameters(c: Checker, params: Any, path: str, strict: Any) -> None:
    if c.obj(params, path):
        c.expect(params.get("type") == "object", path, "must be a JSON Schema with type 'object'")
        if strict:
            check_strict(c, params, path)


def _text_parts(c: Checker, content: Any, path: str, part_type: str = "text") -> None:
    if isinstance(content, str):
        return
    if not c.kind(content, list, path):
        return
    for i, part in enumerate(content):
        if c.obj(part, f"{path}[{i}]", {"type", "text", "annotations"}, ("type", "text")):
            c.expect(part["type"] == part_type, f"{path}[{i}].type", f"must be {part_type!r}")
            c.text(part["text"], f"{path}[{i}].text")


def _json_args(c: Checker, text: Any, path: str) -> None:
    if c.kind(text, str, path):
        try:
            c.expect(isinstance(json.loads(text), dict), path, "must be a JSON object text")
        except ValueError:
            c.fail(path, "is not valid JSON")


def _file_source(c: Checker, file: Any, path: str, sources: tuple[str, ...], more: tuple[str, ...] = ()) -> None:
    """A file part's fields (Chat Completions ``file``, Responses ``input_file``): exactly one of ``sources``;
    ``file_data`` a data URL (``data:<mime>;base64,...``) given with a ``filename``."""
    if not c.obj(file, path, {*sources, "filename", *more}):
        return
    given = [key for key in sources if key in file]
    c.expect(len(given) == 1, path, f"needs exactly one of {', '.join(sources)}")
    if "file_data" in file:
        data = file["file_data"]
        c.expect(isinstance(data, str) and data.startswith("data:") and ";base64," in data, f"{path}.file_data",
                 "must be a data URL (data:<mime>;base64,...)")
        c.expect(isinstance(file.get("filename"), str) and file["filename"], f"{path}.filename",
                 "file data needs its filename")


class OpenAIChat:
    """``POST /v1/chat/completions``."""

    name = "openai-chat"

    def route(self, path: str, query: Any) -> str | None:
        return "chat" if path in ("/v1/chat/completions", "/openai/v1/chat/completions") else None  # OpenAI, Azure v1

    def is_stream(self, route: str, body: Any, query: Any) -> bool:
        return isinstance(body, dict) and body.get("stream") is True

    def model_of(self, route: str, body: Any) -> str:
        return str(body.get("model"))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}.get(
            status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    # -- requests --------------------------------------------------------------------------------------

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        c = Checker()
        if not c.obj(body, "body", CHAT_KEYS, ("model", "messages")):
            return c.problems
        c.expect(headers.get("authorization", "").startswith("Bearer "), "headers", "no bearer token")
        c.text(body["model"], "model", non_empty=True)
        names = self._tools(c, body)
        if c.kind(body["messages"], list, "messages") and c.expect(body["messages"], "messages", "must not be empty"):
            self._messages(c, body["messages"])
        if "tool_choice" in body:
            choice = body["tool_choice"]
            c.expect(names, "tool_choice", "only allowed with tools")
            if isinstance(choice, dict):
                if c.obj(choice, "tool_choice", {"type", "function"}, ("type", "function")):
                    c.expect(choice["type"] == "function", "tool_choice.type", "must be 'function'")
                    c.expect((choice["function"] or {}).get("name") in names, "tool_choice.function.name",
                             "must name a tool")
            else:
                c.expect(choice in ("none", "auto", "required"), "tool_choice", f"bad value {choice!r}")
        if "parallel_tool_calls" in body:
            c.kind(body["parallel_tool_calls"], bool, "parallel_tool_calls")
            c.expect(names, "parallel_tool_calls", "only allowed with tools")
        if "stream_options" in body:
            c.expect(body.get("stream") is True, "stream_options", "only allowed with stream=true")
            c.obj(body["stream_options"], "stream_options", {"include_usage", "include_obfuscation"})
        for key in ("max_tokens", "max_completion_tokens"):
            if key in body:
                c.expect(isinstance(body[key], int) and body[key] > 0, key, "must be a positive integer")
        return c.problems

    def _tools(self, c: Checker, body: dict[str, Any]) -> set[str]:
        names: set[str] = set()
        if "tools" not in body:
            return names
        if not c.kind(body["tools"], list, "tools"):
            return names
        for i, tool in enumerate(body["tools"]):
            path = f"tools[{i}]"
            if not c.obj(tool, path, {"type", "function"}, ("type", "function")):
                continue
            c.expect(tool["type"] == "function", f"{path}.type", "must be 'function'")
            fn = tool["function"]
            if c.obj(fn, f"{path}.function", {"name", "description", "parameters", "strict"}, ("name",)):
                c.expect(isinstance(fn["name"], str) and TOOL_NAME.match(fn["name"]), f"{path}.function.name",
                         "must match ^[a-zA-Z0-9_-]{1,64}$")
                names.add(fn["name"])
                if "parameters" in fn:
                    _parameters(c, fn["parameters"], f"{path}.function.parameters", fn.get("strict"))
        return names

    def _messages(self, c: Checker, messages: list[Any]) -> None:
        pending: set[str] = set()
        for i, msg in enumerate(messages):
            path = f"messages[{i}]"
            if not c.obj(msg, path, None, ("role",)):
                continue
            role = msg["role"]
            if role != "tool" and pending:
                c.fail(path, f"an assistant message with tool_calls must be followed by tool messages answering "
                             f"each tool_call_id; missing {sorted(pending)}")
                pending = set()
            if role in ("system", "developer"):
                c.obj(msg, path, {"role", "content", "name"}, ("content",))
                _text_parts(c, msg.get("content"), f"{path}.content")
            elif role == "user":
                if c.obj(msg, path, {"role", "content", "name"}, ("content",)) and isinstance(msg["content"], list):
                    for j, part in enumerate(msg["content"]):
                        ppath = f"{path}.content[{j}]"
                        if c.obj(part, ppath, {"type", "text", "image_url", "input_audio", "file"}, ("type",)):
                            if part["type"] == "text":
                                c.text(part.get("text"), f"{ppath}.text")
                            elif part["type"] == "image_url":
                                c.obj(part.get("image_url"), f"{ppath}.image_url", {"url", "detail"}, ("url",))
                            elif part["type"] == "file":  # {"file_data": <data URL>, "filename"} or {"file_id"}
                                _file_source(c, part.get("file"), f"{ppath}.file", ("file_data", "file_id"))
                            elif part["type"] == "input_audio":
                                audio = part.get("input_audio")
                                if c.obj(audio, f"{ppath}.input_audio", {"data", "format"}, ("data", "format")):
                                    c.expect(audio["format"] in ("wav", "mp3"), f"{ppath}.input_audio.format",
                                             "must be 'wav' or 'mp3'")
            elif role == "assistant":
                if not c.obj(msg, path, {"role", "content", "name", "tool_calls", "refusal", "audio"}):
                    continue
                calls = msg.get("tool_calls")
                content = msg.get("content")
                c.expect(content is not None or calls, path, "content is required unless tool_calls is set")
                if content is not None:
                    _text_parts(c, content, f"{path}.content")
                if calls is not None and c.kind(calls, list, f"{path}.tool_calls"):
                    c.expect(calls, f"{path}.tool_calls", "must not be empty")
                    for j, call in enumerate(calls):
                        cpath = f"{path}.tool_calls[{j}]"
                        if c.obj(call, cpath, {"id", "type", "function"}, ("id", "type", "function")):
                            c.expect(call["type"] == "function", f"{cpath}.type", "must be 'function'")
                            c.text(call["id"], f"{cpath}.id", non_empty=True)
                            if c.obj(call["function"], f"{cpath}.function", {"name", "arguments"},
                                     ("name", "arguments")):
                                c.text(call["function"]["name"], f"{cpath}.function.name", non_empty=True)
                                # vLLM and SGLang json.loads every past call's arguments: 400 when one fails
                                _json_args(c, call["function"]["arguments"], f"{cpath}.function.arguments")
                            pending.add(call["id"])
            elif role == "tool":
                if c.obj(msg, path, {"role", "content", "tool_call_id"}, ("content", "tool_call_id")):
                    _text_parts(c, msg["content"], f"{path}.content")
                    if msg["tool_call_id"] in pending:
                        pending.discard(msg["tool_call_id"])
                    else:
                        c.fail(path, f"tool message answers no pending tool call ({msg['tool_call_id']!r})")
            else:
                c.fail(f"{path}.role", f"unknown role {role!r}")
        if pending:
            c.fail("messages", f"tool calls without results: {sorted(pending)}")

    def conversation(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        turns = []
        for msg in body["messages"]:
            content = msg.get("content")
            text = content if isinstance(content, str) else "".join(
                p.get("text", "") for p in content or () if isinstance(p, dict))
            if msg["role"] == "tool":
                turns.append({"role": "tool", "text": text, "call_id": msg["tool_call_id"]})
            elif msg["role"] == "assistant":
                calls = [{"id": c["id"], "name": c["function"]["name"], "args": json.loads(c["function"]["arguments"])}
                         for c in msg.get("tool_calls") or ()]
                turns.append({"role": "assistant", "text": text, "calls": calls})
            else:
                turns.append({"role": msg["role"], "text": text})
        return turns

    # -- replies -----------------------------------------------------------------------------------------

    def _calls(self, reply: Reply, server: WireServer) -> list[dict[str, Any]]:
        return [{"id": f"call_{server.new_id()}", "type": "function",
                 "function": {"name": name, "arguments": reply.arguments(i)}}
                for i, (name, _) in enumerate(reply.calls)]

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        prompt, completion = usage_counts(len(body["messages"]), reply)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}}

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None,
                                   "annotations": []}
        if reply.calls:
            message["tool_calls"] = self._calls(reply, server)
        return {"id": f"chatcmpl-{server.new_id()}", "object": "chat.completion", "created": 1741569952,
                "model": model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                             "finish_reason": "tool_calls" if reply.calls else "stop"}],
                "usage": self._usage(body, reply), "service_tier": "default", "system_fingerprint": "fp_wire"}

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        rid = f"chatcmpl-{server.new_id()}"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse({"id": rid, "object": "chat.completion.chunk", "created": 1741569952, "model": model,
                        "system_fingerprint": "fp_wire",
                        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})

        frames = [chunk({"role": "assistant", "content": "", "refusal": None})]
        frames += [chunk({"content": piece}) for piece in fragments(reply.text, reply.piece)] if reply.text else []
        calls = self._calls(reply, server)
        streams = []
        for i, call in enumerate(calls):
            head = chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                          "function": {"name": call["function"]["name"], "arguments": ""}}]})
            rest = [chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                    for piece in fragments(call["function"]["arguments"], reply.piece)]
            streams.append([head, *rest])
        if reply.interleave:
            longest = max((len(s) for s in streams), default=0)
            frames += [s[k] for k in range(longest) for s in streams if k < len(s)]
        else:
            frames += [f for s in streams for f in s]
        frames.append(chunk({}, "tool_calls" if reply.calls else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            frames.append(sse({"id": rid, "object": "chat.completion.chunk", "created": 1741569952, "model": model,
                               "choices": [], "usage": self._usage(body, reply)}))
        frames.append(sse("[DONE]"))
        return frames


class OpenAIResponses:
    """``POST /v1/responses``."""

    name = "openai-responses"

    def route(self, path: str, query: Any) -> str | None:
        return "responses" if path in ("/v1/responses", "/openai/v1/responses") else None

    is_stream = OpenAIChat.is_stream
    model_of = OpenAIChat.model_of
    error_body = OpenAIChat.error_body

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        c = Checker()
        if not c.obj(body, "body", RESPONSES_KEYS, ("model", "input")):
            return c.problems
        c.text(body["model"], "model", non_empty=True)
        names: set[str] = set()
        for i, tool in enumerate(body.get("tools") or ()):
            path = f"tools[{i}]"
            if c.obj(tool, path, {"type", "name", "description", "parameters", "strict"},
                     ("type", "name", "parameters", "strict")):
                c.expect(tool["type"] == "function", f"{path}.type", "must be 'function'")
                c.expect(TOOL_NAME.match(str(tool["name"])), f"{path}.name", "bad name")
                c.kind(tool["strict"], bool, f"{path}.strict")
                _parameters(c, tool["parameters"], f"{path}.parameters", tool["strict"])
                names.add(tool["name"])
        if "tool_choice" in body:
            choice = body["tool_choice"]
            if isinstance(choice, dict):
                if c.obj(choice, "tool_choice", {"type", "name"}, ("type", "name")):
                    c.expect(choice["type"] == "function" and choice["name"] in names, "tool_choice", "bad choice")
            else:
                c.expect(choice in ("none", "auto", "required"), "tool_choice", f"bad value {choice!r}")
        if "parallel_tool_calls" in body:
            c.kind(body["parallel_tool_calls"], bool, "parallel_tool_calls")
        if isinstance(body["input"], list):
            self._input(c, body["input"], server)
        else:
            c.kind(body["input"], str, "input")
        return c.problems

    def _input(self, c: Checker, items: list[Any], server: WireServer) -> None:
        calls: dict[str, int] = {}
        answered: set[str] = set()
        reasoning: dict[str, Any] = {}
        self._item_order(c, items, server)
        for i, item in enumerate(items):
            path = f"input[{i}]"
            if not isinstance(item, dict):
                c.fail(path, "must be an object")
                continue
            kind = item.get("type", "message")
            if kind == "message":
                if c.obj(item, path, {"type", "role", "content", "id", "status"}, ("role", "content")):
                    role = item["role"]
                    c.expect(role in ("user", "assistant", "system", "developer"), f"{path}.role", "bad role")
                    if "id" in item:  # an output message given back: the assistant's, whole (type, status, parts)
                        c.expect(role == "assistant" and item.get("type") == "message" and "status" in item
                                 and isinstance(item["content"], list), path,
                                 "an output message item needs type 'message', role 'assistant', status and parts")
                    part = "output_text" if role == "assistant" else "input_text"
                    if isinstance(item["content"], list):
                        for j, p in enumerate(item["content"]):
                            if isinstance(p, dict) and p.get("type") == "input_image":
                                c.obj(p, f"{path}.content[{j}]", {"type", "image_url", "file_id", "detail"})
                            elif isinstance(p, dict) and p.get("type") == "input_file":
                                _file_source(c, {k: v for k, v in p.items() if k != "type"}, f"{path}.content[{j}]",
                                             ("file_data", "file_id", "file_url"), ("detail",))
                            else:
                                _text_parts(c, [p], f"{path}.content[{j}]", part)
                    else:
                        c.kind(item["content"], str, f"{path}.content")
            elif kind == "function_call":
                if c.obj(item, path, {"type", "call_id", "name", "arguments", "id", "status"},
                         ("call_id", "name", "arguments")):
                    _json_args(c, item["arguments"], f"{path}.arguments")
                    calls[item["call_id"]] = i
                    issued = server.issued.get(item["call_id"])
                    if issued is not None:
                        if reasoning.get(issued["id"]) == issued:
                            server.returned.append(issued["encrypted_content"])
                        else:
                            c.fail(path, "the reasoning item of this function call was not sent back unchanged")
            elif kind == "function_call_output":
                if c.obj(item, path, {"type", "call_id", "output", "id", "status"}, ("call_id", "output")):
                    c.expect(item["call_id"] in calls, path, f"no function call with call_id {item['call_id']!r}")
                    answered.add(item["call_id"])
                    _text_parts(c, item["output"], f"{path}.output", "input_text")
            elif kind == "reasoning":
                if c.obj(item, path, {"type", "id", "summary", "encrypted_content", "content", "status"},
                         ("id", "summary")):
                    reasoning[item["id"]] = item
            else:
                c.fail(f"{path}.type", f"unknown item type {kind!r}")
        missing = sorted(set(calls) - answered)
        c.expect(not missing, "input", f"No tool output found for function call {missing}")

    @staticmethod
    def _item_order(c: Checker, items: list[Any], server: WireServer) -> None:
        """OpenAI's rule for reasoning items given back: each must be followed by the item that followed it in
        the output (matched by that item's id), and that item must come right after its reasoning item (the API
        answers 400 "Item 'rs_...' of type 'reasoning' was provided without its required following item", and
        "Item 'msg_...' of type 'message' was provided without its required 'reasoning' item: 'rs_...'")."""
        leaders = {after: before for before, after in server.followers.items()}
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            following = server.followers.get(item.get("id")) if item.get("type") == "reasoning" else None
            if following is not None:
                after = items[i + 1] if i + 1 < len(items) else None
                c.expect(isinstance(after, dict) and after.get("id") == following, f"input[{i}]",
                         f"Item {item['id']!r} of type 'reasoning' was provided without its required following item "
                         f"({following!r})")
            leader = leaders.get(item.get("id")) if item.get("type") != "reasoning" else None
            if leader is not None:
                before = items[i - 1] if i > 0 else None
                c.expect(isinstance(before, dict) and before.get("id") == leader, f"input[{i}]",
                         f"Item {item['id']!r} of type {item.get('type')!r} was provided without its required "
                         f"'reasoning' item: {leader!r}")

    def conversation(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        if isinstance(body["input"], str):
            return [{"role": "user", "text": body["input"]}]
        turns: list[dict[str, Any]] = []
        for item in body["input"]:
            kind = item.get("type", "message")
            if kind == "message":
                content = item["content"]
                text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
                turns.append({"role": item["role"], "text": text})
            elif kind == "function_call":
                turns.append({"role": "assistant", "text": "", "calls": [
                    {"id": item["call_id"], "name": item["name"], "args": json.loads(item["arguments"])}]})
            elif kind == "function_call_output":
                output = item["output"]
                text = output if isinstance(output, str) else "".join(p.get("text", "") for p in output)
                turns.append({"role": "tool", "text": text, "call_id": item["call_id"]})
        return turns

    def _output(self, reply: Reply, server: WireServer) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if reply.opaque:
            items.append({"type": "reasoning", "id": f"rs_{server.new_id()}", "summary": [],
                          "encrypted_content": f"enc-{reply.opaque}"})
        if reply.text:
            items.append({"type": "message", "id": f"msg_{server.new_id()}", "status": "completed",
                          "role": "assistant", "content": [{"type": "output_text", "text": reply.text,
                                                            "annotations": []}]})
        for i, (name, _) in enumerate(reply.calls):
            n = server.new_id()
            items.append({"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
                          "arguments": reply.arguments(i), "status": "completed"})
            if reply.opaque:
                server.issued[f"call_{n}"] = items[0]
        if reply.opaque and len(items) > 1:  # the item the reasoning item must be given back with
            server.followers[items[0]["id"]] = items[1]["id"]
        return items

    def _response(self, reply: Reply, body: dict[str, Any], model: str, rid: str,
                  output: list[dict[str, Any]], status: str) -> dict[str, Any]:
        length = len(body["input"]) if isinstance(body["input"], list) else 1
        prompt, completion = usage_counts(length, reply)
        return {"id": rid, "object": "response", "created_at": 1741476542, "status": status, "error": None,
                "incomplete_details": None, "instructions": None, "max_output_tokens": None, "model": model,
                "output": output, "parallel_tool_calls": True, "previous_response_id": None,
                "reasoning": {"effort": None, "summary": None}, "store": True, "temperature": 1.0,
                "text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": [], "top_p": 1.0,
                "truncation": "disabled", "user": None, "metadata": {},
                "usage": {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": prompt + completion} if status == "completed" else None}

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        return self._response(reply, body, model, f"resp_{server.new_id()}", self._output(reply, server),
                              "completed")

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        rid = f"resp_{server.new_id()}"
        output = self._output(reply, server)
        seq = iter(range(10_000))
        frames: list[bytes] = []

        def event(kind: str, **data: Any) -> None:
            frames.append(sse({"type": kind, "sequence_number": next(seq), **data}, kind))

        event("response.created", response=self._response(reply, body, model, rid, [], "in_progress"))
        event("response.in_progress", response=self._response(reply, body, model, rid, [], "in_progress"))
        for index, item in enumerate(output):
            if item["type"] == "message":
                text = item["content"][0]["text"]
                event("response.output_item.added", output_index=index, item={**item, "status": "in_progress",
                                                                             "content": []})
                part = {"type": "output_text", "text": "", "annotations": []}
                event("response.content_part.added", item_id=item["id"], output_index=index, content_index=0,
                      part=part)
                for piece in fragments(text, reply.piece):
                    event("response.output_text.delta", item_id=item["id"], output_index=index, content_index=0,
                          delta=piece, logprobs=[])
                event("response.output_text.done", item_id=item["id"], output_index=index, content_index=0,
                      text=text, logprobs=[])
                event("response.content_part.done", item_id=item["id"], output_index=index, content_index=0,
                      part={**part, "text": text})
            elif item["type"] == "function_call":
                event("response.output_item.added", output_index=index, item={**item, "arguments": "",
                                                                             "status": "in_progress"})
                for piece in fragments(item["arguments"], reply.piece):
                    event("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                          delta=piece)
                event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                      arguments=item["arguments"])
            else:
                event("response.output_item.added", output_index=index, item=item)
            event("response.output_item.done", output_index=index, item=item)
        event("response.completed", response=self._response(reply, body, model, rid, output, "completed"))
        return frames
