"""The checks of a hosted-provider model's constructor arguments and per-call options: the model's name and its
generation options.

:class:`~toolwire.models._sdk.SDKChatModel` runs them when the model is built, and on the options of each call
(``invoke(x, temperature=...)``, ``stream``, ``batch``: :func:`check_call_options`), so a value no request could
carry (``temperature="hot"``, ``stop=5``, ``max_tokens=0``, ``model_kwargs="x"``), a misspelled option
(``temprature=0.2``) or a field toolwire writes itself (``model_kwargs={"messages": ...}``) is refused there, in one
sentence that names the option, rather than sent to the provider (which answers 400 on every try, or silently
obeys the stray field) or failing as a bare ``ValueError``. The limits are the ones every provider shares (a
temperature of 0 or more, a ``top_p`` from 0 to 1, at least one token, no empty stop sequence); each provider's own
upper bounds (OpenAI's temperature up to 2, Anthropic's up to 1) are left to its API, which names them.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Mapping
from numbers import Integral, Real
from typing import Any

from toolwire.errors import UserError

__all__ = [
    "check_call_options",
    "check_generation_options",
    "check_model_kwargs",
    "client_base_url",
    "model_argument",
    "refuse_class_format",
    "refuse_untaken",
    "shown_value",
    "untaken_names",
]


def _number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def _whole(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _stop(value: Any) -> bool:
    """Text, or a list of text; no empty string (it would end the reply at once, and some APIs refuse it). An
    empty list (no stop sequence) is left out before this check, as None is."""
    if isinstance(value, str):
        return bool(value)
    return isinstance(value, list | tuple) and all(isinstance(s, str) and s for s in value)


# option -> (is the value right, what it must be, an example)
_RULES: dict[str, tuple[Callable[[Any], bool], str, str]] = {
    "temperature": (lambda v: _number(v) and v >= 0, "a number of 0 or more", "0.7"),
    "max_tokens": (lambda v: _whole(v) and v >= 1, "a whole number of tokens, at least 1", "1024"),
    "top_p": (lambda v: _number(v) and 0 <= v <= 1, "a number from 0 to 1", "0.9"),
    "stop": (_stop, "a non-empty string or a list of them", "['\\n\\n']"),
    "seed": (_whole, "a whole number", "42"),
    "streaming": (lambda v: isinstance(v, bool), "True or False", "True"),
    # ChatOpenAI's own
    "use_responses_api": (lambda v: isinstance(v, bool), "True or False", "True"),
    "stream_usage": (lambda v: isinstance(v, bool), "True or False", "False"),
    "text_tool_calls": (lambda v: isinstance(v, bool), "True, False or None", "True"),
    "mistral_call_ids": (lambda v: isinstance(v, bool), "True, False or None", "True"),
    "organization": (lambda v: isinstance(v, str) and bool(v.strip()), "the organization id as text", "'org-...'"),
    "project": (lambda v: isinstance(v, str) and bool(v.strip()), "the project id as text", "'proj_...'"),
}
_GENERATION = ("temperature", "max_tokens", "top_p", "stop", "seed")  # what a call's options may set too
_NOT_MISSPELT = frozenset({"top_k"})  # providers' own options close to a generation option's name

# request fields toolwire writes itself, which model_kwargs or a call's options would replace -> what to do instead
_BUILT: dict[str, str] = {
    "model": "give the model name as model= (build another model for another name)",
    "messages": "pass the conversation as the input of invoke/stream",
    "input": "pass the conversation as the input of invoke/stream",
    "contents": "pass the conversation as the input of invoke/stream",
    "system": "give the system prompt as a SystemMessage (or ('system', '...')) in the input",
    "system_instruction": "give the system prompt as a SystemMessage (or ('system', '...')) in the input",
    "tool_choice": "bind the tools with bind_tools(tools, tool_choice=...)",
    "tool_config": "bind the tools with bind_tools(tools, tool_choice=...) (a mode, one tool's name, or Gemini's "
                   "{'mode': 'ANY', 'allowed_function_names': [...]} naming every bound tool)",
    "parallel_tool_calls": "bind the tools with bind_tools(tools, parallel_tool_calls=...)",
    "automatic_function_calling": "leave it out, as toolwire runs the tools itself",
    "stream": "call model.stream(...), or build the model with streaming=True",
    "streaming": "call model.stream(...), or build the model with streaming=True",
    "stream_options": "build the model with ChatOpenAI(..., stream_usage=True or False)",
}
# settings of the client a model is made with, which a call's options (or model_kwargs) would send as request fields:
# an api_key among them would reach the server in the request's body
_CLIENT = frozenset({"api_key", "base_url", "organization", "project", "max_retries", "retry_backoff",
                     "default_headers", "default_query"})


def client_base_url(base_url: str | None, env: str, default: str) -> str:
    """The base URL an SDK client is made with, always given explicitly (review 314 #1): ``base_url`` (checked by the
    model), else the environment variable ``env`` without the spaces around it, else ``default`` (the SDK's own). A
    blank variable (``OPENAI_BASE_URL=`` in a ``.env`` file) counts as unset: given ``None``, the ``openai`` and
    ``anthropic`` clients would read it themselves and send every request to an empty URL.

    Args:
        base_url: the model's base URL, or None.
        env: the variable the SDK reads (``"ANTHROPIC_BASE_URL"``).
        default: the SDK's default endpoint (``"https://api.anthropic.com"``).

    Returns:
        The URL to give the SDK client.
    """
    return base_url or (os.environ.get(env) or "").strip() or default


def check_generation_options(owner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The generation options given to a model's constructor, checked.

    Args:
        owner: the model class's name, as the messages name it (``"ChatOpenAI"``).
        options: ``{"temperature", "max_tokens", "top_p", "stop", "seed", "streaming"}`` (or ChatOpenAI's
            ``use_responses_api``, ``stream_usage``, ``text_tool_calls``, ``mistral_call_ids``, ``organization``,
            ``project``) as given; None is "not given" (left out of the result), and so is ``stop=[]``.

    Returns:
        The options given (None values left out), unchanged.

    Raises:
        UserError: a value of the wrong kind or out of range (a temperature below 0, NaN or text; ``top_p`` outside
            0..1; ``max_tokens`` below 1 or not whole; ``stop`` not text or a list of text; ``seed`` not whole;
            ``streaming`` not a bool; ChatOpenAI's ``use_responses_api``, ``stream_usage``, ``text_tool_calls`` and
            ``mistral_call_ids`` not a bool, its ``organization`` or ``project`` not text): ``"ChatOpenAI:
            temperature must be a number of 0 or more, not 'hot'; pass e.g. temperature=0.7."``.
    """
    given: dict[str, Any] = {}
    for name, value in options.items():
        if value is None or (name == "stop" and isinstance(value, list | tuple) and not value):
            continue  # not given (an empty list of stop sequences: none)
        ok, kind, example = _RULES[name]
        if not ok(value):
            raise UserError(f"{owner}: {name} must be {kind}, not {value!r}; pass e.g. {name}={example}.")
        given[name] = value
    return given


def refuse_class_format(owner: str, where: str, options: Mapping[str, Any], *, schema_dict: bool = False) -> None:
    """Refuse a class as ``response_format`` in ``options`` (LangChain's ``ChatOpenAI`` takes ``response_format=Model``
    and parses the reply; the OpenAI SDK's ``create()`` refuses it with a TypeError that points to its ``parse()``:
    review 185 #7).

    Args:
        owner: the model class's name, as the message names it (``"ChatOpenAI"``).
        where: where the option was given (``"model_kwargs"``, ``"a call's options"``).
        options: the options given.
        schema_dict: the API takes a ``response_format`` JSON Schema dict (OpenAI Chat Completions), which the
            message then offers too; elsewhere (the Responses API, Anthropic, Gemini) it names
            ``with_structured_output`` only (review 187 #4).

    Raises:
        UserError: ``options["response_format"]`` is a class, saying to call ``model.with_structured_output(Model)``.
    """
    response_format = options.get("response_format")
    if not isinstance(response_format, type):
        return
    name = response_format.__name__
    advice = f"call model.with_structured_output({name}) to get the answer as {name}"
    if schema_dict:
        advice += (", or pass response_format a JSON Schema dict ({'type': 'json_schema', 'json_schema': {'name': "
                   "..., 'schema': {...}}})")
    raise UserError(f"{owner}: {where} cannot set response_format={name} (a class): {advice}.")


def _refuse_built(owner: str, where: str, options: Mapping[str, Any]) -> None:
    """Refuse a key of ``options`` naming a request field toolwire writes (:data:`_BUILT`), which would replace it, or a
    setting of the model's client (:data:`_CLIENT`: ``api_key``, ``max_retries``...), which would be sent as a request
    field (an ``api_key`` in the request's body), and
    a class as ``response_format`` (:func:`refuse_class_format`, its advice the one every API can follow: a model
    whose API takes a JSON Schema dict there checks first, with its own)."""
    refuse_class_format(owner, where, options)
    for key in options:
        if key in _CLIENT:
            raise UserError(f"{owner}: {where} cannot set {key!r}, a setting of the client the model is made with: "
                            f"{_client_advice(owner, key)}.")
        if key == "tool_config" and owner == "ChatGoogleGenAI":  # (its retrieval_config: review 303 #3)
            _check_gemini_tool_config(where, options[key])
        elif key in _BUILT:
            raise UserError(f"{owner}: {where} cannot set {key!r}, a request field toolwire writes itself: "
                            f"{_BUILT[key]}.")


_RETRIEVAL_KEYS = ("retrieval_config", "retrievalConfig")


def _check_gemini_tool_config(where: str, value: Any) -> None:
    """Refuse a Gemini ``tool_config`` option that holds more than its ``retrieval_config`` (the user's location, for
    the ``google_maps`` server tool), which toolwire sends merged with the function calling config it writes
    (:func:`~toolwire.models.lowering.gemini.lower_request`); keys whose value is None are left out.

    Raises:
        UserError: a ``function_calling_config`` (the advice of :data:`_BUILT`: ``tool_choice``), or anything else
            than a dict holding only a ``retrieval_config``.
    """
    given = {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value
    start = f"ChatGoogleGenAI: {where} cannot set 'tool_config'"
    if isinstance(given, dict) and any(k in given for k in ("function_calling_config", "functionCallingConfig")):
        raise UserError(f"{start} with a function_calling_config, which toolwire writes itself (only a "
                        f"retrieval_config may be given there): {_BUILT['tool_config']}.")
    if not isinstance(given, dict) or not given or any(k not in _RETRIEVAL_KEYS for k in given):
        raise UserError(f"{start} as {value!r}: it takes only {{'retrieval_config': {{'lat_lng': {{'latitude': ..., "
                        "'longitude': ...}, 'language_code': ...}} (toolwire writes the function calling config "
                        "from bind_tools' tool_choice).")


def _client_advice(owner: str, key: str) -> str:
    """What to do with the client setting ``key`` given where ``owner`` refuses it: give it when the model is made,
    where ``owner`` takes it there; else the request option that does the same, or to leave it out (review 287 #3:
    the advice named a constructor option the class has not)."""
    if owner in _OWN_CLIENT.get(key, (owner,)):
        return f"give it when the model is made, {owner}(..., {key}=...)"
    return _CLIENT_INSTEAD.get((owner, key)) or f"leave it out, as {owner} has no {key} setting"


# client settings only some classes take -> those classes (the others are every hosted model's)
_OWN_CLIENT = {"organization": ("ChatOpenAI",), "project": ("ChatOpenAI",),
               "default_headers": ("ChatOpenAI",), "default_query": ("ChatOpenAI",)}
# (class, setting it does not take) -> the request option that does the same
_CLIENT_INSTEAD = {
    ("ChatAnthropic", "default_headers"): "give the headers as extra_headers={...}, in model_kwargs to send them "
                                          "with every request",
    ("ChatAnthropic", "default_query"): "give the parameters as extra_query={...}, in model_kwargs to send them with "
                                        "every request",
    ("ChatGoogleGenAI", "default_headers"): "give the headers as http_options={'headers': {...}}, in model_kwargs to "
                                            "send them with every request",
}


def refuse_client_setting(owner: str, unknown: Mapping[str, Any]) -> None:
    """Refuse, with what does the same, a client setting another class takes that ``owner`` has not, given to
    ``owner``'s constructor (``ChatAnthropic(default_headers=...)``, langchain-anthropic's spelling: review 292);
    the advice :func:`_client_advice` gives where a call's options or ``model_kwargs`` set it.

    Raises:
        UserError: ``unknown`` (the constructor's unknown keyword arguments) holds such a setting.
    """
    for key in unknown:
        if (owner, key) in _CLIENT_INSTEAD or owner not in _OWN_CLIENT.get(key, (owner,)):
            advice = _CLIENT_INSTEAD.get((owner, key)) or f"leave it out (only {_OWN_CLIENT[key][0]} takes it)"
            raise UserError(f"{owner} has no {key!r} option: {advice}.")


def check_model_kwargs(owner: str, model_kwargs: Any) -> dict[str, Any]:
    """``model_kwargs`` as a dict of its own (``{}`` for None), its generation options checked as the
    constructor's are (``model_kwargs={"max_tokens": 0}`` is refused like ``max_tokens=0``).

    Raises:
        UserError: it is not a mapping (text, a list...): it takes the provider's options by name; or it names a
            request field toolwire writes (``messages``, ``input``, ``contents``, ``system``, ``model``,
            ``tool_choice``, ``parallel_tool_calls``, ``stream``...), naming the toolwire option to use instead, or
            a class as ``response_format``; or a generation option's value is wrong (see
            :func:`check_generation_options`).
    """
    if model_kwargs is None:
        return {}
    if not isinstance(model_kwargs, Mapping):
        raise UserError(f"{owner}: model_kwargs takes a dict of provider options, e.g. model_kwargs="
                        f"{{'logprobs': True}}, not {type(model_kwargs).__name__}.")
    _refuse_built(owner, "model_kwargs", model_kwargs)
    check_generation_options(owner, {k: v for k, v in model_kwargs.items() if k in _GENERATION})
    return dict(model_kwargs)


def merge_model_kwargs(owner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` (a call's or ``bind``'s) with the contents of a ``model_kwargs`` among them merged in, as the
    constructor's ``model_kwargs`` are (``bind(model_kwargs={"top_k": 5})`` sent a literal ``model_kwargs`` field:
    review 244). A cheap test when there is none.

    Returns:
        A new dict without ``model_kwargs`` (``options`` itself when it has none).

    Raises:
        UserError: ``model_kwargs`` is refused as the constructor refuses it (:func:`check_model_kwargs`), or it
            gives a key of ``options`` another value (``temperature=0`` and ``model_kwargs={"temperature": 1}``;
            the values shown only for the options a repr shows, :func:`shown_value`).
    """
    if "model_kwargs" not in options:
        return options if isinstance(options, dict) else dict(options)
    rest = {key: value for key, value in options.items() if key != "model_kwargs"}
    extra = check_model_kwargs(owner, options["model_kwargs"])
    for key, value in extra.items():
        if key in rest and rest[key] != value:
            raise UserError(f"{owner} got {key}={shown_value(key, rest[key])} and model_kwargs={{{key!r}: "
                            f"{shown_value(key, value)}}}: give {key} once, as an option of its own or in "
                            "model_kwargs.")
    return {**rest, **extra}


def shown_value(key: str, value: Any) -> str:
    """``value`` of the option ``key`` as a message shows it: its repr for an option a model's repr shows
    (``temperature``, ``stop``...: :data:`~toolwire.models._runnable._SHOWN_OPTIONS`), else ``...``, as the repr of
    a binding shows it, so a header holding a token (``extra_headers``) never appears (review 287 #5)."""
    from toolwire.models._runnable import _SHOWN_OPTIONS

    return repr(value) if key in _SHOWN_OPTIONS else "..."


def check_call_options(owner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of one call (``invoke(x, temperature=0.2)``, ``stream``, ``batch``), checked as the
    constructor's are; other keys are the provider's own options (``top_k``, ``reasoning_effort``...), sent as
    given.

    Args:
        owner: the model class's name (``"ChatOpenAI"``).
        options: the call's keyword options.

    Returns:
        ``options`` as a dict of its own, the contents of a ``model_kwargs`` among them merged in
        (:func:`merge_model_kwargs`).

    Raises:
        UserError: a generation option's value is wrong (see :func:`check_generation_options`), a key is a close
            misspelling of one (``"Unknown ChatOpenAI option 'temprature': did you mean 'temperature'?"``), or a
            key names a request field toolwire writes (see :func:`check_model_kwargs`), or ``response_format`` is a
            class (a pydantic model: the message says to use ``with_structured_output``).
    """
    options = merge_model_kwargs(owner, options)
    _refuse_built(owner, "a call's options", options)
    for key in options:
        if key not in _GENERATION and key not in _NOT_MISSPELT:
            close = difflib.get_close_matches(str(key), _GENERATION, n=1, cutoff=0.8)
            if close:
                raise UserError(f"Unknown {owner} option {key!r}: did you mean {close[0]!r}?")
    check_generation_options(owner, {k: v for k, v in options.items() if k in _GENERATION})
    return dict(options)


# the options an API has not -> (those options, the API as the message names it, what to do)
_UNTAKEN: dict[str, tuple[tuple[str, ...], str, str]] = {
    "anthropic": (("seed",), "The Anthropic Messages API", "drop it for this model."),
    "responses": (("stop", "seed"), "The OpenAI Responses API",
                  "drop it, or use Chat Completions (ChatOpenAI(..., use_responses_api=False))."),
}


def untaken_names(api: str | None) -> tuple[str, ...]:
    """The options the ``api`` (``"anthropic"``, ``"responses"``; None: none) has not, which :func:`refuse_untaken`
    refuses."""
    return _UNTAKEN[api][0] if api else ()


def refuse_untaken(api: str, options: Mapping[str, Any]) -> None:
    """Refuse an option the ``api`` (``"anthropic"``, ``"responses"``) has not: run when the model is built (on its
    options and ``model_kwargs``) and on each request (the call's options too; review 77). A None value is not given.

    Raises:
        UserError: ``options`` sets one (the first in their order), naming it and what to do.
    """
    names, label, advice = _UNTAKEN[api]
    for key, value in options.items():
        if key in names and value is not None:
            raise UserError(f"{label} has no {key!r} option: {advice}")


def model_argument(owner: str, model: Any, model_name: Any) -> str:
    """The model's name from ``model`` or ``model_name`` (LangChain's classes take either: ``ChatOpenAI`` names
    its field ``model_name`` with the alias ``model``, ``ChatAnthropic`` the other way round), given once.

    Raises:
        UserError: neither is a non-empty string, or both are given and differ.
    """
    if model is not None and model_name is not None and model != model_name:
        raise UserError(f"Give the model name once: {owner} got model={model!r} and model_name={model_name!r} "
                        "(model_name is LangChain's other name for model).")
    name = model if model is not None else model_name
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{owner} needs a model name, e.g. model='...'.")
    return name
