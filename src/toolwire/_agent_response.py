"""An Agent's ``response_format``: one more model call, once the run has answered, for a typed answer.

LangGraph's ``create_react_agent(model, tools, response_format=Schema)`` ends a run whose last reply has no tool calls
with a node of its own, ``generate_structured_response``, which calls ``model.with_structured_output(Schema)`` on the
conversation and puts the value in the state's ``structured_response`` key; a ``(prompt, Schema)`` tuple puts
``SystemMessage(prompt)`` first for that call only (``langgraph/prebuilt/chat_agent_executor.py``). An
:class:`~toolwire.agent.Agent` does the same with toolwire's
:class:`~toolwire.models.structured.StructuredOutput` (a forced tool call made from the schema), and gives the value as
:attr:`AgentResult.structured_response <toolwire.agent.AgentResult>`:

* the call is made when the run stops with ``stop_reason="answer"``, and with ``"max_steps"`` under
  ``on_max_steps="answer"`` (LangGraph too goes on to ``generate_structured_response`` when its steps run out: its
  model node then gives "Sorry, need more steps to process this request." without calls). It is not made for
  ``"return_direct"`` (LangGraph's graph ends at the tool node), nor for ``"refusal"`` and ``"length"``, stops
  LangGraph does not tell apart (it sends any reply without calls on): the run has no whole answer to type, and a
  forced call after a refusal would turn the refusal into an error; ``structured_response`` is then ``None``;
* it is a model call, so it counts in ``steps`` (one more than the loop's, or one per request with
  ``with_structured_output(Schema, retries=n)``, whose replies that did not fit are sent back), and its usage, each
  request's, in ``usage`` (:mod:`toolwire._run_usage`, review 281 #1); but ``max_steps`` does not limit it: a
  run that answers at its last step still gets its typed answer (LangGraph counts the node against
  ``recursion_limit``, and a run that answers at the limit fails with ``GraphRecursionError``);
* the conversation it is sent ends with a user turn, :data:`ASK_STRUCTURED`, after the run's answer (LangGraph's
  ends with the answer, a prefill that Claude 4.6 and later refuse with HTTP 400); the turn is not added to
  ``messages``;
* its reply is not added to ``messages`` (nor is it in LangGraph's); a reply that cannot be read as the schema raises
  :class:`~toolwire.errors.ToolCallParseError` carrying the conversation as ``exc.messages``, as any error of a run's
  model call does; that conversation (or a stream's ``messages`` after a stop before ``"final"``), which ends with
  the run's answer, resumed makes the structured call alone, as the stopped run would have, never a model call with
  tools and the answer last (:func:`~toolwire._agent_requests.structured_pending`, review 200 #1);
* a ``(prompt, Schema)`` prompt is put first for that call only: merged with the conversation's own system message
  into one, the prompt's text first, as the Agent's ``system_prompt`` is (several system messages are not sent to
  every provider).

The loop (:meth:`Agent._flow <toolwire.agent.Agent>`) asks for the call as a request of kind ``"structured"``, which the
sync and async drivers send to :attr:`ResponseFormat.model` as they send the others (:func:`caller`).
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Mapping
from typing import TYPE_CHECKING, Any

from toolwire._agent_input import for_model, put_system_prompt
from toolwire._agent_stream import AgentEvent, AgentResult, StopReason
from toolwire.errors import UserError
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.results import truncate_content

if TYPE_CHECKING:
    from toolwire.agent import Agent
    from toolwire.models.base import BaseChatModel

__all__ = ["ASK_STRUCTURED", "STRUCTURED_STOPS", "ResponseFormat", "caller", "finish"]

ASK_STRUCTURED = "Give the answer above in the requested structured format."
"""The user turn the structured call ends with, after the run's answer (:meth:`ResponseFormat.conversation`)."""

STRUCTURED_STOPS: tuple[StopReason, ...] = ("answer", "max_steps")
"""The stop reasons after which an Agent with ``response_format`` makes its structured call (module docs)."""


class ResponseFormat:
    """An Agent's ``response_format``, checked when the Agent is made.

    Args:
        model: the chat model given to the Agent (``with_structured_output`` binds the schema's tool in place of its
            tools, as LangGraph unwraps its bound model first).
        response_format: a schema ``with_structured_output`` takes (a pydantic model class, a TypedDict, a dataclass,
            a JSON Schema dict with a ``title``, a tool dict), or LangGraph's ``(prompt, schema)`` tuple whose prompt
            (text or a :class:`~toolwire.messages.SystemMessage`) leads that call only; or, for either schema, what
            ``with_structured_output`` returned (``model.with_structured_output(Schema, retries=2)``: a reply that
            does not fit is sent back with what was wrong), which is used as it is.

    Attributes:
        prompt: the tuple's system message, or ``None``.
        model: the :class:`~toolwire.models.structured.StructuredOutput` the structured call goes to.
        system_prompt: the Agent's own ``system_prompt`` (for :func:`~toolwire._agent_input.for_model`).

    Raises:
        UserError: a tuple that is not ``(text, schema)``, or a model without ``with_structured_output``.
        SchemaError: the schema cannot be made into a tool (raised by ``with_structured_output`` here, at
            ``Agent(...)``, rather than after a whole run).
    """

    def __init__(self, model: BaseChatModel, response_format: Any, system_prompt: str | SystemMessage | None = None
                 ) -> None:
        schema = response_format
        self.system_prompt = system_prompt
        self.prompt: SystemMessage | None = None
        if isinstance(response_format, tuple):
            if len(response_format) != 2 or not isinstance(response_format[0], str | SystemMessage):
                raise UserError("response_format takes a schema, or a (prompt, schema) tuple whose prompt is text, "
                                f"as LangGraph's; got {response_format!r}.")
            prompt, schema = response_format
            self.prompt = prompt if isinstance(prompt, SystemMessage) else SystemMessage(prompt)
        from toolwire.models.structured import StructuredOutput

        if isinstance(schema, StructuredOutput):  # made by the caller (with retries=, say): used as it is
            self.model: Any = schema
            return
        if not callable(getattr(model, "with_structured_output", None)):
            raise UserError(f"response_format needs a model with with_structured_output, and {type(model).__name__} "
                            "has none.")
        self.model = model.with_structured_output(schema)

    def conversation(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """What the structured call is sent: a copy of ``messages`` as every model call gets them (the Agent's own
        prompt merged with the caller's system message, :func:`~toolwire._agent_input.for_model`), the tuple's prompt
        first when there is one, and :data:`ASK_STRUCTURED` as a user turn after the run's answer: a request that
        ends with an assistant turn is a prefill, which Claude 4.6 and later refuse with HTTP 400 and newer Gemini
        models refuse too (review 149 #1)."""
        sent = list(for_model(messages, self.system_prompt))
        put_system_prompt(sent, self.prompt)
        if sent and isinstance(sent[-1], AIMessage):
            sent.append(HumanMessage(ASK_STRUCTURED))
        return sent


def finish(
    messages: list[BaseMessage], output: str, step: int, stop: StopReason, response: ResponseFormat | None,
    reused: Mapping[int, int],
) -> Generator[tuple[str, Any], Any, None]:
    """The end of a run (a part of :meth:`Agent._flow <toolwire.agent.Agent>`): the ``"final"`` event of its
    :class:`~toolwire.agent.AgentResult`, after the structured call (request ``("structured", conversation)``, whose
    answer is the value) when ``response`` is set and ``stop`` is one of :data:`STRUCTURED_STOPS`; that call counts
    in the result's ``steps`` and is the final event's ``step`` (the driver adds its requests beyond the first, and
    the run's ``usage``: :meth:`~toolwire._run_usage.RunUsage.final`). ``reused``: the result's ``reused_calls``."""
    value = None
    if response is not None and stop in STRUCTURED_STOPS:
        value = yield ("structured", response.conversation(messages))
        step += 1
    yield ("event", AgentEvent("final", AgentResult(messages, output, step, stop, value, dict(reused)), step))


def caller(agent: Agent, kind: str) -> Any:
    """The runnable an Agent's driver sends a request of ``kind`` to (``"model"``, ``"after_tools"``, ``"answer"``,
    ``"finish"`` or ``"structured"``): its bound model, the copy after tools, the copy with tools off, the copy that
    forces its one ``return_direct`` tool, or the structured model."""
    if kind == "structured":
        assert agent._response is not None
        return agent._response.model
    if kind == "after_tools":
        return agent._after_tools_model
    if kind == "finish":
        return agent._finish_model
    return agent.model if kind == "model" else agent._answer_model


def kept_results(results: list[ToolMessage], whole: Collection[str], limit: int | None
                 ) -> tuple[list[ToolMessage], dict[int, ToolMessage]]:
    """``results`` as the conversation keeps them: the successful results of the tools in ``whole`` (an Agent's
    ``return_direct`` tools, which its executor returns whole, so that the run's output is the whole answer) cut to
    ``limit`` characters, as every other result is (review 110: an answer was cut with a marker written for a model,
    and kept whole, a later turn would send it all to the model); error results were cut by the executor already
    (review 112).

    Returns:
        ``(the results to keep, the whole result of each one cut, by the id of its cut copy)``.
    """
    if limit is None or not whole:
        return results, {}
    kept: list[ToolMessage] = []
    originals: dict[int, ToolMessage] = {}
    for result in results:
        content = result.content
        if result.name in whole and result.status != "error":
            content = truncate_content(content, limit)
        if content is result.content:
            kept.append(result)
        else:
            kept.append(result.copy(content=content))
            originals[id(kept[-1])] = result
    return kept, originals
