"""One exception hierarchy for toolwire.

Every error toolwire raises derives from :class:`ToolwireError`. Errors meant for people carry one
clear sentence that says what to do. Errors from lower-level libraries (pydantic, SDKs, llama.cpp) are
translated into the most specific class here at one boundary, so callers catch toolwire classes only.

Tree::

    ToolwireError
    ├── UserError              wrong use of the API or CLI (bad argument, unknown model name)
    │   ├── SchemaError        a function, type or schema that cannot become a tool schema
    │   └── MissingExtraError  an optional extra is not installed (also an ImportError)
    ├── ToolCallParseError     model output that cannot be read as a tool call (keeps the raw text)
    ├── ToolExecutionError     a tool failed: invalid arguments, exception, timeout, unknown tool
    │   ├── ToolValidationError
    │   ├── ToolTimeoutError
    │   ├── UnknownToolError
    │   └── ToolResultError    the tool ran, but its result cannot be sent to a model (bytes, a cycle)
    ├── ProviderError          a model provider failed (provider, status, retryable, hint)
    └── MaxStepsExceeded       the Agent loop hit max_steps (carries the messages so far)

An exception that ends an Agent run from a model call or the tool executor (a ProviderError, say) keeps its
class and also carries the conversation so far, as ``exc.messages``: pass it to ``Agent.invoke`` to resume the
run without losing the tool calls already made (see :mod:`toolwire.agent`). Every error pickles and copies with its
attributes (:meth:`ToolwireError.__reduce__`), so one raised in a worker process comes back whole.

Warnings (each a ``UserWarning``, to filter with ``warnings.filterwarnings("ignore", category=...)`` or to expect
in tests): :class:`ToolDefinitionWarning` flags, once when a tool is defined, something that works but that the
model or a provider cannot use as written (a ``*args`` parameter, a docstring entry for a parameter the function
lacks, a name some providers refuse); :class:`StrictSchemaWarning` says a tool asked for strict mode is sent
non-strict (or, on Gemini, that ``strict=True`` is not sent); :class:`RepeatedCallWarning` says an Agent answered a
repeated call without running the tool again.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ContextOverflowError",
    "MaxStepsExceeded",
    "MissingExtraError",
    "ProviderError",
    "RepeatedCallWarning",
    "SchemaError",
    "StrictSchemaWarning",
    "ToolCallParseError",
    "ToolDefinitionWarning",
    "ToolExecutionError",
    "ToolResultError",
    "ToolTimeoutError",
    "ToolValidationError",
    "ToolwireError",
    "UnknownToolError",
    "UserError",
]


class ToolwireError(Exception):
    """Base class of every error toolwire raises.

    Args:
        *args: as for :class:`Exception` (the first is the message).
        api_advice: the clause of the message that advises changing a Python argument (``", or raise
            max_retries"``), exactly as the message writes it; None when the message names none. A caller that
            offers other settings (the command line has no ``max_retries``) says the message without it,
            with :meth:`without_api_advice`.

    Attributes:
        api_advice: as given.
    """

    def __init__(self, *args: Any, api_advice: str | None = None) -> None:
        super().__init__(*args)
        self.api_advice = api_advice

    def __reduce__(self) -> tuple[Any, ...]:
        """How pickle and ``copy`` rebuild the error: of its class, with its ``args`` and attributes, without calling
        ``__init__`` (which may need more than the message: ``MaxStepsExceeded(message, messages, steps)``,
        ``ProviderError(message, provider=...)``), so an error raised in a worker process (``ProcessPoolExecutor``,
        ``multiprocessing``) comes back whole, ``exc.messages`` and all (review 226 #2).

        Returns:
            ``(rebuild function, (class, args, attributes))``.
        """
        state = dict(self.__dict__)
        if isinstance(self, ImportError):  # (MissingExtraError: ImportError's own fields are not in __dict__)
            state.update(name=self.name, path=self.path)
        return _rebuilt, (type(self), self.args, state)

    def without_api_advice(self) -> str:
        """Return ``str(self)`` without its :attr:`api_advice` clause (the text unchanged when there is none)."""
        text = str(self)
        return text.replace(self.api_advice, "", 1) if self.api_advice else text


def _rebuilt(cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]) -> BaseException:
    """The error :meth:`ToolwireError.__reduce__` saved: an instance of ``cls`` with ``args`` and the attributes
    ``state`` (name -> value), its ``__init__`` not called."""
    error = cls.__new__(cls, *args)
    error.args = args
    for name, value in state.items():
        if name in ("name", "path") and isinstance(error, ImportError):
            setattr(error, name, value)
        else:
            error.__dict__[name] = value
    return error


class UserError(ToolwireError):
    """The API or the command line was used in a way that cannot work; the message says what to do."""


class MissingExtraError(UserError, ImportError):
    """A package of one of toolwire's optional extras is not installed (``[local]``: llama-cpp-python and numpy); the
    message names it and the ``pip install`` line to run. Also an :class:`ImportError`, so that a guard ``except
    ImportError:`` catches it (review 165 #3): around ``from toolwire.models import ChatLlamaCpp`` for a missing numpy,
    and around ``ChatLlamaCpp(...)`` (or ``init_chat_model("local")``) for a missing llama-cpp-python."""


class ContextOverflowError(UserError):
    """A local model's prompt leaves no room for a reply in its context window (``n_ctx`` tokens).

    Raised before anything is generated. The message says what takes the room and what to do; the CLI
    gives the same advice with its own option names (:meth:`advice`).

    Attributes:
        tokens: the prompt's length in tokens (the conversation, with the system turn and the tools).
        n_ctx: the context window in tokens.
        tools_tokens: the tokens the bound tools' descriptions add to the system turn (0 when no tools are offered
            or it cannot be measured).
        tool_count: how many tools were offered.
        min_room: the fewest tokens a reply must have left in the window (the prompt leaves fewer).
        system_tokens: the tokens of the system turn without the tools (the system prompt; 0 when there is none
            or it cannot be measured).
        trained_context: the most tokens the model can attend to at all (its GGUF's context length), or None.
    """

    def __init__(self, tokens: int, n_ctx: int, *, tools_tokens: int = 0, tool_count: int = 0,
                 min_room: int = 8, system_tokens: int = 0, trained_context: int | None = None) -> None:
        self.tokens, self.n_ctx, self.tools_tokens, self.tool_count = tokens, n_ctx, tools_tokens, tool_count
        self.min_room, self.system_tokens, self.trained_context = min_room, system_tokens, trained_context
        super().__init__(self.advice())

    @property
    def tools_fill_it(self) -> bool:
        """Whether the tools' descriptions take most of the prompt (then binding fewer tools is the fix)."""
        return self.tool_count > 0 and 2 * self.tools_tokens >= self.tokens

    @property
    def no_question_fits(self) -> bool:
        """Whether the system turn alone (the system prompt and the tools) leaves no room for any question and reply:
        then no shorter conversation helps."""
        return self.system_tokens + self.tools_tokens + self.min_room >= self.n_ctx

    def advice(self, n_ctx_option: str = "a larger n_ctx") -> str:
        """Return the error's advice text: what fills the context (sizes in tokens) and what to do about it; a larger
        context is offered only while ``n_ctx`` is below what the model can hold (``trained_context``).

        Args:
            n_ctx_option: how to ask for a larger context, quoted in the text (``"--n-ctx 16384"`` on the CLI).
        """
        def more(part: int) -> str:  # a larger context is offered where it could hold the part and a reply
            fits = self.trained_context is None or (self.n_ctx < self.trained_context
                                                    and part + self.min_room < self.trained_context)
            return f", or pass {n_ctx_option}" if fits else ""

        if self.tools_fill_it:
            one = self.tool_count == 1
            tools = "The one tool bound" if one else f"The {self.tool_count} tools bound"
            verb = "takes" if one else "take"
            fix = "shorten its description" if one else "bind fewer tools or shorten their descriptions"
            if self.tools_tokens > self.n_ctx:  # (review 170 #4: "takes 407 of the 256 tokens")
                return (f"{tools} alone {verb} {self.tools_tokens} tokens, more than the {self.n_ctx} the context "
                        f"holds: {fix}{more(self.tools_tokens)}.")
            return (f"{tools} {verb} {self.tools_tokens} of the {self.n_ctx} tokens the context holds, leaving too "
                    f"little room for the conversation and the reply ({self.tokens} tokens in all): "
                    f"{fix}{more(self.tools_tokens)}.")
        if 2 * self.system_tokens >= self.tokens:  # (review 110: it was blamed on the tools)
            if self.system_tokens > self.n_ctx:
                return (f"The system prompt alone takes {self.system_tokens} tokens, more than the {self.n_ctx} the "
                        f"context holds: shorten it{more(self.system_tokens)}.")
            return (f"The system prompt takes {self.system_tokens} of the {self.n_ctx} tokens the context holds, "
                    f"leaving too little room for the conversation and the reply ({self.tokens} tokens in all): "
                    f"shorten the system prompt{more(self.system_tokens)}.")
        if self.trained_context is not None and self.tokens + self.min_room > self.trained_context:  # (review 110)
            return (f"The conversation is {self.tokens} tokens long, more than the {self.trained_context} tokens the "
                    "model can hold at all (a larger context cannot help): shorten it.")
        return (f"The conversation is {self.tokens} tokens long and the reply needs room for at least {self.min_room} "
                f"more, but the context holds {self.n_ctx}: pass {n_ctx_option} or shorten the conversation.")


def window_advice(metadata: dict[str, Any], n_ctx_option: str = "a larger n_ctx", also: str = "") -> str:
    """What to do about a reply cut where the context window ran out (``response_metadata["context_full"]``): pass
    ``n_ctx_option`` while the model can hold more (its metadata's ``n_ctx`` below ``trained_context``, both in
    tokens; either missing counts as "can"), else shorten, since no larger window loads (review 112: a larger one was
    offered at the model's limit, and then refused). ``also``: a clause added to the advice (the CLI's "'clear'
    starts a new conversation")."""
    n_ctx, trained = metadata.get("n_ctx"), metadata.get("trained_context")
    if not isinstance(n_ctx, int) or not isinstance(trained, int) or n_ctx < trained:
        return f"pass {n_ctx_option}, or shorten the conversation{also}"
    return (f"the model holds at most the {trained} tokens it was trained on, so shorten the conversation or ask for "
            f"fewer or smaller tool results{also}")


class SchemaError(UserError):
    """A function, type hint or schema cannot be turned into a tool's JSON Schema.

    Raised at decoration time (``@tool``), never per call.
    """


class ToolCallParseError(ToolwireError, ValueError):
    """Model output could not be read as a tool call.

    ``message`` is the error's text; the other constructor arguments are kept as these attributes. It is also a
    ``ValueError``, as LangChain's ``OutputParserException`` is, so a ported ``except ValueError`` still catches it
    (review 99).

    Attributes:
        raw: the exact text (or object) that failed to parse, kept so nothing is lost.
    """

    def __init__(self, message: str, raw: Any = None) -> None:
        super().__init__(message)
        self.raw = raw


class ToolExecutionError(ToolwireError):
    """A tool call could not be carried out.

    ``message`` is the error's text; the other constructor arguments are kept as these attributes.

    Attributes:
        tool_name: the name of the tool that was called (may be unknown to the executor).
        tool_call_id: the id of the call, when the call came from a model. The error a
            :class:`~toolwire.execution.ToolExecutor` (or an :class:`~toolwire.agent.Agent`, or ``Tool.invoke`` of a
            tool call) raises for a call under ``handle_errors=False`` names that call by both (review 289 #1), so
            that ``exc.tool_name`` and ``exc.tool_call_id`` find it among the reply's ``tool_calls``; also when the
            error came from another tool the tool ran with plain arguments (``inner.invoke({...})``: no call, no id),
            whose name then stays in the message only (review 313 #3). The one exception: an error that already
            named a tool call keeps it, as one of a call with an id the tool made itself
            (``inner.invoke(tool_call)``, a nested ToolExecutor or Agent run), whose error it let through. Such an
            inner call made on another thread counts only when that thread runs in a copy of the tool's context
            (``asyncio.to_thread``, ``pool.submit(contextvars.copy_context().run, ...)``); from a plain
            ``ThreadPoolExecutor`` or ``loop.run_in_executor`` its error names the model's call.
        artifact: what the failed call gave besides its message, kept as the error ToolMessage's ``artifact`` (an
            MCP ``isError`` result's ``{"structured_content", "content"}``); None by default.
    """

    def __init__(self, message: str, tool_name: str | None = None, tool_call_id: str | None = None, *,
                 artifact: Any = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.artifact = artifact


class ToolValidationError(ToolExecutionError, ValueError):
    """The arguments of a tool call do not match the tool's JSON Schema.

    The message names each field, what was expected and what came. It is also a ``ValueError``, as pydantic's
    ``ValidationError`` (what LangChain's tools raise for bad arguments) is, so a ported ``except ValueError`` still
    catches it (review 99).
    """


class ToolTimeoutError(ToolExecutionError):
    """A tool ran past its timeout (seconds). A sync tool's thread cannot be killed: it is abandoned."""


class UnknownToolError(ToolExecutionError):
    """The model called a tool name that is not among the available tools (the message lists them)."""


class ToolResultError(ToolExecutionError):
    """The tool ran and returned, but its result cannot be sent to a model: bytes that are not UTF-8 text, a value
    JSON cannot hold, a circular reference (:func:`toolwire.results.result_to_content`). The message says what
    to return instead (and, raised by a :class:`~toolwire.execution.ToolExecutor` or an Agent, which tool returned
    it: ``"Tool 'export' returned bytes that are not UTF-8 text, ..."``); the text the model gets says the tool
    *ran*, so that it does not call it again for an action that already happened (review 57).

    Attributes:
        reason: why, as the clause the model's text ends with (``"it holds bytes that are not UTF-8 text"``), without
            the advice to the developer that the message adds; None when only the message says it.
        result: the value the tool returned (for a ``content_and_artifact`` tool, its whole pair), which the error
            ToolMessage keeps as its ``artifact`` so that nothing is lost; None until the conversion sets it.
    """

    def __init__(self, message: str, tool_name: str | None = None, tool_call_id: str | None = None, *,
                 reason: str | None = None) -> None:
        super().__init__(message, tool_name, tool_call_id)
        self.reason = reason
        self.result: Any = None


class ProviderError(ToolwireError):
    """A model provider (OpenAI, Anthropic, Gemini, llama.cpp, ...) failed.

    ``message`` is the error's text (``str(exc)`` prefixes the provider and status and appends the hint); the
    other constructor arguments are kept as these attributes.

    Attributes:
        provider: short provider name, e.g. ``"openai"``.
        status: HTTP status code when there was one, else ``None``.
        retryable: whether trying again later may succeed (429, 5xx, connection errors).
        hint: one sentence telling the user what to do.
        api_advice: the hint's clause that names a Python argument (see :class:`ToolwireError`).
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status: int | None = None,
        retryable: bool = False,
        hint: str | None = None,
        api_advice: str | None = None,
    ) -> None:
        super().__init__(message, api_advice=api_advice)
        self.provider = provider
        self.status = status
        self.retryable = retryable
        self.hint = hint

    def __str__(self) -> str:
        head = f"{self.provider}"
        if self.status is not None:
            head += f" (status {self.status})"
        text = f"{head}: {self.args[0]}"
        if self.hint:  # the hint is a sentence of its own: the message ends with a full stop before it
            text = text.rstrip()
            text += f"{'' if text.endswith(('.', '!', '?')) else '.'} {self.hint}"
        return text


class MaxStepsExceeded(ToolwireError):
    """The Agent loop reached ``max_steps`` model calls without a final answer.

    ``message`` is the error's text; the other constructor arguments are kept as these attributes.

    Attributes:
        messages: the whole conversation so far (list of messages), so no work is lost.
        steps: how many model calls were made.
        reused_calls: the ToolMessages of ``messages`` given another call's answer without running the tool, as
            :attr:`AgentResult.reused_calls <toolwire.agent.AgentResult>` (``{index: index of its source}``; a run
            that loops until ``max_steps`` is where repeats happen most).
    """

    def __init__(self, message: str, messages: list[Any], steps: int,
                 reused_calls: dict[int, int] | None = None) -> None:
        super().__init__(message)
        self.messages = messages
        self.steps = steps
        self.reused_calls = {} if reused_calls is None else reused_calls


class RepeatedCallWarning(UserWarning):
    """An :class:`~toolwire.agent.Agent` answered a repeated call of a tool with the result it already had, without
    running the tool again (its default ``repeat_calls="answer"``, which stops small models that loop). Issued once
    per run and tool, at the line that started the run; the message names ``Agent(..., repeat_calls=[...])``, and
    ``toolwire ask``/``chat`` show ``--repeat-calls NAME`` instead. Python's default warning filter shows it once
    per line of code, so a loop running many Agents sees it once; ``warnings.simplefilter("always",
    RepeatedCallWarning)`` shows every run's (``toolwire chat`` shows it for each question).

    Attributes:
        tool_name: the tool whose call was answered without running.
        names: the tool names to pass as ``repeat_calls`` (those already there and ``tool_name``), in order.
    """

    def __init__(self, message: str, tool_name: str = "", names: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.names = names


class ToolDefinitionWarning(UserWarning):
    """A tool was defined with something that works in Python but that the model or a provider cannot use as
    written: a ``*args``/``**kwargs`` parameter (the model can only pass named arguments of the schema), a
    docstring ``Args:`` entry naming a parameter the function does not have, or a name some providers refuse; or
    that toolwire does not check: a JSON Schema tool's ``pattern`` with a lookaround or a backreference, which cannot
    be searched in linear time (review 75). Issued once, when the tool is defined; the message says what to change."""


class StrictSchemaWarning(UserWarning):
    """A tool asked for strict mode (``bind_tools(..., strict=True)``, ``with_structured_output(..., strict=True)``)
    has a schema the provider's strict mode cannot express, or is past its limits (a free-form ``dict``, a tuple,
    ``allOf``/``not``, OpenAI's 5,000 properties, Anthropic's 20 strict tools a request...): it is sent non-strict,
    and the message names the tool, the reason and what to change to keep it strict. On Gemini, which has no strict
    mode, it says ``strict=True`` is not sent. Issued once, at the ``bind_tools`` or ``with_structured_output``
    line. (Also importable from :mod:`toolwire.models.lowering.openai`, where it was first defined.)"""
