"""ChatOpenAI's request options as a langchain-openai user passes them (review 277 #1, #3).

* :data:`REQUEST_OPTIONS`: langchain-openai's constructor fields that are request fields of OpenAI's APIs
  (``reasoning_effort``, ``reasoning``, ``verbosity``, ``service_tier``), taken by ``ChatOpenAI`` and sent with
  every request (:func:`taken_options`); on the Responses API ``reasoning_effort`` and ``verbosity`` go in its own
  fields, ``reasoning.effort`` and ``text.verbosity`` (:func:`responses_fields`), as langchain-openai sends them.
* :func:`leave_out_refused_temperature`: a temperature other than 1 given to an OpenAI reasoning model (o-series,
  gpt-5 but not ``-chat``, codex) on OpenAI or Azure is left out, with a warning, as langchain-openai's
  ``validate_temperature`` leaves it out: OpenAI answers any other with 400 "Only the default (1) value is
  supported".
* :func:`refuse_unknown`: an unknown constructor option that no close match or other advice covers is refused
  with the way to send a request field, ``model_kwargs``.
* :func:`client_defaults`: langchain-openai's ``default_headers`` and ``default_query``, sent with every request by
  the SDK's client (review 287 #3).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.errors import UserError
from toolwire.models._sdk_options import _BUILT, shown_value
from toolwire.models.lowering.openai import _REASONING_MODEL

__all__ = ["NOT_REQUEST_FIELDS", "REQUEST_OPTIONS", "client_defaults", "leave_out_refused_temperature",
           "refuse_chat_reasoning", "refuse_two_forms", "refuse_unknown", "responses_fields", "taken_options",
           "without_replaced_forms"]

REQUEST_OPTIONS = ("reasoning_effort", "reasoning", "verbosity", "service_tier")
"""langchain-openai's ``ChatOpenAI`` fields that ``ChatOpenAI`` takes as keywords and sends as request fields."""


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


_KINDS = {"reasoning_effort": (_text, "text such as 'low'"), "verbosity": (_text, "text such as 'low'"),
          "service_tier": (_text, "text such as 'flex'"),
          "reasoning": (lambda v: isinstance(v, Mapping), "a dict such as {'effort': 'low', 'summary': 'auto'}")}


def taken_options(owner: str, given: Mapping[str, Any], model_kwargs: Any, *, responses: bool,
                  compatible: bool) -> dict[str, Any]:
    """The request options of :data:`REQUEST_OPTIONS` given to the constructor, checked, as ``model_kwargs`` entries.

    Args:
        owner: the class's name, as messages name it.
        given: ``{name: value}`` (None: not given).
        model_kwargs: the constructor's ``model_kwargs`` (None, a dict; anything else is refused later).
        responses: the model calls the Responses API.
        compatible: the model talks to an OpenAI-compatible server (not OpenAI or Azure).

    Returns:
        ``{name: value}`` of those given (a ``reasoning`` dict copied).

    Raises:
        UserError: a value of the wrong kind; a name ``model_kwargs`` gives another value; ``reasoning`` (as a keyword
            or in ``model_kwargs``) for Chat Completions on OpenAI or Azure, which take ``reasoning_effort`` there
            (the Responses API takes ``reasoning``: :func:`refuse_chat_reasoning`).
    """
    taken: dict[str, Any] = {}
    for name, value in given.items():
        if value is None:
            continue
        ok, kind = _KINDS[name]
        if not ok(value):
            raise UserError(f"{owner}: {name} must be {kind}, not {value!r}.")
        if isinstance(model_kwargs, Mapping) and name in model_kwargs and model_kwargs[name] != value:
            raise UserError(f"{owner} got {name}={shown_value(name, value)} and model_kwargs={{{name!r}: "
                            f"{shown_value(name, model_kwargs[name])}}}: give {name} once.")
        taken[name] = dict(value) if name == "reasoning" else value
    if not responses and not compatible:
        refuse_chat_reasoning(owner, "", taken)
        if isinstance(model_kwargs, Mapping):
            refuse_chat_reasoning(owner, "model_kwargs", model_kwargs)
    return taken


def refuse_chat_reasoning(owner: str, where: str, options: Mapping[str, Any]) -> None:
    """Refuse a ``reasoning`` among ``options`` given to Chat Completions on OpenAI or Azure (the caller knows the
    API), which has ``reasoning_effort`` instead and answers ``reasoning`` with 400 "Unrecognized request argument":
    the one check of the constructor's keyword, its ``model_kwargs``, ``bind`` and a call's options (review 287 #6).

    Args:
        owner: the class's name.
        where: ``""`` for the constructor's keyword, else where it was given (``"model_kwargs"``, ``"a call's
            options"``), as the message names it.
        options: the options given.

    Raises:
        UserError: ``"ChatOpenAI: reasoning={'effort': 'low'} in model_kwargs is an option of the Responses API: ..."``
            naming ``use_responses_api=True`` and the ``reasoning_effort`` to give instead.
    """
    if "reasoning" not in options:
        return
    value = options["reasoning"]
    effort = value.get("effort") if isinstance(value, Mapping) else None
    place = f" in {where}" if where else ""
    instead = f"give its effort as reasoning_effort={effort!r}" if isinstance(effort, str) else \
        "give reasoning_effort (such as 'low')"
    raise UserError(f"{owner}: reasoning={value!r}{place} is an option of the Responses API: build the model with "
                    f"use_responses_api=True, or {instead} for Chat Completions.")


def _effort_none(options: Mapping[str, Any]) -> bool:
    reasoning = options.get("reasoning")
    return options.get("reasoning_effort") == "none" or (isinstance(reasoning, Mapping)
                                                         and reasoning.get("effort") == "none")


def leave_out_refused_temperature(owner: str, model: str, options: dict[str, Any], *, compatible: bool) -> None:
    """Remove from ``options`` (the model's own, ``model_kwargs`` merged) a temperature OpenAI would refuse: one other
    than 1 for an OpenAI reasoning model (``_REASONING_MODEL``: o1, o3, o4-mini, gpt-5 and gpt-5-mini but not
    gpt-5-chat, codex) on OpenAI or Azure, unless reasoning is off (``reasoning_effort="none"``, which gpt-5.1 takes
    with a temperature), with a warning saying so, once per line that builds such a model. langchain-openai's
    ``ChatOpenAI`` leaves it out the same way (``validate_temperature``, for gpt-5). A compatible server
    (``compatible``) keeps it: a model it serves under such a name may take one. A call's own temperature
    (``invoke(x, temperature=0)``) is sent as given.

    Args:
        owner: the class's name.
        model: the model name.
        options: the model's default request options, changed in place.
        compatible: the model talks to an OpenAI-compatible server.
    """
    temperature = options.get("temperature")
    if compatible or temperature is None or temperature == 1 or _REASONING_MODEL.match(model) is None \
            or _effort_none(options):
        return
    del options["temperature"]
    warn_user(f"{owner}: temperature={temperature!r} is left out of the requests to {model!r}, since OpenAI's "
              "reasoning models take only the default temperature (1) and answer any other with HTTP 400; leave "
              "temperature out (or pass 1) to keep this warning away.")


def responses_fields(body: dict[str, Any], call: Mapping[str, Any] | None = None) -> bool:
    """Move ``reasoning_effort`` and ``verbosity`` of a Responses API request ``body`` to the fields that API has,
    ``reasoning.effort`` and ``text.verbosity`` (it refuses the Chat Completions names), as langchain-openai does.
    A call's own ``reasoning_effort``/``verbosity`` (in ``call``) replaces the ``effort``/``verbosity`` a ``reasoning``
    or ``text`` dict of the model gives, the rest of that dict kept (review 287 #2: a call's option is the more
    specific); the model's own fills a dict only where it gives none. ``body`` is changed in place (its
    ``reasoning`` and ``text`` dicts replaced by copies).

    Args:
        body: the request's keyword arguments, the model's options and the call's merged in.
        call: the call's own options (``bind``'s and the call's: ``request.options``), or None.

    Returns:
        Whether ``reasoning`` was set here (the request then reasons: see ``_unstored``).
    """
    call = call or {}
    added = False
    for flat, field, key in _FORMS:
        if flat not in body:
            continue
        value = body.pop(flat)
        held = body.get(field)
        if held is None:
            body[field] = {key: value}
            added = added or field == "reasoning"
        elif isinstance(held, Mapping) and (held.get(key) is None or flat in call):
            body[field] = {**held, key: value}
    return added


_FORMS = (("reasoning_effort", "reasoning", "effort"), ("verbosity", "text", "verbosity"))
"""The Chat Completions name of a Responses API setting, the field that holds it there, and its key in that field."""


def _inner(options: Mapping[str, Any], field: str, key: str) -> Any:
    held = options.get(field)
    return held.get(key) if isinstance(held, Mapping) else None


def refuse_two_forms(owner: str, options: Mapping[str, Any], where: str = "") -> None:
    """Refuse a Responses API setting given in both of its forms with different values at one level (the model's own
    options, ``model_kwargs`` merged; or one call's, or ``bind``'s): ``reasoning_effort`` and ``reasoning["effort"]``,
    ``verbosity`` and ``text["verbosity"]`` (review 287 #2: one was dropped without a word).

    Args:
        owner: the class's name.
        options: the options of one level.
        where: ``""`` for the model's own, else where they were given (``"a call's options"``).

    Raises:
        UserError: ``"ChatOpenAI got reasoning_effort='high' and reasoning={'effort': 'low'}: give the effort
            once, as reasoning_effort or in reasoning."``
    """
    for flat, field, key in _FORMS:
        inner = _inner(options, field, key)
        if flat in options and inner is not None and options[flat] != inner:
            place = f" in {where}" if where else ""
            raise UserError(f"{owner} got {flat}={options[flat]!r} and {field}={options[field]!r}{place}: give the "
                            f"{key} once, as {flat} or in {field}.")


def without_replaced_forms(options: dict[str, Any], call: Mapping[str, Any],
                           bound: Mapping[str, Any]) -> dict[str, Any] | None:
    """A request's ``options`` (``bind``'s with the call's merged in) without a bound ``reasoning_effort`` or
    ``verbosity`` that the call's own ``reasoning``/``text`` dict gives another form of (the call's is the more
    specific), or None when there is none to leave out.

    Args:
        options: the request's options.
        call: the call's own options (``model_kwargs`` merged in).
        bound: the options ``bind`` bound.
    """
    drop = [flat for flat, field, key in _FORMS
            if flat in bound and flat not in call and _inner(call, field, key) is not None]
    return {k: v for k, v in options.items() if k not in drop} if drop else None


def refuse_unknown(cls: type, kwargs: Mapping[str, Any], known: list[str], handled: frozenset[str]) -> None:
    """Refuse the first option of ``kwargs`` that ``cls`` does not take, when no other advice covers it, saying to give
    a request field of the API in ``model_kwargs`` (review 277 #3: the refusal listed the options only).

    Args:
        cls: the model class (its name is the message's).
        kwargs: the constructor's keywords left over for the base class.
        known: every option the class takes.
        handled: names the shared check gives advice of its own for (another library's name of an option, a client
            setting such as ``default_headers``, which ``model_kwargs`` refuses): left to it, as a close match is.

    Raises:
        UserError: ``"Unknown ChatOpenAI option 'logprobs': to send a field of the API's requests, give it in
            model_kwargs={'logprobs': ...}, ..."`` (the value is not shown: it may be a credential); a request field
            toolwire writes itself (``parallel_tool_calls``, ``tool_choice``, ``stream_options``, ``messages``...),
            which ``model_kwargs`` refuses too, with what to use instead (``bind_tools(tools,
            parallel_tool_calls=...)``); a name of :data:`NOT_REQUEST_FIELDS` is left to the shared check.
    """
    from toolwire._keywords import CLOSE

    for key in kwargs:
        if key in known:
            continue
        if key in handled or difflib.get_close_matches(str(key), known, n=1, cutoff=CLOSE):
            return
        owner = cls.__name__
        if key in NOT_REQUEST_FIELDS or key in _own_parameters(cls):  # (a subclass's own option it passes on:
            return  # "Regional passes it on, but no model class takes it", said by the base class: review 55)
        if key in _BUILT:  # (model_kwargs refuses it too: the advice that works, review 287 #4)
            raise UserError(f"Unknown {owner} option {key!r}, a request field toolwire writes itself: {_BUILT[key]}.")
        raise UserError(f"Unknown {owner} option {key!r}: to send a field of the API's requests, give it in "
                        f"model_kwargs={{{key!r}: ...}}, which sends it with every request ({owner}'s own options "
                        f"are {', '.join(sorted(known))}).")


NOT_REQUEST_FIELDS = frozenset({
    "http_client", "http_async_client", "openai_proxy", "tiktoken_model_name", "include_response_headers",
    "disabled_params", "output_version", "use_previous_response_id", "stream_chunk_timeout", "http_socket_options",
    "azure_ad_token", "azure_ad_token_provider", "azure_ad_async_token_provider", "azure_deployment", "api_version",
    "openai_api_version", "azure_endpoint", "openai_api_type", "validate_base_url", "callbacks", "verbose", "cache",
    "tags", "rate_limiter", "custom_get_token_ids", "profile", "callback_manager"})
"""langchain-openai's ``ChatOpenAI``/``AzureChatOpenAI`` fields (and LangChain's model fields) that set its client
or LangChain itself, not a request field: ``model_kwargs`` is not offered for them (the shared refusal lists the
options)."""


def client_defaults(owner: str, headers: Any, query: Any, url_query: Mapping[str, str]) -> tuple[
        dict[str, str], dict[str, Any]]:
    """``default_headers`` and ``default_query`` (langchain-openai's ``ChatOpenAI`` options, given to the ``openai``
    SDK's client, which sends them with every request), checked; the secret values of the headers
    (:func:`~toolwire._secrets.header_secrets`: ``Authorization``, ``api-key``...) are masked in the SDKs' logs from
    now on (review 287 #3).

    Args:
        owner: the class's name.
        headers: ``{header name: text}``, or None.
        query: ``{parameter name: value}`` (text or a number), or None.
        url_query: the query parameters the ``base_url`` gives (sent the same way).

    Returns:
        ``(headers, query)``, each a dict of its own (empty for None).

    Raises:
        UserError: a value of the wrong kind (no value is shown: it may be a credential), or a parameter of
            ``default_query`` that the ``base_url``'s query gives another value.
    """
    from toolwire._secrets import header_secrets, remember_secrets

    if headers is not None and not (isinstance(headers, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items())):
        raise UserError(f"{owner}: default_headers must be a dict of header names to text, such as "
                        "{'X-Team': 'research'}.")
    if query is not None and not (isinstance(query, Mapping) and all(
            isinstance(k, str) and isinstance(v, str | int | float) for k, v in query.items())):
        raise UserError(f"{owner}: default_query must be a dict of query parameter names to text or numbers, such "
                        "as {'api-version': 'preview'}.")
    for name, value in (query or {}).items():
        if name in url_query and url_query[name] != str(value):
            raise UserError(f"{owner} got the query parameter {name!r} in both base_url and default_query with "
                            "different values: give it once.")
    remember_secrets(header_secrets(headers))
    return dict(headers or {}), dict(query or {})


def _own_parameters(cls: type) -> Mapping[str, Any]:
    """The parameters of ``cls.__init__`` (a user's subclass of ChatOpenAI may take an option of its own and pass it
    on); none when its signature cannot be read."""
    import inspect

    try:
        return inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return {}
