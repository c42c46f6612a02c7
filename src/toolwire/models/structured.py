"""Structured output: a chat model that answers with one value of a schema, through a forced tool call.

``model.with_structured_output(Schema)`` binds one tool whose arguments are the schema's fields and forces
the model to call it (``tool_choice`` set to its name; a name that is also a ``tool_choice`` mode, ``"none"``,
``"auto"``, ``"required"`` or ``"any"``, is sent as ``"none_output"``..., which cannot be read as the mode:
:func:`~toolwire.models._tool_choice.forceable`, review 268 #3), then reads the call's arguments as a value of the
schema. This is how LangChain's ``with_structured_output`` works by default (``method="function_calling"``)
and what Pydantic AI calls an output tool; every provider toolwire drives can force a tool call, and on the
embedded model the call is generated under a grammar made from the schema, which holds its arguments to the
schema's shape (keys, types, enums, tuples, dict values) but not to every keyword (``pattern``, string lengths, most
numeric bounds: :mod:`toolwire.models.grammar` lists them); validation catches the rest.

What comes back, per schema kind:

* a pydantic model class: an instance of it (validated by pydantic, toolwire's argument rules added: no boolean for a
  number, no NaN), whose own ``extra`` setting decides unknown keys, as ``Model.model_validate`` would: dropped under
  pydantic's default ``"ignore"``, refused under ``"forbid"`` (a tool refuses them whatever its model's default, since
  they catch misspelled argument names; here the class is the user's answer type, and the JSON Schema sent, which
  says ``additionalProperties: false``, is the same either way);
* a ``TypedDict`` class: a dict, and a dataclass: an instance (both validated with pydantic's ``TypeAdapter``, unknown
  keys as it reads them: dropped, unless the class's config forbids them);
* a JSON Schema dict (with a ``title``, the tool's name), a tool dict (OpenAI or bare ``{"name", "description",
  "parameters"}``), or OpenAI's ``response_format`` schema (``{"name", "schema", "strict"?}``, or the whole
  ``{"type": "json_schema", "json_schema": {...}}``; review 185 #1): the arguments as a dict, as the model wrote them,
  checked against the schema the user gave with ``jsonschema`` (review 185 #5: strict mode is not sent the keywords
  outside its subset, and a local model's grammar holds only the shape; :mod:`toolwire.models._structured_dicts`),
  keys the schema does not refuse kept, except that a ``null`` the schema does not allow, at a key it does not
  require, is dropped first: OpenAI strict mode makes every key required and nullable, so the model sends one for
  each key it leaves out, at any depth (review 96 #4). A ``null`` the schema allows is kept.

A reply without the call (a provider that ignored ``tool_choice``), arguments that are not JSON, arguments the
schema refuses (or on which a validator of the user's raises anything: review 185 #4), or a refusal (OpenAI's
``refusal``, Anthropic's ``refusal`` stop, a Gemini safety stop or blocked prompt, which is not asked again: review
185 #3) raise :class:`~toolwire.errors.ToolCallParseError` whose ``raw`` is the reply; with
``include_raw=True`` nothing is raised for those and the result is LangChain's dict ``{"raw": AIMessage,
"parsed": value or None, "parsing_error": exception or None}``. With ``retries=n`` such a reply is first sent back
to the model with what did not fit, and the model asked again, up to ``n`` more times (Pydantic AI's output retries:
:mod:`toolwire.models._structured_retry`); the error or dict is then the last reply's.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from typing_extensions import is_typeddict  # typing's misses a typing_extensions.TypedDict before 3.13

from toolwire._batch import Batching
from toolwire._keywords import refuses_unknown_keywords
from toolwire._tool_checks import valid_name
from toolwire.chunks import merge_chunks
from toolwire.errors import SchemaError, ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.models._handed_out import whole_streamer
from toolwire.models._retry import aclose_stream
from toolwire.models._runnable import (
    ONE_ATTEMPT,
    RunnableMethods,
    WholeCallRetry,
    bound_repr,
    refuse_event_stream,
    retry_policy,
)
from toolwire.models._structured_retry import Attempts, Problem, check_retries, problems_text
from toolwire.models._structured_stream import ainvoke_whole, invoke_whole, stream_cut, stream_cut_error

if TYPE_CHECKING:
    from toolwire.models.base import BaseChatModel
    from toolwire.tools import ToolSpec

__all__ = ["StructuredOutput", "output_tool"]

# finish reasons of a reply stopped by its token limit: OpenAI Chat "length", Anthropic "max_tokens", Gemini
# "MAX_TOKENS", the Responses API's "max_output_tokens", a local model's "length"; Anthropic's window full too
_CUT_OFF = frozenset({"length", "max_tokens", "max_output_tokens"})
_WINDOW_FULL = "model_context_window_exceeded"  # (asked again, the conversation only grows: review 223 #1)


def output_tool(schema: Any) -> tuple[ToolSpec, Callable[[dict[str, Any]], Any]]:
    """The tool a structured-output model forces, and the reader that turns its arguments into the value.

    Args:
        schema: a pydantic model class, a ``TypedDict`` class (``typing``'s or ``typing_extensions``'), a
            dataclass, a JSON Schema dict of an object with a ``title`` (the tool's name; its ``description`` the
            tool's), a tool dict as ``bind_tools`` takes it, or OpenAI's ``response_format`` schema
            (``{"name", "description"?, "strict"?, "schema"}``, or ``{"type": "json_schema", "json_schema": {...}}``).

    Returns:
        ``(spec, read)``: the :class:`~toolwire.tools.ToolSpec` to bind (name, description, JSON Schema of the
        arguments), and a function from the call's arguments (a dict) to the value (see the module docs).

    Raises:
        SchemaError: ``schema`` is none of the above, a JSON Schema dict has no ``title`` (a response-format dict
            no ``name``), or the schema cannot be a tool's arguments (not an object, a recursive reference, not
            valid JSON Schema).
    """
    spec, validate = _output_tool(schema)
    return spec, _repairing(spec.parameters, validate)


def _repairing(parameters: dict[str, Any], validate: Callable[[dict[str, Any]], Any]) -> Callable[[Any], Any]:
    """``validate`` after the repairs a tool's arguments get (:meth:`Tool.call_args <toolwire.tools.Tool.call_args>`):
    a nested object or array sent as JSON text is decoded (Gemini gets a ``dict[str, X]`` field as a ``STRING`` of
    JSON, and providers JSON-encode nested objects), and a ``null`` sent for a key the schema does not require and
    whose schema does not take ``null`` is dropped, at any depth (:func:`~toolwire._schema_refs.null_plan`; OpenAI
    strict mode sends one for every key left out). A pydantic model, TypedDict or dataclass then fills in the
    field's default; a JSON Schema dict or tool dict (``validate`` is ``dict``) is given without the key, so that it
    fits the schema it was given (review 96 #4). A ``null`` for a required key, or one the schema allows, is kept."""
    from toolwire._schema_refs import drop_defaulted_nulls, null_plan
    from toolwire.parsing.arguments import decode_json_strings, json_string_plan

    strings, nulls = json_string_plan(parameters), null_plan(parameters)

    def read(args: Any) -> Any:
        if isinstance(args, dict):
            if strings is not None:
                args = decode_json_strings(args, strings)
            if nulls is not None:
                args = drop_defaulted_nulls(args, nulls)
        return validate(args)

    return read


def _output_tool(schema: Any) -> tuple[ToolSpec, Callable[[dict[str, Any]], Any]]:
    from toolwire.models.base import to_tool_spec

    if isinstance(schema, type) and issubclass(schema, BaseModel):
        from toolwire._schema_strict import strict_validator, validator_config

        model: type[BaseModel] = schema
        # checked as a tool's arguments are (toolwire._schema_strict: no boolean for a number, no NaN), into an
        # instance of the model, except that unknown keys are the model's own business: refused where its config
        # (or a nested class's) forbids them, dropped where it ignores them, as Model.model_validate does
        core = _extras_as_declared(model.__pydantic_core_schema__)
        validator = strict_validator(core, validator_config(core), model.__pydantic_validator__)  # type: ignore[arg-type]
        from toolwire.schema import model_schema
        from toolwire.tools import ToolSpec

        title = model.model_config.get("title")  # ConfigDict(title=...) names the tool, as LangChain's
        # convert_to_openai_tool names it by the JSON Schema's title (review 96 #8)
        name = _output_name(title if isinstance(title, str) and title else model.__name__)
        arguments = model_schema(model, name)
        from toolwire._schema_json import reader  # (JSON-mode rules where they differ from Python's: review 94)

        return ToolSpec(name, arguments.description, arguments.parameters), reader(validator, core,
                                                                                     validator_config(core))
    if isinstance(schema, type) and (is_typeddict(schema) or dataclasses.is_dataclass(schema)):
        # (_compat: a typing.TypedDict, which pydantic refuses before Python 3.12; resolved_adapter: a class local to
        # the caller named in a field: review 94 #7)
        from toolwire._schema_compat import _compat, resolved_adapter

        try:
            adapter = resolved_adapter(_compat(schema), schema.__name__)
            from toolwire.schema import _SHOWN, _DefaultsAsData, _drop_non_finite, _renamed_keys

            # (says the keys it refuses; a non-finite default left out, as a model's is: review 242 #5)
            parameters = _renamed_keys(adapter.json_schema(schema_generator=_DefaultsAsData), _SHOWN)
            _drop_non_finite(parameters, _output_name(schema.__name__))
        except SchemaError:  # a recursive TypedDict (_compat): said as for a recursive model (review 75)
            raise
        except Exception as exc:  # pydantic cannot give a JSON Schema for one of its fields
            raise SchemaError(f"{schema.__name__} cannot be given as a JSON Schema: {exc}") from None
        spec = to_tool_spec({"name": _output_name(schema.__name__), "description": _class_description(schema),
                             "parameters": parameters})
        from toolwire._schema_json import reader
        from toolwire._schema_strict import strict_validator

        core = _extras_as_declared(adapter.core_schema)  # (unknown keys as pydantic reads the class: review 103)
        validator = strict_validator(core, None, adapter.validator)  # type: ignore[arg-type]
        return spec, reader(validator, core)  # (toolwire's rules, as for a model: review 63)
    v1 = sys.modules.get("pydantic.v1")
    if v1 is not None and isinstance(schema, type) and issubclass(schema, v1.BaseModel):  # as LangChain takes it
        return to_tool_spec(schema), schema.parse_obj
    if isinstance(schema, Mapping):  # a JSON Schema, a tool dict, or OpenAI's response_format schema (review 185 #1)
        from toolwire.models._structured_dicts import dict_output

        return dict_output(schema, _output_name)
    raise SchemaError(f"Structured output takes a pydantic model class, a TypedDict, a dataclass, a JSON Schema "
                      f"dict or a tool dict, not {schema!r}.")


_CLASS_NODES = frozenset(("model", "dataclass", "typed-dict"))


def _extras_as_declared(node: Any) -> Any:
    """The core schema ``node`` with pydantic's default ``extra`` (``"ignore"``) written into the config of each
    model, dataclass and TypedDict node that chose nothing (neither its config nor its fields node), so that
    :func:`~toolwire._schema_strict.strict_core`, which closes such objects to unknown keys for tools (a misspelled
    argument name must not be dropped silently), leaves them as pydantic validates them. For structured output the
    user's class is the judge: ``Invoice.model_validate({..., "note": "x"})`` drops ``note``, so the output tool's
    arguments do too; a config with ``extra="forbid"`` (which pydantic also writes into nested dataclasses and
    TypedDicts) still refuses it. The JSON Schema sent is made apart (:func:`~toolwire.schema.model_schema`) and does
    not change. ``node`` itself is not changed: the nodes on the way to a changed one are copied."""
    from toolwire._schema_strict import _DATA_KEYS

    kind = type(node)
    if kind is list or kind is tuple:
        items = [_extras_as_declared(item) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else kind(items)
    if kind is not dict:
        return node
    schema_type = node.get("type")
    is_schema = type(schema_type) is str
    out: dict[str, Any] | None = None
    for key, value in node.items():
        if type(value) not in (dict, list, tuple) or (is_schema and key in _DATA_KEYS):
            continue
        new = _extras_as_declared(value)
        if new is not value:
            out = dict(node) if out is None else out
            out[key] = new
    result = node if out is None else out
    if schema_type in _CLASS_NODES:
        own = result.get("config")
        own = own if isinstance(own, dict) else {}
        fields = result if schema_type == "typed-dict" else result.get("schema")
        chose = isinstance(fields, dict) and fields.get("extra_behavior", "ignore") != "ignore"
        if "extra_fields_behavior" not in own and not chose:
            result = {**result, "config": {**own, "extra_fields_behavior": "ignore"}}
    return result


def _output_name(name: str) -> str:
    """The output tool's name made from a class's name or a JSON Schema's ``title``, by
    :func:`~toolwire._tool_checks.valid_name` (``"Answer"`` when nothing is left). ``with_structured_output`` takes no
    tool name, so one a tool may not have (a generic model's ``Page[Item]``, a title ``"Weather Report"``, a class
    ``Città``) is made valid rather than refused (review 80). It starts with a letter or ``_`` (``"1st Answer"`` ->
    ``"_1st_Answer"``), as Gemini's function names must, so that every provider takes it."""
    made = valid_name(name, "Answer")
    return made if made[0].isalpha() or made[0] == "_" else ("_" + made)[:64]


def _class_description(cls: type) -> str:
    own = cls.__dict__.get("__doc__")  # (inspect.getdoc would give a TypedDict dict's own docstring)
    doc = inspect.cleandoc(own) if isinstance(own, str) else ""
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):  # the signature dataclass writes
        doc = ""
    return doc or f"Give the answer as {cls.__name__}."


class StructuredOutput(Batching):
    """A chat model that answers with one value of a schema (see the module docs): ``invoke``, ``ainvoke``,
    ``stream``, ``astream``, and ``batch``/``abatch`` for many inputs at once (answers in input order).

    Made by :meth:`BaseChatModel.with_structured_output <toolwire.models.base.BaseChatModel.with_structured_output>`.

    Args:
        model: the chat model with the output tool bound and forced.
        name: the output tool's name.
        read: turns the call's arguments (a dict) into the value; whatever it raises (pydantic's
            ``ValidationError``, a validator's ``KeyError``) means the arguments do not fit.
        include_raw: return ``{"raw", "parsed", "parsing_error"}`` instead of the value, and raise nothing for a
            reply that cannot be read.
        retries: the extra requests made after a reply that cannot be read as the schema, each sending the
            conversation so far, that reply, and what did not fit (Pydantic AI's output retries: see
            :mod:`toolwire.models._structured_retry`); 0 (default): one request, as LangChain's.

    Attributes:
        model: as given (its ``tools`` hold the output tool alone).
        include_raw, retries: as given.

    Raises:
        UserError: ``retries`` is not a whole number of at least 0 (a bool, a float, -1).

    LangChain's ``with_structured_output`` returns a ``RunnableSequence`` (the model, then an output parser), so its
    result has ``bind`` and ``with_retry``; these do what those do (:meth:`bind`, :meth:`with_retry`).
    """

    _bound_options: Mapping[str, Any] = {}  # (for bound_repr: bind binds on the model, whose repr shows it)
    _whole_retry: WholeCallRetry = ONE_ATTEMPT

    def __init__(self, model: BaseChatModel, name: str, read: Callable[[dict[str, Any]], Any], *,
                 include_raw: bool = False, retries: int = 0) -> None:
        self.retries = check_retries(retries)
        self.model = model
        self.include_raw = include_raw
        self._name = name
        self._read = read

    def __repr__(self) -> str:
        retries = f", retries={self.retries}" if self.retries else ""
        return (f"StructuredOutput({self.model!r}, tool={self._name!r}, include_raw={self.include_raw}{retries}"
                f"{bound_repr(self)})")

    def bind(self, **kwargs: Any) -> StructuredOutput:
        """Return a new structured output whose model is ``self.model.bind(**kwargs)``: every call sends those
        options, a call's own winning (LangChain's ``bind`` on ``with_structured_output``'s ``RunnableSequence``
        passes them to its first step, the model). This one is unchanged; the retry of :meth:`with_retry` is kept.

        Args:
            **kwargs: generation options, as :meth:`BaseChatModel.bind <toolwire.models._runnable.RunnableMethods.bind>`
                takes them.

        Returns:
            A new :class:`StructuredOutput`.

        Raises:
            UserError: as the model's ``bind`` (an option ``invoke`` refuses; ``tools``/``tool_choice``, which
                would replace the output tool).
        """
        new = copy.copy(self)
        new.model = self.model.bind(**kwargs)
        return new

    @refuses_unknown_keywords("with_retry")
    def with_retry(self, *, retry_if_exception_type: tuple[type[BaseException], ...] | Callable[[BaseException], bool]
                   = (Exception,), wait_exponential_jitter: bool = True,
                   exponential_jitter_params: Mapping[str, float] | None = None,
                   stop_after_attempt: int = 3) -> StructuredOutput:
        """Return a new structured output whose calls are made again when they raise, the reading of the reply
        included: LangChain's ``with_retry`` on ``with_structured_output``'s ``RunnableSequence`` (model, then output
        parser) runs both again, so with the default ``(Exception,)`` a reply that does not fit the schema
        (:class:`~toolwire.errors.ToolCallParseError`) is asked for again; with ``include_raw=True`` nothing is
        raised for such a reply, so it is not. That request is the same one (a model at temperature 0 answers it the
        same way): ``with_structured_output(..., retries=n)`` sends the error back instead, and this retry then
        repeats that whole exchange. ``stream``/``astream`` (which yield the one value) are made again
        only before they yield it. Arguments, waits and errors as
        :meth:`BaseChatModel.with_retry <toolwire.models._runnable.RunnableMethods.with_retry>`.

        Returns:
            A new :class:`StructuredOutput` (the retry replaces one set before); this one is unchanged.

        Raises:
            UserError: as the model's ``with_retry``.
        """
        new = copy.copy(self)
        new._whole_retry = retry_policy(retry_if_exception_type, wait_exponential_jitter, exponential_jitter_params,
                                        stop_after_attempt)
        return new

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Refuse LangChain's ``with_config`` as a model does (toolwire has no ``RunnableConfig``).

        Raises:
            UserError: always.
        """
        return RunnableMethods.with_config(self, config, **kwargs)  # type: ignore[arg-type]

    astream_events = refuse_event_stream("astream_events")  # (LangChain's event streams: review 180 #4, 186 #8)
    astream_log = refuse_event_stream("astream_log")
    # ``structured | step`` and ``step | structured``: a pipeline, as ``model | step`` (LangChain's
    # ``RunnableSequence``; review 185 #6)
    __or__ = RunnableMethods.__or__
    __ror__ = RunnableMethods.__ror__

    def invoke(self, input: Any, *config: Any, **options: Any) -> Any:
        """Ask the model and read its forced call as a value of the schema; with ``retries``, ask again after a reply
        that cannot be read, telling the model what did not fit (:func:`~toolwire.models._structured_retry.
        next_conversation`: the reply, then an error ToolMessage answering its call, or a HumanMessage when it
        made none), up to ``retries`` more times. A reply cut off at ``max_tokens`` is not asked again (the error
        says to raise it), nor is one Anthropic cut because the context window filled (the error says to shorten
        the conversation), nor a refusal; a ``streaming=True`` model's reply whose stream ended early within the
        call is asked for again up to the model's ``max_retries``, as a stream that broke is (review 214 #4).

        Args:
            input: a string, a message, or a list of messages, as :meth:`BaseChatModel.invoke` takes.
            **options: generation options for this call (temperature, max_tokens, ...).

        Returns:
            The value (see the module docs), or with ``include_raw`` the dict ``{"raw": AIMessage, "parsed":
            value or None, "parsing_error": ToolCallParseError or None}``. After more than one request, ``raw`` (and
            a raised error's ``raw``) is a copy of the last reply whose ``response_metadata["attempts_usage"]`` lists
            the ``usage`` of every request made (None where a reply had none), its own last.

        Raises:
            ToolCallParseError: (without ``include_raw``) the last reply has no call of the output tool, or its
                arguments are not JSON or do not fit the schema (a validator that raised is its ``__cause__``), or
                the model refused (not asked again); ``raw`` is that reply, and after more than one request the
                message says how many were made.
            ProviderError, UserError: as :meth:`BaseChatModel.invoke`.
        """
        if config:  # LangChain's invoke(input, config): refused in one sentence (review 143 #6)
            from toolwire.models.base import _refuse_config

            _refuse_config("invoke", config)
        def once(value: Any) -> Any:
            attempts = self._attempts(value)
            while True:
                try:
                    reply = invoke_whole(self.model, attempts.input, options, self._name)
                except Exception as exc:  # (the earlier replies' usage on it: review 285 #2)
                    attempts.failed(exc)
                    raise
                done, result = attempts.outcome(reply)
                if done:
                    return result

        return self._whole_retry.call(once, input)

    async def ainvoke(self, input: Any, *config: Any, **options: Any) -> Any:
        """Async :meth:`invoke`: the same request, awaited.

        Args:
            input, options: as for :meth:`invoke`.

        Returns:
            As :meth:`invoke`.

        Raises:
            ToolCallParseError, ProviderError, UserError: as :meth:`invoke`.
        """
        if config:  # LangChain's ainvoke(input, config): refused in one sentence (review 143 #6)
            from toolwire.models.base import _refuse_config

            _refuse_config("ainvoke", config)
        async def once(value: Any) -> Any:
            attempts = self._attempts(value)
            while True:
                try:
                    reply = await ainvoke_whole(self.model, attempts.input, options, self._name)
                except Exception as exc:
                    attempts.failed(exc)
                    raise
                done, result = attempts.outcome(reply)
                if done:
                    return result

        return await self._whole_retry.acall(once, input)

    def stream(self, input: Any, **options: Any) -> Iterator[Any]:
        """Stream the reply and yield the value once it is complete (a part of a schema's value is not a value of
        it). LangChain's ``with_structured_output(...).stream`` differs: its parser yields a new partial object each
        time the arguments streamed so far validate (a pydantic schema's ``City(name='Pa')``, then
        ``City(name='Paris')``...); here the one item is the whole value, read as :meth:`invoke` reads it. As nothing
        is handed out before the reply is complete, a hosted model's stream that breaks at any point is tried again as
        :meth:`invoke`'s request is (the model's ``max_retries``), the reply read as ``invoke`` of a ``streaming=True``
        model reads it; so is one that ends early within the call without a finish reason (an OpenAI-compatible
        server's), whose error, when the tries run out, says so.

        Args:
            input, options: as for :meth:`invoke`.

        Yields:
            One item: what :meth:`invoke` returns.

        Raises:
            ToolCallParseError, ProviderError, UserError: as :meth:`invoke`.
        """
        yield from self._whole_retry.stream(lambda value: self._stream(value, options), input)

    def _stream(self, input: Any, options: dict[str, Any]) -> Iterator[Any]:
        attempts = self._attempts(input)
        while True:
            try:
                reply = self._streamed(attempts.input, options)
            except Exception as exc:
                attempts.failed(exc)
                raise
            done, result = attempts.outcome(reply)
            if done:
                yield result
                return

    async def astream(self, input: Any, **options: Any) -> AsyncIterator[Any]:
        """Async :meth:`stream`.

        Args:
            input, options: as for :meth:`invoke`.

        Yields:
            One item: what :meth:`invoke` returns.

        Raises:
            ToolCallParseError, ProviderError, UserError: as :meth:`invoke`.
        """
        values = self._whole_retry.astream(lambda value: self._astream(value, options), input)
        try:
            async for value in values:
                yield value
        finally:  # closed early: the model's stream is closed now, not by asyncio's finalizer (review 146 #3)
            await aclose_stream(values)

    async def _astream(self, input: Any, options: dict[str, Any]) -> AsyncIterator[Any]:
        attempts = self._attempts(input)
        while True:
            try:
                reply = await self._astreamed(attempts.input, options)
            except Exception as exc:
                attempts.failed(exc)
                raise
            done, result = attempts.outcome(reply)
            if done:
                yield result
                return

    def _streamed(self, input: Any, options: dict[str, Any]) -> AIMessage:
        """The model's reply to ``input``, read through its stream and merged. A hosted model's stream is read as
        ``invoke`` of a ``streaming=True`` model reads it (a copy of the model with ``streaming`` on): nothing is handed
        out before the reply is complete, so a stream that breaks at any point is tried again, up to its
        ``max_retries`` (review 206 #2: it was not, once text or a call piece had come), and so is one that ended early
        within the call, without a finish reason (review 214 #4: :mod:`toolwire.models._structured_stream`)."""
        whole = whole_streamer(self.model)
        if whole is not None:
            return invoke_whole(whole, input, options, self._name)
        return self._merged(list(self.model.stream(input, **options)))

    async def _astreamed(self, input: Any, options: dict[str, Any]) -> AIMessage:
        """Async :meth:`_streamed`."""
        whole = whole_streamer(self.model)
        if whole is not None:
            return await ainvoke_whole(whole, input, options, self._name)
        return self._merged([chunk async for chunk in self.model.astream(input, **options)])

    def _merged(self, chunks: list[Any]) -> AIMessage:
        return merge_chunks(chunks, as_chunk=False, tool_names=[t.name for t in self.model.tools])  # type: ignore

    def _attempts(self, input: Any) -> Attempts:
        return Attempts(input, self.retries, self._name, self._check, self.include_raw)

    def parse(self, reply: AIMessage) -> Any:
        """Read ``reply``'s first call of the output tool as a value of the schema.

        Args:
            reply: the model's reply.

        Returns:
            The value (see the module docs).

        Raises:
            ToolCallParseError: no call of the output tool, or its arguments are not JSON or do not fit the schema
                (the message says which field and why), or the reply is a refusal; ``raw`` is ``reply``.
        """
        value, problem = self._check(reply)
        if problem is not None:
            raise problem.error
        return value

    def _check(self, reply: AIMessage) -> tuple[Any, Problem | None]:
        """:meth:`parse` without raising: ``(value, None)``, or ``(None, Problem)`` with the error it raises and what
        the model is told when asked again (:class:`~toolwire.models._structured_retry.Problem`)."""
        reason = str(reply.response_metadata.get("finish_reason") or "").lower()
        cut = reason in _CUT_OFF or reason == _WINDOW_FULL
        refused = _refused(reply)
        for call in reply.tool_calls:
            if call["name"] == self._name:
                try:
                    return self._read(call["args"]), None
                except Exception as exc:  # (a validator's KeyError too: review 185 #4)
                    if refused or cut:
                        return None, Problem(self._refusal(reply) if refused else self._cut_off(reply), None)
                    problems = problems_text(exc, self._name, next((tool.parameters for tool in self.model.tools
                                                                    if tool.name == self._name), None))
                    error = ToolCallParseError(f"The model's {self._name} does not fit the schema: {problems}.",
                                               raw=reply)
                    error.__cause__ = exc
                    return None, Problem(error, f"{self._name} was not accepted: {problems}.")
        if refused:  # not asked again: the same request is refused again (review 185 #3)
            return None, Problem(self._refusal(reply), None)
        if cut:
            return None, Problem(self._cut_off(reply), None)
        if stream_cut(reply, self._name):  # already tried again as a broken stream is: not the model's to mend
            return None, Problem(stream_cut_error(reply, self._name), None)
        for bad in reply.invalid_tool_calls:
            if bad.get("name") in (self._name, None):
                error_text = str(bad.get("error") or "its arguments are not valid JSON").strip()
                end = "" if error_text.endswith((".", "!", "?")) else "."
                return None, Problem(ToolCallParseError(f"The model's {self._name} could not be read: "
                                                        f"{error_text}{end}", raw=reply),
                                     f"{self._name} could not be read: {error_text}{end}")
        others = sorted({str(c["name"]) for c in reply.tool_calls} | {str(b.get("name")) for b in
                                                                       reply.invalid_tool_calls if b.get("name")})
        said = (f" (it called {', '.join(others)})" if others
                else f" (it answered in text: {reply.text[:80]!r})" if reply.text else "")
        return None, Problem(ToolCallParseError(f"The model did not call {self._name}{said}: ask again, or use a "
                                                "model that follows tool_choice.", raw=reply),
                             f"You did not call {self._name}.")

    def _refusal(self, reply: AIMessage) -> ToolCallParseError:
        metadata = reply.response_metadata
        said = next((str(text).strip() for text in (metadata.get("refusal"), reply.text, metadata.get(
            "block_reason_message"), metadata.get("finish_message")) if text and str(text).strip()), "")
        reason = metadata.get("server_finish_reason") or metadata.get("block_reason") or metadata.get("finish_reason")
        why = f" ({getattr(reason, 'value', reason)})" if reason and str(reason).lower() != "refusal" else ""
        return ToolCallParseError(f"The model refused to give its {self._name}{why}"
                                  f"{f': {said[:200]!r}' if said else ''}; it was not asked again, since the same "
                                  "request would be refused again.", raw=reply)

    def _cut_off(self, reply: AIMessage) -> ToolCallParseError:
        if str(reply.response_metadata.get("finish_reason") or "").lower() == _WINDOW_FULL:
            return ToolCallParseError(f"The reply was cut off because the model's context window filled before its "
                                      f"{self._name} was complete: shorten the conversation (fewer or shorter "
                                      "messages), then ask again.", raw=reply)
        return ToolCallParseError(f"The reply was cut off at max_tokens before the model's {self._name} was "
                                  "complete: ask again with a higher max_tokens.", raw=reply)


def _refused(reply: AIMessage) -> bool:
    """Whether ``reply`` is a refusal: OpenAI's ``refusal``, Anthropic's ``refusal`` stop, Gemini's ``SAFETY`` and
    other content blocks or a blocked prompt (:func:`~toolwire._agent_checks.stop_kind`, as the Agent reads it)."""
    from toolwire._agent_checks import stop_kind

    return stop_kind(reply) == "refusal"
