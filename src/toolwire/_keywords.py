"""Refusing a misspelled keyword option in one sentence, with its close match.

Python refuses an unknown keyword with a ``TypeError`` that names the function that took it, often an internal
one (``SDKChatModel.__init__() got an unexpected keyword argument 'temprature'``, review 37 and review 52); the
public entry points that forward ``**options`` check them here first.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from toolwire.errors import UserError

__all__ = ["AGENT_ADVICE", "AGENT_METHODS", "CLOSE", "MODEL_ADVICE", "RENAMED", "AgentMethodAdvice", "check_keywords",
           "keyword_names", "refuse_batch_options", "refuse_run_config", "refuses_unknown_keywords"]

RENAMED: dict[str, str] = {
    "openai_api_key": "api_key", "anthropic_api_key": "api_key", "google_api_key": "api_key",
    "openai_api_base": "base_url", "anthropic_api_url": "base_url", "openai_organization": "organization",
    "request_timeout": "timeout", "default_request_timeout": "timeout", "max_completion_tokens": "max_tokens",
    "max_output_tokens": "max_tokens", "stop_sequences": "stop", "extra_body": "model_kwargs",
    "name_override": "name", "description_override": "description",
    # langchain_anthropic's alias of max_tokens (review 203 #4)
    "max_tokens_to_sample": "max_tokens",
    # an agent's options in LangGraph (create_react_agent(prompt=...), its older state_modifier=/messages_modifier=),
    # LangChain's AgentExecutor (max_iterations=) and other libraries (system=, system_message=, response_model=...)
    "prompt": "system_prompt", "state_modifier": "system_prompt", "messages_modifier": "system_prompt",
    "system": "system_prompt", "system_message": "system_prompt", "max_iterations": "max_steps",
    "response_model": "response_format", "response_schema": "response_format",
    # a tool's (review 203 #4)
    "schema": "args_schema", "input_schema": "args_schema", "timeout_seconds": "timeout",
    "hide_errors": "hide_error_details",
}
"""Other libraries' names of options toolwire names otherwise: LangChain's (``ChatAnthropic(anthropic_api_key=...,
max_tokens_to_sample=...)``, ``ChatOpenAI(openai_api_base=...)``, ``ChatGoogleGenerativeAI(max_output_tokens=...)``),
LangGraph's and LangChain's agents' (``create_react_agent(prompt=...)``, ``AgentExecutor(max_iterations=...)``, as
docs/interop.md ports them), a tool's (``input_schema=``, ``timeout_seconds=``; ``hide_errors=`` is
``hide_error_details``, not the merely alike ``handle_errors``) and the OpenAI Agents SDK's ``@function_tool
(name_override=..., description_override=...)``: an unknown option of this name is refused with "did you mean" the
toolwire name, when the owner takes it, whether or not the two are spelled alike (:data:`CLOSE` does not apply;
review 203 #4)."""

MODEL_ADVICE: dict[str, str] = {
    "top_k": "{owner} has no top_k keyword of its own, so give it in model_kwargs={{'top_k': 40}} or per call, "
             "model.invoke(x, top_k=40), which send it to the provider's API as it is (Gemini's and "
             "Anthropic's take it; OpenAI's own has none)",
}
"""Options some providers' APIs take that a model class has no keyword for (``ChatGoogleGenAI(top_k=...)``, which
LangChain's class takes): refused with how to send them (review 203 #4: ``top_k`` was offered ``top_p``). Each text
is formatted with ``owner``, the class's name."""

CLOSE = 0.75
"""How alike (``difflib``'s ratio) an unknown option's name and a known one must be for "did you mean" to offer the
known one: a misspelling (``timout``, ``nmae``, ``prot``) is, while another library's option that merely shares
letters with one of toolwire's is not (review 200 #2: ``@tool(retries=2)``, ratio 0.6, was offered ``return_direct``,
which makes the tool's result end the run); such options get advice of their own (:data:`ADVICE`,
:data:`AGENT_ADVICE`) or the list of the options."""

_RETRIES = ("toolwire has no per-tool retry count: a call whose arguments are invalid, or whose tool raises, is "
            "answered with its error (handle_errors=True, the default), which the model reads and can call again "
            "within the Agent's max_steps, so raise an exception with a helpful message where Pydantic AI raises "
            "ModelRetry; to retry a flaky function itself, put a functools.wraps retry decorator under @tool")
_STRICT = ("strict mode is a setting of the model's binding in toolwire, not of a tool: bind the model with it, "
           "Agent(model.bind_tools([], strict=True), tools) or model.bind_tools(tools, strict=True)")
_DOCSTRING = ("toolwire reads Google, NumPy and Sphinx docstrings itself: leave it out (parse_docstring=False stops "
              "reading parameter descriptions from the docstring)")

ADVICE: dict[str, str] = {
    "coroutine": "make the tool of the async function itself (decorate it, or pass it as func): toolwire awaits an "
                 "async def in ainvoke and runs it to the end in invoke, so one function serves both; for a sync and "
                 "an async version, use toolwire.StructuredTool.from_function(func=..., coroutine=...)",
    "infer_schema": "toolwire always reads the schema from the function's signature; to give it yourself, pass "
                    "args_schema=Model or use Tool.from_schema(func, name, description, parameters)",
    "handle_tool_error": "toolwire's handle_errors=True (the default) answers a failed tool call with a "
                         "status=\"error\" ToolMessage holding the error's text, and handle_errors=False raises; there "
                         "is no text or handler of your own, and invoke with bare arguments always raises",
    "handle_validation_error": "invalid arguments fail a call as any error does: handle_errors=True (the default) "
                               "answers the tool call with the validation error, which names each bad field, and "
                               "handle_errors=False raises it",
    "callbacks": "toolwire tools have no callbacks: leave it out, and log in the function, follow a run with "
                 "Agent.stream, or read the toolwire.tools logger at DEBUG, which records each failed call",
    "callback_manager": "toolwire tools have no callbacks: leave it out, and log in the function, follow a run "
                        "with Agent.stream, or read the toolwire.tools logger at DEBUG, which records each failed call",
    "verbose": "toolwire tools print nothing about their runs: leave it out",
    "tags": "toolwire keeps no tags or metadata on a tool for tracing: leave it out",
    "metadata": "toolwire keeps no tags or metadata on a tool for tracing: leave it out",
    "extras": "toolwire sends providers a tool's name, description and parameters only, never provider-specific "
              "extras: leave it out",
    # Pydantic AI's (@agent.tool(retries=2, strict=True, docstring_format=...)) and the OpenAI Agents SDK's
    # (@function_tool(failure_error_function=..., strict_mode=..., use_docstring_info=..., docstring_style=...))
    "retries": _RETRIES,
    "max_retries": _RETRIES,
    "failure_error_function": "a tool that raises is answered with its error's text, which the model reads "
                              "(handle_errors=True, the default); hide_error_details=True shows the model only the "
                              "exception's type, and handle_errors=False raises the error instead (the SDK's "
                              "failure_error_function=None); there is no error function of your own",
    "strict_mode": _STRICT,
    "strict": _STRICT,
    "use_docstring_info": "toolwire reads the description from the docstring's summary and body unless you pass "
                          "description=\"...\", and each parameter's description from its Args: section unless you "
                          "pass parse_docstring=False; pass both to leave the docstring out",
    "docstring_style": _DOCSTRING,
    "docstring_format": _DOCSTRING,
}
"""LangChain's options of its tools that toolwire has no option for (``Tool.from_function(coroutine=...)``,
``@tool(infer_schema=False)``, the ``BaseTool`` fields ``StructuredTool.from_function(**kwargs)`` passes on, from
``langchain_core/tools/base.py``), and Pydantic AI's and the OpenAI Agents SDK's options of their tools (``retries``,
``failure_error_function``, ``strict_mode``, ``use_docstring_info``...: review 200 #2): refused with what to do
instead rather than a "did you mean" of another option."""

_DEPS = ("give tools what they need when they are made (functools.partial(function, db=db) before tool(...), a "
         "method of an object that holds it, or a contextvars.ContextVar set before the run; see the README's "
         "\"Passing dependencies to tools\")")

AGENT_ADVICE: dict[str, str] = {
    "message_history": "continue a conversation by passing its messages as the input, "
                       "invoke(result.messages + [question])",
    "deps": _DEPS,
    "deps_type": _DEPS,
    "output_retries": "for a typed answer asked again with what did not fit, pass Agent(..., response_format="
                      "model.with_structured_output(Schema, retries=2))",
    "instructions": "give the instructions as the system prompt, Agent(..., system_prompt=\"...\")",
    "model_settings": "set generation options on the model, model.bind(temperature=0) or ChatX(temperature=0), "
                      "before giving it to the Agent",
    "output_type": "an Agent answers in text; for a typed answer, pass Agent(..., response_format=Schema) and read "
                   "result.structured_response",
    "result_type": "an Agent answers in text; for a typed answer, pass Agent(..., response_format=Schema) and read "
                   "result.structured_response",
    "step_callbacks": "follow a run step by step with for event in agent.stream(question) (each model reply, tool "
                      "call and tool result as it happens)",
    "reset": "an Agent keeps no memory between runs; continue a conversation by passing its messages as the input, "
             "invoke(result.messages + [question])",
    "additional_args": "smolagents adds these values to the task text the model reads (\"You have been provided "
                       "with these additional arguments...\"), so put them in the question itself, agent.invoke("
                       "f\"{question}\\nmp3_url: {url}\"), or in Agent(..., system_prompt=...); an object a tool "
                       "needs but the model must not read (a dataframe, a client) goes to the tool when it is made "
                       "(see the README's \"Passing dependencies to tools\")",
    "verbosity_level": "an Agent prints nothing; follow a run with agent.stream(question), or log from the tools",
    "add_base_tools": "an Agent runs only the tools it is given; pass every tool in Agent(model, tools)",
    # the OpenAI Agents SDK's (Runner.run_sync(agent, q, max_turns=..., context=...), Agent(tool_use_behavior=...,
    # hooks=...)) and Pydantic AI's (usage_limits=, retries=) spellings (review 152 #5)
    "max_turns": "give the most model calls of a run when the Agent is made, Agent(model, tools, max_steps=10)",
    "usage_limits": "give the most model calls of a run when the Agent is made, Agent(model, tools, max_steps=10)",
    "context": _DEPS,
    "tool_use_behavior": "to end a run with a tool's result as the answer, make that tool with "
                         "@tool(return_direct=True); otherwise the model is called again after the results",
    "hooks": "follow a run step by step with for event in agent.stream(question) (each model reply, tool call and "
             "tool result as it happens)",
    "retries": "a failed tool call is answered with its error, which the model reads and can call again; for a "
               "typed answer asked again, pass response_format=model.with_structured_output(Schema, retries=2)",
}
"""Pydantic AI's, the OpenAI Agents SDK's and smolagents' options of an agent and its runs that toolwire spells
otherwise (``Agent(output_type=...)``, Pydantic AI's older ``result_type=``, ``agent.run_sync(q, deps=...,
message_history=...)``, smolagents' ``Agent(step_callbacks=...)`` and ``agent.run(task, reset=False)``, review 109):
refused with what to do instead rather than a "did you mean" of another option (review 101);
``output_type`` and ``result_type`` point to LangGraph's ``response_format``, which the Agent takes. smolagents'
``agent.run(task, additional_args={...})`` has no such option here: smolagents adds the values to the task text the
model reads, so its advice is to put them in the question or the system prompt (review 200 #3: it was the ``deps``
advice, which hides them from the model)."""

_BOUND_WITH_TOOLS = {"parallel_tool_calls": False, "strict": True}
"""The settings of a model's ``bind_tools`` that an Agent keeps from the model it is given but does not take itself
(common Agent settings elsewhere: the OpenAI Agents SDK's ``ModelSettings(parallel_tool_calls=...)``): refused with
``Agent(model.bind_tools([], parallel_tool_calls=False), tools)``, as the README says (review 268 #4), the value
given shown, or this one when it is not a bool."""

F = TypeVar("F", bound=Callable[..., Any])


def keyword_names(*functions: Callable[..., Any]) -> list[str]:
    """The parameter names ``functions`` take by keyword (``self``, a classmethod's ``cls`` and ``*args``/``**kwargs``
    left out), in order."""
    names: list[str] = []
    for function in functions:
        params = inspect.signature(function).parameters
        names += [n for n, p in params.items() if n not in ("self", "cls")
                  and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in names]
    return names


def check_keywords(owner: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse the first of ``given`` that is not in ``known``.

    Args:
        owner: what takes the options, as the message names it (``"ChatOpenAI"``, ``"load_tools"``).
        given: the keyword names passed (or the keywords, a dict, whose value the advice may show).
        known: the names ``owner`` takes.

    Raises:
        UserError: ``"Unknown ChatOpenAI option 'temprature': did you mean 'temperature'?"`` (the close match, at
            least :data:`CLOSE` alike, or the toolwire name of another library's option, :data:`RENAMED`), what to do
            instead for another library's option toolwire has none for (:data:`ADVICE` for a tool's maker,
            :data:`AGENT_ADVICE` for the Agent, :data:`MODEL_ADVICE` for a model class, one taking
            ``model_kwargs``; the Agent's ``parallel_tool_calls`` and ``strict`` are bound on its model first,
            :data:`_BOUND_WITH_TOOLS`), or the list of the options when none is close.
    """
    names = list(dict.fromkeys(known))
    for key in given:
        if key not in names:
            if (advice := ADVICE.get(str(key))) is not None and "args_schema" in names:  # (a tool's maker)
                raise UserError(f"Unknown {owner} option {key!r}: {advice}.")
            if (advice := AGENT_ADVICE.get(str(key))) is not None and owner == "Agent":
                raise UserError(f"Unknown {owner} option {key!r}: {advice}.")
            if key in _BOUND_WITH_TOOLS and owner == "Agent":  # (review 268 #4: the way that works, as the README's)
                value = given.get(key) if isinstance(given, Mapping) else None
                shown = value if isinstance(value, bool) else _BOUND_WITH_TOOLS[key]
                raise UserError(f"Unknown {owner} option {key!r}: bind it on the model first, Agent(model.bind_tools("
                                f"[], {key}={shown}), tools), and the Agent keeps it when it binds its tools.")
            if (advice := MODEL_ADVICE.get(str(key))) is not None and "model_kwargs" in names:  # (a model class)
                raise UserError(f"Unknown {owner} option {key!r}: {advice.format(owner=owner)}.")
            renamed = RENAMED.get(str(key))
            close = [renamed] if renamed in names else difflib.get_close_matches(str(key), names, n=1, cutoff=CLOSE)
            hint = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(sorted(names))}."
            raise UserError(f"Unknown {owner} option {key!r}: {hint}")


def refuses_unknown_keywords(owner: str) -> Callable[[F], F]:
    """Decorate a function (or ``__init__``) that names all its keyword parameters, so that an unknown keyword is
    refused by :func:`check_keywords` (``"Unknown Agent option 'max_step': did you mean 'max_steps'?"``) rather than
    by Python's ``TypeError``. The signature is kept (``inspect.signature`` and editors read the function's own).

    Args:
        owner: what the message names (``"Agent"``, ``"bind_tools"``).

    Returns:
        The decorator; the decorated function raises :class:`UserError` for an unknown keyword, before it runs.
    """

    def decorate(function: F) -> F:
        names = keyword_names(function)
        known = frozenset(names)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if not known.issuperset(kwargs):
                check_keywords(owner, kwargs, names)
            return function(*args, **kwargs)

        return cast(F, checked)

    return decorate


def model_steps(limit: Any) -> int | None:
    """The ``max_steps`` (model calls) of a LangGraph ``recursion_limit``, or None when ``limit`` is not a whole
    number: a ReAct graph spends one step per model call and one per round of tools, and a run that finishes within
    the limit makes at most ``limit // 2`` model calls (``recursion_limit=5``: 2; LangGraph's default 25: 12;
    measured on ``create_react_agent``, review 100; review 99: the limit was taken as ``max_steps`` itself)."""
    if not isinstance(limit, int) or isinstance(limit, bool):
        return None
    return max(1, limit // 2)


def refuse_run_config(owner: str, extra: tuple[Any, ...], options: dict[str, Any], settings: Iterable[str]) -> None:
    """Refuse what a LangGraph habit passes to a run method that takes only its input (``Agent.invoke(question,
    config={"recursion_limit": 5})``, or the config as a second argument): one sentence saying what toolwire uses
    instead (review 76: a raw ``TypeError``). Does nothing when ``extra`` and ``options`` are empty.

    Args:
        owner: the method, as the message names it (``"Agent.invoke"``).
        extra: the positional arguments given after the input.
        options: the keyword arguments given besides the input.
        settings: the options of the object the method belongs to (an Agent's ``max_steps``...), named in the
            message when one of them is given to the method instead.

    Raises:
        UserError: ``extra`` or ``options`` is not empty.
    """
    if not extra and not options:
        return
    config = options.get("config", extra[0] if extra else None)
    if "config" in options or isinstance(config, dict):
        steps = model_steps(config.get("recursion_limit") if isinstance(config, dict) else None) or 10
        raise UserError(f"{owner}() takes no config (LangGraph's RunnableConfig): set the step limit with "
                        f"Agent(model, tools, max_steps={steps}) and continue a conversation by passing its messages, "
                        f"{owner.rsplit('.', 1)[-1]}(result.messages + [question]).")
    if extra:
        raise UserError(f"{owner}() takes one input, a question or a list of messages, not {len(extra) + 1} "
                        "arguments: put the messages in one list.")
    key = next(iter(options))
    _refuse_option(owner, key, settings, "the input", "the input (a question or a list of messages)",
                   value=options[key], advise=True)


_GENERATION = ("temperature", "max_tokens", "top_p", "top_k", "min_p", "stop", "seed", "repeat_penalty",
               "frequency_penalty", "presence_penalty", "reasoning_effort", "max_completion_tokens")
"""A model's generation options, which a LangChain user may pass to a run (``agent.invoke(q, temperature=0)``): an
Agent's ``invoke``/``stream`` refuses them with ``Agent(model.bind(temperature=0), tools)`` (review 234 #2)."""


def _refuse_option(owner: str, key: str, settings: Iterable[str], short: str, takes: str,
                   own: tuple[str, ...] = (), value: Any = None, advise: bool = False) -> None:
    """Refuse ``key``, an option an Agent method (``owner``) does not take, saying what it takes (``short``, or in
    full ``takes``): an Agent's setting (``settings``) is named as one, else the close match among ``own`` (the
    method's own keywords) or the settings is offered. With ``advise``, a model's generation option
    (:data:`_GENERATION`, or a misspelling of one), given as ``value``, gets ``Agent(model.bind(temperature=0),
    tools)``, LangGraph's ``recursion_limit`` the ``max_steps`` it stands for (review 234 #2), and any other name
    with no close match that is a request option where to set it (:func:`_refuse_request_option`, review 244 #5).

    Raises:
        UserError: always.
    """
    known = list(settings)
    if (advice := AGENT_ADVICE.get(str(key))) is not None and key not in known:
        raise UserError(f"{owner}() takes only {short}, not {key}=: {advice}.")
    if key in known:
        raise UserError(f"{owner}() takes only {short}: {key} is an option of the Agent, Agent(model, tools, "
                        f"{key}=...).")
    mine = difflib.get_close_matches(str(key), own, n=1, cutoff=CLOSE)
    renamed = RENAMED.get(str(key))  # (max_iterations=: max_steps, review 203 #4)
    close = [renamed] if renamed in known else difflib.get_close_matches(str(key), known, n=1, cutoff=CLOSE)
    hint = f" (did you mean {mine[0]}=?)" if mine else f" ({close[0]!r} is an option of Agent(...))" if close else ""
    if advise and (key in _GENERATION or not (mine or close)):
        if key == "recursion_limit":  # LangGraph's step limit, given bare rather than in config= (review 234 #2)
            raise UserError(f"{owner}() takes only {short}, not recursion_limit= (LangGraph's step limit): set it "
                            f"with Agent(model, tools, max_steps={model_steps(value) or 10}).")
        option = key if key in _GENERATION else next(iter(difflib.get_close_matches(str(key), _GENERATION, n=1,
                                                                                      cutoff=CLOSE)), None)
        shown = repr(value) if isinstance(value, (int, float, str, list)) and len(repr(value)) <= 24 else "..."
        if option is not None:
            typo = "" if option == key else f" (did you mean {option}=?)"
            raise UserError(f"{owner}() takes only {short}, not {key}={typo}: set a generation option on the model "
                            f"you give the Agent, Agent(model.bind({option}={shown}), tools).")
        _refuse_request_option(owner, short, str(key), shown)
    raise UserError(f"{owner}() takes only {takes}, not {key}={hint}.")


_LANGCHAIN_TRACING = frozenset({"callbacks", "callback_manager", "tags", "metadata", "run_name", "run_id",
                                "configurable"})
"""LangChain's tracing options of a run (its ``RunnableConfig`` keys), which toolwire has no part for."""
_MODEL_SETTINGS = frozenset({"max_retries", "api_key", "base_url", "organization", "default_headers", "model",
                             "model_name"})
"""A chat model's own settings, given when it is made (not request options ``bind`` would send)."""
_REQUEST_OPTIONS = ("logprobs", "top_logprobs", "n", "logit_bias", "user", "service_tier", "store", "modalities",
                    "prediction", "audio", "stream_options", "extra_body", "extra_headers", "extra_query",
                    "model_kwargs", "verbosity", "web_search_options", "safety_identifier", "prompt_cache_key",
                    "thinking", "reasoning", "response_mime_type", "safety_settings", "thinking_budget")
"""Request options besides :data:`_GENERATION` that LangChain users pass per call (OpenAI's, Anthropic's, Gemini's),
which a model's ``bind`` takes; a name not among these (nor a close misspelling) keeps the bare refusal."""


def _refuse_request_option(owner: str, short: str, key: str, shown: str) -> None:
    """Refuse ``key``, given to an Agent's run with no close match among its names, saying where it goes (review 244
    #5: a request option such as ``logprobs=`` got no advice): LangChain's tracing is left out, a model's setting
    (``max_retries``) is given when the model is made, ``parallel_tool_calls`` and ``strict`` are bound with the
    tools, and a known request option (:data:`_REQUEST_OPTIONS`, or a close misspelling) is bound on the model.
    ``shown`` is the value as the advice writes it.

    Raises:
        UserError: ``key`` is one of those (any other name returns, for the caller's bare refusal).
    """
    if key in _LANGCHAIN_TRACING:
        raise UserError(f"{owner}() takes only {short}, not {key}= (LangChain's tracing, which toolwire has no part "
                        "for): leave it out.")
    if key in _MODEL_SETTINGS:
        raise UserError(f"{owner}() takes only {short}, not {key}=: it is a setting of the model, given when the model "
                        f"is made, init_chat_model(..., {key}={shown}), before it is given to the Agent.")
    if key in ("parallel_tool_calls", "strict"):
        raise UserError(f"{owner}() takes only {short}, not {key}=: bind it with the tools on the model you give the "
                        f"Agent, Agent(model.bind_tools(tools, {key}={shown}), tools).")
    option = key if key in _REQUEST_OPTIONS else next(iter(difflib.get_close_matches(key, _REQUEST_OPTIONS, n=1,
                                                                                      cutoff=CLOSE)), None)
    if option is not None:
        typo = "" if option == key else f" (did you mean {option}=?)"
        raise UserError(f"{owner}() takes only {short}, not {key}={typo}: set a request option on the model you give "
                        f"the Agent, Agent(model.bind({option}={shown}), tools).")


_BATCH_OWN = ("max_concurrency", "return_exceptions")  # the keywords batch/abatch take themselves


def refuse_batch_options(owner: str, options: dict[str, Any], settings: Iterable[str]) -> None:
    """Refuse the options given to the ``batch``/``abatch`` of an object whose ``invoke`` takes the input alone (an
    Agent's), naming the method the user called (review 77: the error named ``Agent.invoke()``, or "toolwire
    models" for ``config=``). Does nothing when ``options`` is empty.

    Args:
        owner: the method, as the message names it (``"Agent.batch"``).
        options: the keyword arguments given besides the inputs, ``max_concurrency`` and ``return_exceptions``.
        settings: the options of the object the method belongs to (an Agent's ``max_steps``...), named in the
            message when one of them is given to the method instead.

    Raises:
        UserError: ``options`` is not empty; ``config=`` (LangChain's ``RunnableConfig``) is refused with what to
            pass instead (``max_concurrency=``, and ``Agent(..., max_steps=)`` for its ``recursion_limit``).
    """
    if not options:
        return
    if "config" in options:
        config = options["config"]
        wanted = config.get("max_concurrency") if isinstance(config, dict) else None
        steps = model_steps(config.get("recursion_limit") if isinstance(config, dict) else None)
        todo = [f"pass max_concurrency={wanted if wanted is not None else 'n'} as a keyword of its own"] \
            if wanted is not None or steps is None else []
        todo += [f"set the step limit with Agent(model, tools, max_steps={steps})"] if steps is not None else []
        raise UserError(f"{owner}(config=...) is LangChain's RunnableConfig, which an Agent does not take: "
                        f"{', '.join(todo)} and leave config out.")
    key = next(iter(options))
    _refuse_option(owner, key, settings, "the inputs", "the inputs (a list of questions or "
                   "conversations), max_concurrency= and return_exceptions=", _BATCH_OWN, options[key], advise=True)


_EVENTS = ("stream a run with async for event in agent.astream(question, stream_mode=\"messages\") (LangGraph's "
           "token stream) or agent.astream(question, stream_tokens=True) (toolwire's events, \"model_chunk\" among "
           "them); LangChain's astream_events callbacks have no counterpart here")
AGENT_METHODS: dict[str, str] = {
    "run": "run an Agent with agent.invoke(question), or await agent.ainvoke(question) in async code; the answer is "
           "result.output (smolagents' agent.run(task) returns the answer itself; pydantic-ai's await agent.run() "
           "is ainvoke here)",
    "arun": "run an Agent with await agent.ainvoke(question); the answer is result.output",
    "run_sync": "run an Agent with agent.invoke(question); the answer is result.output (pydantic-ai's run_sync)",
    "run_stream": "follow a run with for event in agent.stream(question), or async for in agent.astream(question); "
                  "the last event's data is the AgentResult",
    "chat": "continue a conversation with agent.invoke(result.messages + [question]); an Agent keeps no memory "
            "between runs",
    "astream_events": _EVENTS,
    "astream_log": _EVENTS,
    "get_state": "an Agent keeps no state between runs: the conversation is result.messages (or the stream's "
                 "messages), which you store and pass back with agent.invoke(messages + [question])",
    "get_graph": "an Agent's loop is fixed (the model, then its tool calls, then the model again, until it answers), "
                 "so it has no graph to draw; follow a run with for event in agent.stream(question)",
    "with_config": "an Agent takes no LangChain RunnableConfig: set its options when it is made, "
                   "Agent(model, tools, max_steps=..., timeout=...), and bind generation options on the model with "
                   "model.bind(temperature=...) before passing it",
}
"""Other libraries' names for running an agent (smolagents' and pydantic-ai's ``run``, ``run_sync`` and
``run_stream``), each with what to call here (review 111: ``agent.run(task)`` was a bare AttributeError, so the advice
on its keywords in :data:`AGENT_ADVICE` was never seen), and LangGraph's compiled graph's ``astream_events``,
``astream_log``, ``get_state``, ``get_graph`` and ``with_config`` (review 180 #4)."""


class AgentMethodAdvice:
    """Mixin for :class:`~toolwire.agent.Agent`: an attribute it does not have, but which another library's agent
    runs with (:data:`AGENT_METHODS`), raises an ``AttributeError`` that says what to call instead."""

    def __getattr__(self, name: str) -> Any:
        """Raises:
            AttributeError: always (Python calls this only for a missing attribute); for a name in
                :data:`AGENT_METHODS`, its message says what to call instead.
        """
        advice = AGENT_METHODS.get(name)
        text = f"{type(self).__name__!r} object has no attribute {name!r}"
        raise AttributeError(f"{text}: {advice}." if advice else text, name=name, obj=self)
