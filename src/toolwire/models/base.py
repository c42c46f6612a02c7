"""The chat-model interface every provider implements, and ``bind_tools``.

A chat model turns a list of messages into an :class:`~toolwire.messages.AIMessage`. ``bind_tools``
returns a *new* model that sends the tools' schemas (in the provider's own format) with every
request; the original model is unchanged.

Providers implement the hooks :meth:`BaseChatModel._generate` and, when they have them natively,
:meth:`~BaseChatModel._agenerate`, :meth:`~BaseChatModel._stream` and
:meth:`~BaseChatModel._astream`. Everything else (input coercion, tool conversion, tool_choice
checks, chunk merging) lives here once, for every provider and for sync and async alike.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import dataclasses
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from toolwire._batch import Batching
from toolwire._carried import carrying, uncarried
from toolwire._concurrency import iterate_in_thread, thread_pool
from toolwire._keywords import refuses_unknown_keywords
from toolwire._model_stops import stops_escaped
from toolwire.errors import SchemaError, UserError
from toolwire.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    coerce_messages,
    merge_chunks,
)
from toolwire.models._checked_chunks import _achecked_chunks, _checked_chunks
from toolwire.models._one_call import OutputTool, one_call, one_call_async_stream, one_call_stream
from toolwire.models._reply_chunks import calls_as_streamed, message_to_chunks
from toolwire.models._runnable import RunnableMethods, bound_repr
from toolwire.models._tool_choice import _check_tool_choice, forceable
from toolwire.models._tool_conversion import (
    ServerTool,
    ToolDictSpec,
    hosted_choice,
    server_tool,
    to_tool,
    to_tool_spec,
)
from toolwire.models.lowering._calls import remember_streamed
from toolwire.tools import Tool, ToolSpec

if TYPE_CHECKING:
    from toolwire.models.structured import StructuredOutput

__all__ = [
    "BaseChatModel",
    "ChatRequest",
    "ServerTool",
    "ToolChoice",
    "ToolDictSpec",
    "message_to_chunks",
    "server_tool",
    "to_tool",
    "to_tool_spec",
]

ToolChoice = Literal["auto", "none", "required"] | str


@dataclasses.dataclass(frozen=True, slots=True)
class ChatRequest:
    """Everything a provider needs for one model call.

    Attributes:
        messages: the conversation, oldest first.
        tools: the bound tools' specs, in bind order.
        tool_choice: ``"auto"`` (the model decides), ``"none"`` (no call), ``"required"`` (at least one
            call) or a tool name (call that tool). ``None`` means not set (provider default, "auto").
        parallel_tool_calls: ``False`` asks for at most one call per reply; ``None`` leaves the
            provider default (several allowed).
        strict: ask the provider to enforce the schemas exactly (OpenAI strict mode, Anthropic strict tool use).
        options: per-call generation options (temperature, max_tokens, stop, seed...).
    """

    messages: list[BaseMessage]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    strict: bool | None = None
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def tool_parameters(self) -> dict[str, dict[str, Any]]:
        """``{name: parameters JSON Schema}`` of the bound tools, in bind order: what the codecs take as
        ``tool_names``, to list the tools in the error of a call without a name and to show the called tool's
        own argument shape in the error of its unreadable arguments
        (:func:`~toolwire.models.lowering._calls.native_call`)."""
        return {t.name: t.parameters for t in self.tools}


def _forced(request: ChatRequest) -> str | None:
    """The tool ``request``'s ``tool_choice`` names, or None for a mode (``"auto"``, ``"none"``, ``"required"``)."""
    choice = request.tool_choice
    return choice if choice not in (None, "auto", "none", "required") else None


class BaseChatModel(RunnableMethods, Batching):
    """Base class of chat models.

    Public methods: :meth:`invoke`, :meth:`ainvoke`, :meth:`stream`, :meth:`astream`, :meth:`batch` and
    :meth:`abatch` (many inputs at once, answers in input order), :meth:`bind_tools`,
    :meth:`with_structured_output`, and LangChain's ``bind``, ``with_retry``, ``with_config`` and ``|``
    (:class:`~toolwire.models._runnable.RunnableMethods`). ``input`` is a string (one user message), a message, or a
    list of messages, ``(role, text)`` tuples or ``{"role", "content"}`` dicts.

    Attributes:
        provider: short provider name (``"llamacpp"``, ``"openai"``...), used in errors.
        tools: the bound tools (Tool or ToolSpec), empty when none are bound.
        tool_choice, parallel_tool_calls, strict: the binding options (see :class:`ChatRequest`).
    """

    provider: ClassVar[str] = "base"
    server_tools: ClassVar[tuple[str | None, ...]] = ()
    """The :attr:`ServerTool.provider` values this model sends unchanged; ``bind_tools`` refuses the others."""
    strict_mode: ClassVar[bool] = False
    """Whether ``strict=True`` has an effect: the provider enforces the schemas (OpenAI strict mode, Anthropic strict
    tool use) or the model always does (a local model's grammar). ``bind_tools(strict=True)`` warns where it has
    none (review 53)."""

    tools: tuple[Tool | ToolSpec, ...] = ()
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    strict: bool | None = None
    _one_call: OutputTool | None = None
    """A structured output's tool: keep at most one tool call per reply, without asking the provider, preferring a
    call of it that fits its schema (:meth:`with_structured_output`)."""

    @property
    def model_name(self) -> str:
        """A short name of the model, for reports (providers override)."""
        return type(self).__name__

    # -- binding -----------------------------------------------------------------------------------

    @refuses_unknown_keywords("bind_tools")
    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: ToolChoice | dict[str, Any] | bool | None = "auto",
        parallel_tool_calls: bool | None = None,
        strict: bool | None = None,
    ) -> Self:
        """Return a new model that sends ``tools`` with every request; this model is unchanged.

        Args:
            tools: toolwire tools, plain functions with docstrings, pydantic model classes or TypedDict classes
                (schema only), or OpenAI-format tool dicts (see :func:`to_tool`).
            tool_choice: ``"auto"``, ``"none"`` (also ``False``), ``"required"`` (``"any"`` and ``True`` mean
                the same) or the name of one bound tool; ``None`` sends none (the provider's default, which is
                auto when tools are sent); or the provider dicts Anthropic ``{"type": "auto" | "any" |
                "none"}``, ``{"type": "tool", "name"}`` (``"disable_parallel_tool_use": True`` in it means
                ``parallel_tool_calls=False``) and OpenAI ``{"type": "function", "function": {"name"}}``
                (Responses API: ``{"type": "function", "name"}``, and a bound built-in tool's ``{"type":
                "web_search_preview"}``, ``{"type": "mcp", "server_label"}``).
            parallel_tool_calls: ``False`` for at most one call per reply: asked of the provider, and kept
                where it sends more (a server that ignores the field, calls read from text): the first call is
                kept and the others dropped with a warning in the log (:mod:`toolwire.models._one_call`).
            strict: enforce the schemas exactly where the provider can (OpenAI strict mode, Anthropic strict tool
                use; elsewhere a ``StrictSchemaWarning`` says it is not sent).

        Returns:
            A copy of this model (same class and settings) with the tools converted and bound.

        Raises:
            SchemaError: a tool cannot be converted, or two tools share a name.
            UserError: ``tools`` is not a list (one tool alone, None), ``tool_choice`` names a tool that is
                not bound or is no value listed above, or is ``"required"`` with no tools, ``parallel_tool_calls``
                or ``strict`` is neither a bool nor None (the text ``"false"``, say), or a server tool is of another
                provider (see :attr:`server_tools`), or a keyword is none of the above (the message names the close
                match).
        """
        from toolwire._agent_checks import check_tools

        check_tools(tools, "model.bind_tools([{}])")
        converted = tuple(to_tool(t) for t in tools)
        for item in converted:
            if isinstance(item, ServerTool) and not self._takes_server_tool(item):
                raise UserError(self._server_tool_refusal(item))
        names = [t.name for t in converted]
        dupes = sorted(n for n, count in Counter(names).items() if count > 1)  # (linear: review 266 #3)
        if dupes:
            raise SchemaError(f"Two tools are named {dupes[0]!r}: give each tool a unique name.")
        choice = _check_tool_choice(hosted_choice(tool_choice, converted), names)
        if choice == "required" and not names:  # nothing could satisfy it (review 50)
            raise UserError("tool_choice='required' needs at least one tool: bind the tools with it, or leave "
                            "tool_choice out.")
        for flag, value in (("parallel_tool_calls", parallel_tool_calls), ("strict", strict)):
            if value is not None and not isinstance(value, bool):  # "false" from a config file reads as true
                raise UserError(f"{flag} must be True, False or None, not {value!r}.")
        if parallel_tool_calls is None and isinstance(tool_choice, dict) and tool_choice.get(
                "disable_parallel_tool_use") is True:  # Anthropic's own flag, inside its tool_choice dict
            parallel_tool_calls = False
        new = copy.copy(self)
        new.tools = converted
        new.tool_choice = choice
        new.parallel_tool_calls = parallel_tool_calls
        new._one_call = None
        already = self.strict  # (the Agent binds again what a user bound: warned once, at the user's line)
        new.strict = strict
        if strict and not self.strict_mode and not already:
            from toolwire._warn_site import warn_user
            from toolwire.models.lowering.openai import StrictSchemaWarning

            warn_user(f"{type(self).__name__}: strict=True is not sent (toolwire lowers schemas to OpenAI's "
                      "strict mode and Anthropic's strict tool use only), so the provider does not enforce "
                      "them; toolwire still validates each call's arguments before its tool runs.",
                      StrictSchemaWarning)
        if strict and self.strict_mode:  # what the provider's strict mode cannot take, said at this line
            new._strict_notes = new._strict_probe(self._strict_notes)
        return new

    _strict_notes: frozenset[str] = frozenset()
    """The strict-mode warnings a hosted model's binding gave (:mod:`toolwire.models._strict_notes`)."""

    def _strict_probe(self, known: frozenset[str]) -> frozenset[str]:
        """Warn now of what the provider's strict mode cannot take among the bound tools (hosted models:
        :func:`~toolwire.models._strict_notes.strict_probe`); returns the warnings' texts (``known``: given
        already). Models that enforce schemas themselves (a local grammar) have nothing to say."""
        return known

    @refuses_unknown_keywords("with_structured_output")
    def with_structured_output(self, schema: Any, *, include_raw: bool = False, strict: bool | None = None,
                               method: str = "function_calling", retries: int = 0) -> StructuredOutput:
        """Return a model that answers with one value of ``schema``, read from a forced tool call.

        The new model binds one tool made from ``schema`` (it replaces any tools bound here; one named as a
        ``tool_choice`` mode, ``"none"``..., is named ``"none_output"``) with ``tool_choice`` set to it (Anthropic
        with extended thinking, which cannot force a tool, gets ``"auto"`` and a warning); this model is unchanged.
        Each reply keeps at most one call (:mod:`toolwire.models._one_call`: of several calls of the tool, the first
        whose arguments fit the schema, else the first);
        the provider is asked for one call too (``parallel_tool_calls=False``: Anthropic's
        ``disable_parallel_tool_use``, the embedded model's grammar), except where the field may be refused
        (:meth:`_structured_parallel`: ``ChatOpenAI`` sends it only when this model was bound with it). On the
        embedded model the call is generated under a grammar made from the schema.
        The call's arguments get the repairs a tool's do (JSON text of a nested object decoded, a ``null`` for a
        field with a default dropped) before they are validated; for a JSON Schema dict or tool dict, a ``null`` the
        schema refuses at a key it does not require is dropped (review 96 #4).

        Args:
            schema: a pydantic model class (the value is an instance), a ``TypedDict`` class (a dict) or a
                dataclass (an instance), a JSON Schema dict with a ``title``, a tool dict or OpenAI's
                response-format schema (a dict of the arguments, as written, checked against the schema).
            include_raw: return ``{"raw": AIMessage, "parsed": value or None, "parsing_error": error or None}``
                and raise nothing for a reply that cannot be read. After more than one request (``retries``),
                ``raw.response_metadata["attempts_usage"]`` lists every request's usage.
            strict: as for :meth:`bind_tools` (OpenAI strict mode, Anthropic strict tool use).
            method: ``"function_calling"``, the only way toolwire reads structured output (LangChain's name for it,
                so code written for LangChain runs unchanged).
            retries: the extra requests made after a reply that cannot be read as the schema, each sending back that
                reply and what did not fit (Pydantic AI's output retries); 0 (default): one request.

        Returns:
            A :class:`~toolwire.models.structured.StructuredOutput` (``invoke``, ``ainvoke``).

        Raises:
            SchemaError: ``schema`` cannot be a tool's arguments (see
                :func:`~toolwire.models.structured.output_tool`).
            UserError: ``method`` is another (``"json_schema"``, ``"json_mode"``), ``include_raw`` is not a bool (the
                text ``"false"``, say), ``strict`` is neither a bool nor None, ``retries`` is not a whole number of at
                least 0, or a keyword is none of the above (the message names the close match).
        """
        from toolwire.models.structured import StructuredOutput, output_tool

        if not isinstance(include_raw, bool):  # "false" from a config file would read as true (review 280 #6)
            raise UserError(f"include_raw must be True or False, not {include_raw!r}.")
        if method != "function_calling":
            raise UserError(f"with_structured_output(method={method!r}) is not available: toolwire reads structured "
                            "output from a forced tool call, method='function_calling'; leave method out.")

        spec, read = output_tool(schema)
        spec = forceable(spec)  # (a name that is also a tool_choice mode, "none"..., renamed: review 268 #3)
        # one call: kept here whatever the provider does, and asked of it where the field is always taken
        bound = self.bind_tools([spec], tool_choice=self._structured_choice(spec.name),
                                parallel_tool_calls=self._structured_parallel(), strict=strict)
        bound._one_call = OutputTool(spec.name, read)
        return StructuredOutput(bound, spec.name, read, include_raw=include_raw, retries=retries)

    def _structured_parallel(self) -> bool | None:
        """The ``parallel_tool_calls`` :meth:`with_structured_output` binds with: ``False`` (one call, as LangChain's
        ``with_structured_output`` asks); a provider whose models may refuse the field returns this model's own
        setting instead (the one call is kept locally all the same)."""
        return False

    def _structured_choice(self, name: str) -> str:
        """The ``tool_choice`` :meth:`with_structured_output` binds its tool ``name`` with: the tool itself."""
        return name

    def _takes_server_tool(self, tool: ServerTool) -> bool:
        """Whether this model sends the server tool ``tool`` (by default: its provider is in :attr:`server_tools`)."""
        return tool.provider in self.server_tools

    def _server_tool_refusal(self, tool: ServerTool) -> str:
        """The sentence :meth:`bind_tools` refuses the server tool ``tool`` with (one this model does not send)."""
        from toolwire.models._tool_conversion import openai_builtin

        owner = {"anthropic": "Anthropic (ChatAnthropic)", "google": "Gemini (ChatGoogleGenAI)"}.get(
            tool.provider or "", "OpenAI's Responses API (ChatOpenAI(use_responses_api=True))"
            if openai_builtin(tool) else "another provider")
        return (f"Tool {tool.definition!r} is a server tool of {owner}, which that provider runs itself; "
                f"{type(self).__name__} cannot send it: bind it to that provider's model, or use a toolwire tool.")

    @property
    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The specs of the bound tools, in bind order."""
        return tuple(t.spec if isinstance(t, Tool) else t for t in self.tools)

    def _request(self, input: Any, options: dict[str, Any]) -> ChatRequest:
        from toolwire._agent_checks import unique_ids_in_turns  # (it imports the lowering package)

        if "config" in options:  # LangChain's RunnableConfig: a provider would refuse it as a body field (review 54)
            raise UserError("invoke(config=...) is LangChain's RunnableConfig, which toolwire models do not take: "
                            "leave it out (generation options such as temperature go as keywords).")
        if self._bound_options:  # bind(...): a call's own options win (LangChain's RunnableBinding merge)
            options = {**self._bound_options, **options}
        messages = coerce_messages(input)
        # a call stored with an empty id is given one when read, and its answer (stored with "" too) must follow
        # it; a turn repeating an id gets them renamed with its answers: as the Agent pairs them (review 36)
        unique_ids_in_turns(messages)
        return ChatRequest(
            messages,
            self.tool_specs,
            self.tool_choice,
            self.parallel_tool_calls,
            self.strict,
            options,
        )

    # -- public calls --------------------------------------------------------------------------------

    def invoke(self, input: Any, *config: Any, **options: Any) -> AIMessage:
        """Call the model once and return its reply (text, tool calls, or both).

        Args:
            input: a string, a message, or a list of messages.
            *config: nothing (a lone None is taken): LangChain's ``invoke(input, config)`` passes its
                ``RunnableConfig`` here, which toolwire models do not take.
            **options: generation options for this call (temperature, max_tokens, stop, seed...), over those bound
                with :meth:`bind`. A model from :meth:`with_retry` tries the call again as it was told.

        Returns:
            The reply, an :class:`~toolwire.messages.AIMessage` (``content``, ``tool_calls``, ``usage`` in tokens).

        Raises:
            ProviderError: the provider failed (after its retries).
            UserError: the input cannot be read as messages, or LangChain's config was passed (``config=...``, or
                after the input, ``invoke(input, config)``), or the model's ``_generate`` (``_agenerate`` under
                :meth:`ainvoke`) returned anything but an AIMessage (the sentence names the model's class, on every
                path; review 236 #3).
            RuntimeError: the model's ``_generate`` raised ``StopIteration`` (the message says so: review 226 #1).
        """
        if config:
            _refuse_config("invoke", config)
        request = self._request(input, options)
        reply = self._whole_retry.call(stops_escaped(self._generate), request)  # (see _agenerate)
        reply = self._whole_reply(reply, request, "_generate")
        return one_call(reply, _forced(request), self._one_call) if self._keeps_one_call(request) else reply

    async def ainvoke(self, input: Any, *config: Any, **options: Any) -> AIMessage:
        """Async :meth:`invoke`: the same request, awaited (providers use their SDK's async client).

        Args:
            input, config, options: as for :meth:`invoke`.

        Returns:
            The reply, an :class:`~toolwire.messages.AIMessage`, as :meth:`invoke` returns it.

        Raises:
            ProviderError, UserError: as :meth:`invoke`.
        """
        if config:
            _refuse_config("ainvoke", config)
        request = self._request(input, options)
        reply = self._whole_reply(await self._whole_retry.acall(self._agenerate, request), request, self._async_hook())
        return one_call(reply, _forced(request), self._one_call) if self._keeps_one_call(request) else reply

    def stream(self, input: Any, *config: Any, **options: Any) -> Iterator[AIMessageChunk]:
        """Yield the reply as :class:`~toolwire.messages.AIMessageChunk` pieces; merged with
        :func:`~toolwire.messages.merge_chunks` they equal what :meth:`invoke` returns.

        Args:
            input, config, options: as for :meth:`invoke`.

        Yields:
            :class:`~toolwire.messages.AIMessageChunk` objects, in the order the provider sends them; a reply kept to
            one call (``parallel_tool_calls=False``, a structured output) gives its call whole in the last chunk.

        Raises:
            ProviderError, UserError: as :meth:`invoke` (the model's ``_stream`` yielding anything but an
                AIMessageChunk too), raised while iterating.
        """
        if config:
            _refuse_config("stream", config)
        request = self._request(input, options)
        # each chunk checked (review 241 #3), and each streamed call's tool remembered, so that merging the chunks
        # without the tools shows its shape in an unreadable call's error, as invoke does (review 142 #2)
        chunks = _checked_chunks(self._whole_retry.stream(self._stream, request), self._chunk_refusal("_stream"),
                                 request.tool_parameters if request.tools else None)
        yield from one_call_stream(chunks, _forced(request), self._one_call, request.tool_parameters) \
            if self._keeps_one_call(request) else chunks

    async def astream(self, input: Any, *config: Any, **options: Any) -> AsyncIterator[AIMessageChunk]:
        """Async :meth:`stream`: the reply as :class:`~toolwire.messages.AIMessageChunk` pieces, awaited.

        Args:
            input, config, options: as for :meth:`invoke`.

        Yields:
            :class:`~toolwire.messages.AIMessageChunk` objects, as :meth:`stream` yields them.

        Raises:
            ProviderError, UserError: as :meth:`invoke`, raised while iterating.
        """
        if config:
            _refuse_config("astream", config)
        request = self._request(input, options)
        stream = self._whole_retry.astream(self._astream, request)
        refuse = self._chunk_refusal("_astream" if type(self)._astream is not BaseChatModel._astream else "_stream")
        if self._keeps_one_call(request):  # (each chunk checked before the filter reads it; review 241 #3)
            stream = one_call_async_stream(_achecked_chunks(stream, refuse), _forced(request), self._one_call,
                                           request.tool_parameters)
        try:
            async for chunk in stream:
                if not isinstance(chunk, AIMessageChunk):
                    raise refuse(chunk)
                if request.tools and chunk.tool_call_chunks:  # (see stream(); review 142 #2)
                    remember_streamed(chunk.tool_call_chunks, request.tool_parameters)
                yield chunk
        finally:  # closed early (break, aclose): the provider's stream (an HTTP response, the llama.cpp worker)
            close = getattr(stream, "aclose", None)  # is closed now, as stream()'s ``yield from`` does, not
            if close is not None:  # when collected (an async iterator that is not a generator may have none)
                await close()

    def _keeps_one_call(self, request: ChatRequest) -> bool:
        """Whether each reply to ``request`` is cut to one tool call (``parallel_tool_calls=False``, or a structured
        output model)."""
        return request.parallel_tool_calls is False or self._one_call is not None

    # -- provider hooks -------------------------------------------------------------------------------

    def _generate(self, request: ChatRequest) -> AIMessage:
        """Produce the reply for ``request`` (an :class:`~toolwire.messages.AIMessage`). The default merges
        :meth:`_stream`. A model without a stream of its own streams this reply as :func:`message_to_chunks`, and
        ``invoke`` then reads its calls as that stream reads them (:func:`calls_as_streamed`: names stripped, a call
        with no name invalid), so the two agree (review 236 #1)."""
        if type(self)._stream is BaseChatModel._stream:
            raise NotImplementedError(f"{type(self).__name__} must implement _generate or _stream.")
        return merge_chunks(_checked_chunks(self._stream(request), self._chunk_refusal("_stream")),  # type: ignore[return-value]
                            as_chunk=False, tool_names=request.tool_parameters)

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """Async reply; the default runs :meth:`_generate` in a worker thread, in a copy of the caller's context (a
        request id, a tracing span), as ``asyncio.to_thread`` does; its ``StopIteration`` as a ``RuntimeError``."""
        loop = asyncio.get_running_loop()
        generate = carrying(stops_escaped(self._generate))  # (review 226 #1, #3: asyncio cannot carry them)
        return await uncarried(loop.run_in_executor(thread_pool(), contextvars.copy_context().run, generate, request))

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        """Streamed reply; the default yields the whole :meth:`_generate` reply as chunks."""
        yield from message_to_chunks(self._checked_reply(self._generate(request), "_generate"))

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessageChunk]:
        """Async streamed reply. The default, for a model that implements :meth:`_stream` and neither
        :meth:`_generate` nor :meth:`_agenerate`: :meth:`_stream` read on a worker thread, its chunks passed on as
        they come (so ``astream`` streams, and keeps the same calls, as ``stream`` does); else the
        :meth:`_agenerate` reply as chunks."""
        if self._streams_only():
            async for chunk in iterate_in_thread(lambda stop: self._stream(request), "toolwire-stream"):
                yield chunk
            return
        for chunk in message_to_chunks(self._checked_reply(await self._agenerate(request), self._async_hook())):
            yield chunk

    def _streams_only(self) -> bool:
        """Whether the model implements :meth:`_stream` and neither :meth:`_generate` nor :meth:`_agenerate`."""
        cls = type(self)
        return cls._stream is not BaseChatModel._stream and cls._generate is BaseChatModel._generate \
            and cls._agenerate is BaseChatModel._agenerate

    def _async_hook(self) -> str:
        """The hook whose reply ``ainvoke`` returns: ``"_agenerate"`` where the model has its own, else
        ``"_generate"``."""
        return "_agenerate" if type(self)._agenerate is not BaseChatModel._agenerate else "_generate"

    def _checked_reply(self, reply: Any, hook: str) -> AIMessage:
        """``reply``, the value the model's ``hook`` (``"_generate"``, ``"_agenerate"``) returned, when it is an
        :class:`~toolwire.messages.AIMessage`.

        Raises:
            UserError: it is anything else (a string, None, a dict, a chunk), said at the model call on every path
                rather than as an ``AttributeError`` deep in the Agent (review 236 #3).
        """
        if isinstance(reply, AIMessage):
            return reply
        from toolwire._printing import type_label

        fix = ("return the merged chunk's to_message()" if isinstance(reply, AIMessageChunk)
               else "build the reply as toolwire.AIMessage(text, tool_calls=[...])")
        raise UserError(f"{type(self).__name__}.{hook} must return a toolwire AIMessage, not {type_label(reply)}: "
                        f"{fix}.")

    def _chunk_refusal(self, hook: str) -> Callable[[Any], UserError]:
        """The error for a value the model's ``hook`` (``"_stream"``, ``"_astream"``) yielded that is no
        :class:`~toolwire.messages.AIMessageChunk` (a string, an AIMessage, a dict, None, LangChain's
        ``ChatGenerationChunk``): one sentence naming the model class and the hook, on every path, as
        :meth:`_checked_reply` says it of ``_generate`` (review 241 #3)."""
        def refuse(value: Any) -> UserError:
            from toolwire._printing import type_label

            return UserError(f"{type(self).__name__}.{hook} must yield toolwire AIMessageChunk objects, not "
                             f"{type_label(value)}: yield toolwire.AIMessageChunk(text, tool_call_chunks=[...]).")
        return refuse

    def _whole_reply(self, reply: Any, request: ChatRequest, hook: str) -> AIMessage:
        """The reply ``invoke`` (``ainvoke``) returns for ``reply``, what the model's ``hook`` (``"_generate"``,
        ``"_agenerate"``) returned: checked (:meth:`_checked_reply`), and, where :meth:`_reads_calls_as_streamed`
        says so, with its calls read as its stream reads them (:func:`calls_as_streamed`: names stripped, a call
        with no name invalid; the message itself, content and class kept, when nothing changes). One rule for
        ``invoke`` and ``ainvoke`` (``batch``, ``abatch``), so they agree (review 236 #1, review 241 #2)."""
        reply = self._checked_reply(reply, hook)
        return calls_as_streamed(reply, request.tool_parameters) if self._reads_calls_as_streamed(hook) else reply

    def _reads_calls_as_streamed(self, hook: str) -> bool:
        """Whether the reply of the model's ``hook`` is read as its stream reads it: when the model has its own
        ``hook`` and either no stream of its own (neither :meth:`_stream` nor :meth:`_astream`: its stream is made of
        that reply, review 236 #1) or, for ``"_agenerate"``, no :meth:`_generate` but a :meth:`_stream`, whose merge
        ``invoke`` returns (review 241 #2). A model that streams by itself (every built-in provider) is taken as it
        is, on ``invoke`` and ``ainvoke`` alike."""
        cls = type(self)
        if getattr(cls, hook) is getattr(BaseChatModel, hook):  # the default: a merge of the model's own stream
            return False
        if cls._stream is BaseChatModel._stream and cls._astream is BaseChatModel._astream:
            return True
        return hook == "_agenerate" and cls._generate is BaseChatModel._generate \
            and cls._stream is not BaseChatModel._stream

    def __repr__(self) -> str:
        bound = f", tools={[t.name for t in self.tools]}" if self.tools else ""
        return f"{type(self).__name__}(model={self.model_name!r}{bound}{bound_repr(self)})"


def _refuse_config(method: str, config: tuple[Any, ...]) -> None:
    """Refuse LangChain's positional config, ``model.invoke(input, config)`` (review 143 #6), with the one sentence of
    the keyword form rather than Python's ``TypeError`` about positional arguments; a lone None (LangChain's default)
    is let through.

    Raises:
        UserError: ``config`` holds anything but a lone None.
    """
    if len(config) == 1 and config[0] is None:
        return
    raise UserError(f"{method}(input, config) passes LangChain's RunnableConfig, which toolwire models do not take: "
                    f"leave it out and pass the input alone (generation options such as temperature go as keywords, "
                    f"{method}(input, temperature=0)).")


ResponseFn = Callable[[list[BaseMessage]], Any]
