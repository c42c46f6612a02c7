"""Regular expressions of a JSON Schema applied to what a model sends, in linear time (reviews 51 and 75).

A tool dict, an MCP server's ``inputSchema`` or a LangChain tool's JSON Schema may hold a ``pattern`` such as
``^(a+)+$``: Python's backtracking ``re``, which ``jsonschema`` uses, takes time exponential in the text's length on
it (24 characters: a second; 40: days). So every regular expression that validation applies to a model's text is
searched with a linear-time engine instead (Rust's ``regex``, through pydantic-core): the ``pattern`` keyword (on
values, and on names through ``propertyNames``) and ``patternProperties`` (on argument *names*), also where
``additionalProperties`` and ``unevaluatedProperties`` ask which names it matches. :func:`linear_keywords` gives
those keywords for ``jsonschema.validators.extend``.

A pattern that engine cannot read (a lookaround such as ``(?=...)``, a backreference such as ``\\1``) has no
linear-time search, so it is not searched at all: :func:`pattern_found` counts it as matching (a ``pattern`` then
accepts any string, a ``patternProperties`` entry applies its schema to every name), and
:func:`warn_unchecked_patterns` says so once, when the tool is defined, naming the pattern and what to do.

Validation is not counted against a tool's ``timeout``: it runs before the tool, on the caller's thread, and with
every search linear it takes time in proportion to the arguments' size (what one model reply holds); a timeout
could only stop waiting for it, not stop the work, as a Python thread cannot be stopped.
"""

from __future__ import annotations

import collections
import functools
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from toolwire._schema_refs import SCHEMA_KEYS, SCHEMA_MAP_KEYS

__all__ = ["check_schema", "linear_keywords", "pattern_found", "regex_build_error", "unchecked_patterns",
           "warn_unchecked_patterns"]


@functools.lru_cache(maxsize=512)
def _linear_pattern(pattern: str) -> Any:
    """``pattern`` compiled by pydantic-core's Rust regex engine, whose search time is linear in the text's
    length, or None when that engine cannot read it (a lookaround or a backreference)."""
    from pydantic_core import SchemaValidator
    from pydantic_core import core_schema as cs

    try:
        return SchemaValidator(cs.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except Exception:  # pydantic_core.SchemaError: not a pattern the Rust engine reads
        return None


def pattern_found(pattern: str, text: str) -> bool:
    """Whether the JSON Schema ``pattern`` (a regular expression, unanchored) matches somewhere in ``text``.

    Searched with a linear-time engine (Rust's ``regex``, through pydantic-core), so that a pattern such as
    ``^(a+)+$`` from an MCP server or a tool dict cannot make checking a model's argument take hours, as Python's
    backtracking ``re`` (what ``jsonschema`` uses) would. A pattern that engine cannot read (a lookaround, a
    backreference, a syntax error) is never searched and counts as matching: it constrains nothing
    (:func:`warn_unchecked_patterns` tells the tool's author when the tool is defined).

    Args:
        pattern: the regular expression, as the schema writes it.
        text: the string to search (a value or a property name).

    Returns:
        True when ``pattern`` matches in ``text`` or cannot be searched in linear time; else False.
    """
    linear = _linear_pattern(pattern)
    return True if linear is None else bool(linear.isinstance_python(text))


def _schema_nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every subschema of ``schema`` (itself included): the values of the keywords that hold schemas, and of
    ``$defs``/``definitions``; data keywords (``enum``, ``default``...) are not entered."""
    queue = collections.deque([schema])
    while queue:
        node = queue.popleft()
        if isinstance(node, list):
            queue.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        yield node
        for key, value in node.items():
            if key in SCHEMA_KEYS:
                queue.append(value)
            elif (key in SCHEMA_MAP_KEYS or key in ("$defs", "definitions")) and isinstance(value, dict):
                queue.extend(value.values())


def unchecked_patterns(schema: Any) -> list[str]:
    """The regular expressions of ``schema`` that :func:`pattern_found` cannot search and so never checks.

    Args:
        schema: a JSON Schema (dict; anything else has no patterns).

    Returns:
        Each ``pattern`` value and ``patternProperties`` name the linear-time engine cannot read, once, outer
        schemas first; empty for the usual schema.
    """
    found: dict[str, None] = {}
    for node in _schema_nodes(schema):
        candidates = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        if isinstance(node.get("patternProperties"), dict):
            candidates.extend(p for p in node["patternProperties"] if isinstance(p, str))
        found.update((p, None) for p in candidates if _linear_pattern(p) is None)
    return list(found)


def warn_unchecked_patterns(schema: Any, tool_name: str) -> None:
    """Issue one :class:`~toolwire.errors.ToolDefinitionWarning` when ``schema`` holds patterns that validation
    does not check (:func:`unchecked_patterns`), attributed to the caller's line (``Tool.from_schema``...).

    Args:
        schema: the tool's parameters schema.
        tool_name: the tool's name, for the message.
    """
    unchecked = unchecked_patterns(schema)
    if unchecked:
        from toolwire._tool_checks import _warn

        shown = ", ".join(repr(p if len(p) <= 80 else p[:77] + "...") for p in unchecked[:3])
        more = f" (and {len(unchecked) - 3} more)" if len(unchecked) > 3 else ""
        what = f"the pattern {shown} uses" if len(unchecked) == 1 else f"the patterns {shown}{more} use"
        _warn(f"Tool {tool_name!r}: {what} a lookaround or a backreference (or a syntax only Python reads), which "
              "cannot be searched in linear time, so arguments are not checked against it: rewrite it without "
              "(?=, (?!, (?<=, (?<! and \\1, or check the value in the tool's function.")


def _rust_regex_refusal(text: str) -> tuple[str | None, str | None, str]:
    """``(pattern, piece, reason)`` read from pydantic-core's ``regex parse error`` text: the pattern as Rust's
    ``regex`` shows it (its lines numbered ``1: ``... when it has several), the piece its ``^^^`` marks (widened to
    the ``(?...)`` group it opens), and its ``error: ...`` line; ``None`` for what cannot be read."""
    lines = text.split("regex parse error:", 1)[-1].split("\n")[1:]
    reason = next((line[len("error:"):].strip() for line in lines if line.startswith("error:")), "")
    shown = [line for line in lines if not line.startswith("error:")]
    pattern = piece = None
    if len(shown) >= 2 and shown[0].startswith("    ") and set(shown[1].strip()) == {"^"}:
        pattern = shown[0][4:]
    else:  # several lines, each shown as "N: text" between two rules of '~'
        numbered = [line for line in shown if line[:1].isdigit() and ": " in line]
        if numbered and all(line.split(": ", 1)[0].isdigit() for line in numbered):
            pattern = "\n".join(line.split(": ", 1)[1] for line in numbered)
    for above, marks in itertools.pairwise(shown):
        if marks.strip() and set(marks.strip()) == {"^"}:
            start, end = len(marks) - len(marks.lstrip()), len(marks.rstrip())
            if above[max(start - 2, 0):start] == "(?":  # (an unknown flag: the whole group, "(?P=name)")
                start, close = start - 2, above.find(")", start)
                end = close + 1 if close != -1 else len(above)
            piece = above[start:end] or None
            break
    return pattern, piece, reason


def _quoted(text: str) -> str:
    """``text`` in single quotes, as written (``'\\Z'``), or its ``repr`` when it holds a quote or a control."""
    return f"'{text}'" if text.isprintable() and "'" not in text else repr(text)


_PYTHON_RE_FIX = ("give that value a pydantic model or TypedDict whose config sets "
                  "ConfigDict(regex_engine='python-re'), or make the tool from a JSON Schema with Tool.from_schema "
                  "(which does not check such a pattern)")


def regex_build_error(tool_name: str, exc: BaseException) -> Exception | None:
    """The :class:`~toolwire.errors.SchemaError` for a ``@tool`` parameter whose ``pattern`` pydantic-core's Rust
    regex engine cannot build, in place of its nested error (review 198 #6), naming what that engine refused, as
    its error says it (review 204 #6): a lookaround, a backreference, Python's ``\\Z`` anchor (write ``$``), or
    another piece with Rust's own reason; a pattern Python's ``re`` cannot read either is said to be invalid.

    Args:
        tool_name: the tool's name, for the message.
        exc: the ``pydantic_core.SchemaError`` building the arguments' validator raised.

    Returns:
        The error to raise, naming the parameter (the first ``Field "..."`` of the message), the piece of the pattern
        refused and the fix; ``None`` when ``exc`` is not a regex one.
    """
    import re
    import warnings

    text = str(exc)
    if "regex parse error" not in text:
        return None
    from toolwire.errors import SchemaError

    field = re.search(r'Field "([^"]+)"', text)
    which = f"of parameter {field.group(1)!r} " if field else ""
    pattern, piece, reason = _rust_regex_refusal(text)
    at = f" {_quoted(piece)}" if piece else ""
    because = f" (Rust's regex: {reason})" if reason else ""
    rust_says = f"; Rust's regex: {reason}" if reason else ""
    if pattern is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as bad:  # (invalid for every engine, python-re too)
            return SchemaError(f"Tool {tool_name!r}: the pattern {_quoted(pattern)} {which}is not a valid regular "
                               f"expression ({bad}{rust_says}): correct it.")
    if "look-around" in reason:
        what = f"uses a lookaround{at}, which"
    elif "backreference" in reason:
        what = f"uses a backreference{at}, which"
    elif piece == "\\Z":
        return SchemaError(f"Tool {tool_name!r}: the pattern {which}uses Python's end-of-text anchor '\\Z', which "
                           "pydantic's default (Rust) regex engine does not know: write '$' in its place (that engine "
                           f"reads it as the end of the text), or {_PYTHON_RE_FIX}.")
    else:
        what = f"has{at or ' a construct'}{because}, which"
    return SchemaError(f"Tool {tool_name!r}: the pattern {which}{what} pydantic's default (Rust) regex engine cannot "
                       f"build: {_PYTHON_RE_FIX}.")


# -- jsonschema keywords -----------------------------------------------------------------------------------------
# Each mirrors jsonschema's own (jsonschema/_keywords.py, _utils.py, _legacy_keywords.py), with pattern_found in
# place of re.search.


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``pattern``: a string must match somewhere."""
    if validator.is_type(instance, "string") and isinstance(pattern, str) and not pattern_found(pattern, instance):
        from jsonschema import ValidationError

        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``patternProperties``: each value whose name a pattern matches is valid against that pattern's schema."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if pattern_found(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extra_keys(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The names of ``instance`` that neither ``properties`` nor ``patternProperties`` of ``schema`` take."""
    properties = schema.get("properties") or {}
    patterns = list(schema.get("patternProperties") or {})
    return [k for k in instance if k not in properties and not any(pattern_found(p, k) for p in patterns)]


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``additionalProperties``: the other values are valid against it (``false``: there are none)."""
    if not validator.is_type(instance, "object"):
        return
    from jsonschema import ValidationError

    extras = _extra_keys(instance, schema)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        names = ", ".join(repr(k) for k in sorted(extras, key=str))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(p) for p in sorted(schema["patternProperties"]))
            yield ValidationError(f"{names} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({names} {verb} unexpected)")


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any, legacy: bool) -> set[str]:
    """The names of ``instance`` that ``schema`` and the subschemas it applies evaluate (JSON Schema 2020-12 Core,
    section 11.3; ``legacy``: draft 2019-09 as ``jsonschema`` reads it, with ``$recursiveRef``)."""
    if not isinstance(schema, dict):
        return set()
    keys: set[str] = set()
    for ref_key in ("$ref", "$recursiveRef" if legacy else "$dynamicRef"):
        if schema.get(ref_key) is None:
            continue
        if ref_key == "$recursiveRef":
            from jsonschema._legacy_keywords import lookup_recursive_ref

            resolved = lookup_recursive_ref(validator._resolver)
        else:
            resolved = validator._resolver.lookup(schema[ref_key])
        inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        keys |= _evaluated_keys(inner, instance, resolved.contents, legacy)
    for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
        if (value := schema.get(keyword)) is None:
            continue
        if legacy and value is True:
            keys.update(instance)
        elif isinstance(value, dict) and (legacy or keyword == "properties"):
            keys.update(k for k in value if k in instance)
        elif keyword != "properties":
            keys.update(k for k, v in instance.items() if next(validator.descend(v, value), None) is None)
    for pattern in schema.get("patternProperties") or {}:
        keys.update(k for k in instance if pattern_found(pattern, k))
    for name, subschema in (schema.get("dependentSchemas") or {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema, legacy)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword) or ():
            if next(validator.descend(instance, subschema), None) is None:
                keys |= _evaluated_keys(validator, instance, subschema, legacy)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"], legacy)
            keys |= _evaluated_keys(validator, instance, schema.get("then"), legacy)
        else:
            keys |= _evaluated_keys(validator, instance, schema.get("else"), legacy)
    return keys


def _unevaluated(legacy: bool) -> Any:
    def unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
        """``unevaluatedProperties``: the values no other keyword evaluated are valid against it."""
        if not validator.is_type(instance, "object"):
            return
        from jsonschema import ValidationError

        evaluated = _evaluated_keys(validator, instance, schema, legacy)
        bad = [k for k in instance if k not in evaluated
               and next(validator.descend(instance[k], unevaluated, path=k, schema_path=k), None) is not None]
        if bad and unevaluated is False:
            names = ", ".join(repr(k) for k in sorted(bad, key=str))
            verb = "was" if len(bad) == 1 else "were"
            yield ValidationError(f"Unevaluated properties are not allowed ({names} {verb} unexpected)")
        elif bad:
            names = ", ".join(repr(k) for k in bad)
            verb = "was" if len(bad) == 1 else "were"
            yield ValidationError("Unevaluated properties are not valid under the given schema "
                                  f"({names} {verb} unevaluated and invalid)")

    return unevaluated_properties


def linear_keywords(cls: Any) -> dict[str, Any]:
    """The keywords of the ``jsonschema`` validator class ``cls`` that apply a regular expression to an
    instance, each as a function that searches with :func:`pattern_found`; for ``jsonschema.validators.extend``.

    Args:
        cls: a ``jsonschema`` validator class (``Draft7Validator``, ``Draft202012Validator``...).

    Returns:
        ``{keyword: function}`` for ``pattern``, ``patternProperties``, ``additionalProperties`` and
        ``unevaluatedProperties``, each only when ``cls`` has that keyword (so a draft-07 validator does not gain
        ``unevaluatedProperties``).
    """
    from jsonschema import _keywords

    ours = {"pattern": _pattern, "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties}
    unevaluated = cls.VALIDATORS.get("unevaluatedProperties")
    if unevaluated is not None and hasattr(cls({}), "_resolver"):  # jsonschema >= 4.18, whose resolver it follows
        ours["unevaluatedProperties"] = _unevaluated(legacy=unevaluated is not _keywords.unevaluatedProperties)
    return {k: f for k, f in ours.items() if k in cls.VALIDATORS}


def _a_regex(instance: object) -> bool:
    """The ``regex`` format of the metaschema: a pattern the linear-time engine reads (``\\p{L}``, Unicode classes
    Python's ``re`` lacks) or, failing that, one Python's ``re`` reads (a lookaround: accepted, then not searched).
    JSON Schema's regular expressions are ECMA-262's (2020-12 Validation, section 6.3.3), which neither matches
    exactly; refusing a pattern one of them reads would skip a tool that works (review 76: ``^\\p{L}+$``)."""
    import re

    if not isinstance(instance, str) or _linear_pattern(instance) is not None:
        return True
    try:
        re.compile(instance)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def check_schema(cls: Any, schema: Any) -> None:
    """``cls.check_schema(schema)`` (``cls``: a ``jsonschema`` validator class), with the metaschema's ``regex``
    format read as :func:`_a_regex` reads it rather than by Python's ``re`` alone.

    Raises:
        jsonschema.exceptions.SchemaError: ``schema`` is not valid against ``cls``'s metaschema (the best match, as
            ``check_schema`` raises it).
    """
    import jsonschema

    formats = getattr(cls, "FORMAT_CHECKER", None)
    checker = jsonschema.FormatChecker(formats.checkers) if formats is not None else jsonschema.FormatChecker()
    checker.checks("regex")(_a_regex)
    meta = jsonschema.validators.validator_for(cls.META_SCHEMA, default=cls)
    error = jsonschema.exceptions.best_match(meta(cls.META_SCHEMA, format_checker=checker).iter_errors(schema))
    if error is not None:
        raise jsonschema.exceptions.SchemaError.create_from(error)
