"""GBNF grammars that shape a local model's tool calls: bound tool names, arguments of the schema's shape.

llama.cpp constrains sampling with a GBNF grammar (format: llama.cpp ``grammars/README.md``; parsed by
``llama_sampler_init_grammar``, used here through ``llama_cpp.LlamaGrammar.from_string``). This module
builds one from the bound tools' JSON Schemas for each call *format* a model may write:

* ``"pythonic"``: ``[get_weather(city="Paris"), calculate(expression="2 + 2")]``; values are Python
  literals (double-quoted strings, numbers, ``True``/``False``/``None``, lists, dicts), optionally inside a
  ```` ```python ```` fence; tool and parameter names in their Python-safe spelling
  (:class:`toolwire.parsing.pythonic.PythonNames`: ``get_weather`` for ``get-weather``, ``from_`` for
  ``from``) and keyword arguments in the order of the prompt's signature (required ones first);
* ``"json"``: ``{"name": "get_weather", "arguments": {"city": "Paris"}}`` or a JSON list of such
  objects, optionally inside a ```` ```json ```` fence; arguments in the schema's property order, or in
  the signature's when the prompt showed Python signatures (``signature=True``);
* ``"hermes"``: one ``<tool_call>\\n{...}\\n</tool_call>`` block per call (Hermes / Qwen templates);
* ``"function_tag"``: one ``<tool_call>`` block per call holding Qwen3-Coder's XML form,
  ``<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...</function>``, as its chat template writes it
  (format: :mod:`toolwire.parsing.function_tags`): a value whose schema admits any string is raw text,
  an ``enum``/``const`` one of its values
  (a string as it is, others as JSON), each ``anyOf`` branch so, any other value JSON; no value (nor a string
  inside a JSON value) holds ``</``, ``<function=`` or ``<tool_call>``, where the parser would end it (JSON
  strings can write ``<`` as ``\\u003c``); parameters in the schema's property order.

The rule the grammar follows: it holds a call's *shape*, the things a value's type and the tool's choices make,
and never a constraint on the value itself. :func:`call_grammar` returns the GBNF text; its ``root`` rule is the
whole call reply (nothing may follow but the end of generation). :func:`value_rule` lowers one JSON Schema, holding
``string`` (a number written as text, a ``Decimal``'s string branch, to a number's text: :func:`number_text`),
``number``, ``integer``, ``boolean``, ``null``, ``enum`` and ``const`` of any type, ``anyOf``/``oneOf``
and type lists, arrays (``items``; ``prefixItems`` by position, a ``tuple[int, str]`` as ``[1, "a"]`` in both
styles, then ``items`` or, for ``items: false``, nothing; draft 7's ``items: [...]`` with ``additionalItems`` alike;
a ``list[float]``'s elements as floats, see :func:`float_items`) and objects (``properties``; ``required`` keys
always present and optional ones optional, in the schema's property order; no other keys; without ``properties``, a
dict whose values are of an ``additionalProperties`` schema and whose keys are of ``propertyNames``' ``enum`` or
``const``, or the digits of a ``dict[int, X]`` or ``dict[float, X]`` key, which the pythonic format may also write
bare, ``{3: "North"}``; only ``{}`` for ``additionalProperties: false``). A tool's arguments given as a top-level
``anyOf``/``oneOf``/``allOf`` of objects (a ``Tool.from_schema`` or MCP tool) are each combination of its branches, an
object of the branches' keys (:func:`toolwire.models._local_union.argument_forms`; review 198 #1).

Not held on purpose (any value of the type where they stand; validation after generation refuses what breaks them,
which comes back as an invalid call or an error result the model sees and can act on): every constraint on a value,
since holding one bent the value the model meant into a different one that passed validation with no error
(reviews 126 #2 and 128 #7): a number's bounds (``minimum``, ``maximum``, their exclusive forms: ``10`` for
``Field(ge=1, le=5)`` became ``1``; see :func:`toolwire.models._grammar_items.integer_rule`), every ``format`` (the
``date``, ``date-time`` and ``time`` formats: ``"15 May 2026"`` became ``1520-05-01``, pydantic's own
``"2025-05-01 10:00"`` became midnight; ``uuid``: an order id ``"ORD-1001"`` became some made-up UUID the tool then
looked up), a string's ``pattern`` (``"1234"`` for ``^[0-9]{5}$`` gained a fifth digit; review 124 found
``"São Paulo"`` misspelled) and its length (``minLength``/``maxLength``: holding them would cut a longer text
short or pad a shorter one), a dict key's ``propertyNames`` ``pattern`` or ``format``, and a list's or a dict's
counts (``minItems``/``maxItems``, ``minProperties``/``maxProperties``: ``maxItems`` 3 cut five names to three, two
lost; ``minItems`` 2 made the model add a value it was not given). No rule short of the type avoids that: any prefix may
begin a text the model means, and only validation can judge the whole. The prompt still states such constraints
(:mod:`toolwire.models._tool_text`).
Not held because the grammar cannot: ``$ref``, ``allOf``, ``not``, ``if``/``then``/``else``,
``dependentRequired``/``dependentSchemas``, ``patternProperties`` (such an object takes any keys and values),
``additionalProperties`` beside ``properties`` (only the named keys are written), ``unevaluatedProperties``,
``multipleOf``, ``uniqueItems``, ``contains`` (and ``minContains``/``maxContains``), and the 32-bit or 64-bit range of
an integer. Whitespace runs are bounded and numbers have at most 24 integer and 20 fraction digits (room for any 64-bit
id, which JSON writes in 19 or 20 digits) and an exponent of at most ``e+284`` (``e-999`` below), so every number the
grammar allows is a finite float (under 1e308; ``1e999`` would read as infinity, which the call parser refuses: review
94) in every format; strings and lists are bounded only by the reply's ``max_tokens``. Levels nested deeper than
:data:`MAX_DEPTH` take any value.

Where such a call starts in a reply being generated is told by :class:`toolwire.models.openers.OpenerScanner`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from toolwire._schema_keys import KEY_TEXT, is_number_text, number_text_patterns
from toolwire.models._grammar_calls import json_call, python_call
from toolwire.models._grammar_items import (
    integer_rule,
    keyword_sequence,
    map_rule,
    number_rule,
    sequence_rule,
    tuple_rule,
)
from toolwire.models._grammar_pattern import pattern_rule
from toolwire.models._grammar_tags import JSON_ESCAPE, JSON_EXCLUDED, tag_call, tag_safe
from toolwire.models._local_union import local_parameters
from toolwire.parsing.pythonic import PythonNames
from toolwire.tools import ToolSpec

__all__ = ["FORMATS", "MAX_CALLS", "Rules", "call_grammar", "float_items", "gbnf_literal", "python_literal",
           "value_rule"]

FORMATS = ("pythonic", "json", "hermes", "function_tag")
"""The call formats :func:`call_grammar` can build."""

MAX_DEPTH = 8  # nested schema levels lowered exactly; deeper ones accept any value

_COMMON = {
    "ws": r"[ \t\n]{0,20}",
    "digits": r"[0-9]{1,20}",
    "integer": r'"-"? ("0" | [1-9] [0-9]{0,23})',  # 24 digits: any 64-bit id (Discord, Twitter, Snowflake)
    # an exponent keeps every number finite (the integer part has at most 24 digits, so up to e+284 stays below
    # 1e308; a negative one only comes near 0) and reads it in every format (review 94)
    "exponent": r'[eE] ("-" [0-9]{1,3} | "+"? ([0-9]{1,2} | [01] [0-9]{2} | "2" [0-7] [0-9] | "28" [0-4]))',
    "number": r'integer ("." digits)? exponent?',
    "char": r'[^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "pychar": r'[^"\\\x00-\x1f] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4})',
}

_ANY = {
    "json": {
        "string": r'"\"" char* "\""',
        "value": r'object | array | string | number | "true" | "false" | "null"',
        "object": r'"{" ws (string ws ":" ws value ("," ws string ws ":" ws value)*)? ws "}"',
        "array": r'"[" ws (value ("," ws value)*)? ws "]"',
    },
    "py": {
        "pystring": r'"\"" pychar* "\""',
        "pyvalue": r'pydict | pylist | pystring | number | "True" | "False" | "None"',
        "pydict": r'"{" (pystring ": " pyvalue (", " pystring ": " pyvalue)*)? "}"',
        "pylist": r'"[" (pyvalue (", " pyvalue)*)? "]"',
    },
}


def gbnf_literal(text: str) -> str:
    """Return ``text`` as a GBNF string literal (``"..."``, with ``\\``, ``"`` and control characters
    escaped; other characters kept as UTF-8)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def python_literal(value: Any) -> str:
    """Return the Python-literal text of a JSON value, as the pythonic format writes it.

    Strings are double-quoted with JSON escapes (valid Python), ``True``/``False``/``None`` replace
    ``true``/``false``/``null``, lists use ``[a, b]`` and dicts ``{"k": v}``.

    Args:
        value: JSON-like data (``None``, bools, numbers, strings, lists, tuples, dicts); other objects are
            written as their ``str`` in quotes.

    Raises:
        ValueError: ``value`` is or holds a non-finite float (NaN, an infinity), which has no literal.
    """
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} has no literal")
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(str(k))}: {python_literal(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)


class Rules:
    """An ordered set of named GBNF rules; identical bodies share one name.

    Args:
        style: ``"json"`` (JSON values) or ``"py"`` (Python literals).

    Raises:
        ValueError: ``style`` is neither.
    """

    def __init__(self, style: str = "json") -> None:
        if style not in ("json", "py"):
            raise ValueError(f"style must be 'json' or 'py', not {style!r}")
        self.style = style
        self.rules: dict[str, str] = dict(_COMMON)
        self.rules.update(_ANY[style])
        self._by_body: dict[str, str] = {}

    def add(self, hint: str, body: str) -> str:
        """Add a rule of GBNF ``body`` whose name starts with ``hint`` (sanitised) and return its name; a rule with
        the same body is reused (its name returned)."""
        if body in self._by_body:
            return self._by_body[body]
        base = re.sub(r"[^a-zA-Z0-9]+", "-", hint).strip("-").lower() or "r"
        name, n = base, 1
        while name in self.rules:
            n += 1
            name = f"{base}-{n}"
        self.rules[name] = body
        self._by_body[body] = name
        return name

    def text(self, root: str) -> str:
        """Return the GBNF grammar text, one rule a line, with ``root ::= <root>`` (``root``: a rule body) first."""
        lines = [f"root ::= {root}"]
        lines += [f"{name} ::= {body}" for name, body in self.rules.items() if name != "root"]
        return "\n".join(lines) + "\n"

    # -- value pieces in this style -------------------------------------------------------------------

    @property
    def any_value(self) -> str:
        """The rule name of any value in this style."""
        return "pyvalue" if self.style == "py" else "value"

    @property
    def string(self) -> str:
        """The rule name of a string in this style."""
        return "pystring" if self.style == "py" else "string"

    def literal_of(self, value: Any) -> str:
        """Return the GBNF literal of the constant ``value`` (JSON data) in this style (Python or JSON)."""
        if self.style == "py":
            try:
                return gbnf_literal(python_literal(value))
            except ValueError:
                return gbnf_literal("None")
        return gbnf_literal(json.dumps(value, ensure_ascii=False))

    def key(self, name: str) -> str:
        """Return the GBNF literal of the object key ``name``: JSON-quoted (``"name"``), valid in both styles."""
        return gbnf_literal(json.dumps(name, ensure_ascii=False))

    @property
    def sep(self) -> str:
        """The GBNF of the separator between items (``", "`` in Python style)."""
        return '", "' if self.style == "py" else '"," ws'

    @property
    def colon(self) -> str:
        """The GBNF between an object key and its value."""
        return '": "' if self.style == "py" else 'ws ":" ws'

    def words(self, true: bool) -> str:
        """Return the GBNF literal of ``True``/``False`` (Python) or ``true``/``false`` (JSON)."""
        if self.style == "py":
            return '"True"' if true else '"False"'
        return '"true"' if true else '"false"'

    @property
    def null(self) -> str:
        """The GBNF literal of null (``None`` in Python style)."""
        return '"None"' if self.style == "py" else '"null"'


def required_keys(schema: Any) -> list[str]:
    """The ``required`` list of an object schema, as key names; anything else there (a draft-3 style
    ``"required": true``, a stray value) counts as no required keys rather than failing."""
    keys = schema.get("required") if isinstance(schema, dict) else None
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list | tuple) else []


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    if "properties" in schema:
        return ["object"]
    if "items" in schema:
        return ["array"]
    return []


def float_items(schema: Any) -> bool:
    """Return whether ``schema``, an array's ``items``, is a plain ``{"type": "number"}`` (a ``list[float]``), whose
    elements the grammar writes as floats (``1.0``, ``2.5e3``; not ``1``).

    A top-level number may be written ``1``: readers (pydantic, BFCL's checker) take an int for a float
    there. An array element may not: a Python or JSON reader keeps ``[1, 3]`` as ints, and a checker that
    types elements exactly (BFCL's ``ast_checker.py``, ``list_checker``: "float" elements must be floats)
    rejects them. A schema with ``enum``/``const``/``anyOf``/``oneOf`` or other types (``list[int | float]``)
    keeps the plain number rule.
    """
    if not isinstance(schema, dict) or schema.get("type") != "number":
        return False
    return not any(key in schema for key in ("enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not"))


def value_rule(schema: Any, rules: Rules, hint: str = "value", depth: int = 0) -> str:
    """Lower a JSON Schema to a GBNF expression (usually a rule name) for one value.

    Args:
        schema: the JSON Schema (a dict; ``True``/``{}``/anything unknown means any value).
        rules: the rule set to add rules to (its style picks JSON or Python literals).
        hint: a name hint for new rules (a property path).
        depth: the current nesting level (beyond :data:`MAX_DEPTH`, any value).

    Returns:
        A GBNF expression matching exactly the values the schema allows (within the supported subset).
    """
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return rules.any_value
    if "const" in schema:
        return rules.literal_of(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rules.add(hint + "-enum", " | ".join(rules.literal_of(v) for v in schema["enum"]))
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "description", "title")}
            merged = [{**base, **o} if isinstance(o, dict) else o for o in options]
            alts = [_quoted(text, rules) if (text := number_text(o, rules, merged)) is not None
                    else value_rule(o, rules, f"{hint}-{i}", depth + 1) for i, o in enumerate(merged)]
            return rules.add(hint + "-any", " | ".join(dict.fromkeys(alts)))
    types = _types(schema)
    if not types:
        return rules.any_value
    alts = [_typed(t, schema, rules, hint, depth) for t in types]
    if len(alts) == 1:
        return alts[0]
    return rules.add(hint + "-types", " | ".join(dict.fromkeys(alts)))


def _typed(kind: str, schema: dict[str, Any], rules: Rules, hint: str, depth: int) -> str:
    if kind == "string":
        return rules.string
    if kind == "integer":
        return integer_rule(schema, rules)
    if kind == "number":
        return number_rule(schema, rules)
    if kind == "boolean":
        return rules.add("boolean", f"{rules.words(True)} | {rules.words(False)}")
    if kind == "null":
        return rules.null
    if kind == "array":
        return _array(schema, rules, hint, depth)
    if kind == "object":
        return object_rule(schema, rules, hint, depth)
    return rules.any_value


def _item(schema: Any, rules: Rules, hint: str, depth: int) -> str:
    """One array element of ``schema``: a ``list[float]``'s as a float (:func:`float_items`), else any value of it."""
    if float_items(schema):
        return number_rule(schema, rules, floats=True)
    return value_rule(schema, rules, hint, depth + 1)


def _array(schema: dict[str, Any], rules: Rules, hint: str, depth: int) -> str:
    """An array of ``schema``: with ``prefixItems`` (a ``tuple[int, str]``), its schemas by position and ``items``
    past them (none for ``items: false``), :func:`toolwire.models._grammar_items.tuple_rule`; else every element of
    ``items``, :func:`toolwire.models._grammar_items.sequence_rule`, of any length (a list's ``minItems``/``maxItems``
    are not held, review 128 #7; a tuple's follow its positions)."""
    items, prefix = schema.get("items", True), schema.get("prefixItems")
    if isinstance(items, list) and not isinstance(prefix, list):  # draft 7's tuple: items [A, B], additionalItems
        items, prefix = schema.get("additionalItems", True), items
    if isinstance(prefix, list) and prefix:
        placed = [value_rule(sub, rules, f"{hint}-{i}", depth + 1) for i, sub in enumerate(prefix)]
        extra = None if items is False else _item(items, rules, hint + "-item", depth)
        return tuple_rule(rules, hint + "-tuple", placed, extra, schema.get("minItems"), schema.get("maxItems"))
    return sequence_rule(rules, hint + "-array", _item(items, rules, hint + "-item", depth))


def number_text(schema: Any, rules: Rules, siblings: Sequence[Any]) -> str | None:
    """The rule name of the text (without quotes) of a number written as text, for a ``Decimal``'s string branch,
    or ``None``: ``schema`` is a ``"string"`` branch of an ``anyOf``/``oneOf`` (``siblings``, its branches) that also
    has a number branch, and its ``pattern`` is one toolwire writes for a number's text
    (:func:`toolwire._schema_keys.is_number_text`; review 94 #10; a user's string of that pattern beside a number
    branch has the same shape and is held alike). That pattern states a type, held as an
    ``int`` is held to digits, as :func:`toolwire.models._grammar_pattern.pattern_rule` translates it (without the
    bound a minus sign's absence states); every other ``pattern``, a user's own ``^-?[0-9]+$`` on a plain string
    included, and every ``format`` is a constraint on the value and is not held (reviews 128 #7 and 131 #3). No
    character of the text is a ``"``, ``\\`` or ``<``."""
    if not is_number_text(schema, siblings):
        return None
    return pattern_rule(number_text_patterns()[schema["pattern"]], rules)


def _quoted(text: str, rules: Rules) -> str:
    """The rule of a string whose text (without quotes) is the rule ``text``, in quotes (JSON and Python literals
    write it alike: no character of it needs escaping)."""
    return rules.add(f"{text}-string", f'"\\"" {text} "\\""')


def object_rule(schema: dict[str, Any], rules: Rules, hint: str, depth: int = 0,
                *, python_call: bool = False, keywords: dict[str, str] | None = None) -> str:
    """Lower an object schema: ``{"k": v, ...}`` (or, with ``python_call``, the keyword list
    ``k=v, ...`` of a Python call, without brackets).

    Keys keep the schema's property order; required ones must appear, optional ones may. An object
    without ``properties`` accepts any object (with ``python_call``: no arguments). ``keywords`` maps a
    property to the keyword a Python call writes it as (default: its name).
    """
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return '""' if python_call else _map(schema, rules, hint, depth)
    required = set(required_keys(schema))
    pairs: list[tuple[str, bool]] = []
    for name, sub in props.items():
        value = value_rule(sub, rules, f"{hint}-{name}", depth + 1)
        keyword = (keywords or {}).get(name, name)
        key = gbnf_literal(keyword + "=") if python_call else f"{rules.key(name)} {rules.colon}"
        pair = f"{key} {value}"
        pairs.append((rules.add(f"{hint}-{name}-kv", pair), name in required))
    sep = '", "' if python_call or rules.style == "py" else '"," ws'
    body = keyword_sequence(pairs, sep, rules, hint)
    if python_call:
        return body
    if rules.style == "py":
        return rules.add(hint + "-obj", f'"{{" {body} "}}"')
    return rules.add(hint + "-obj", f'"{{" ws {body} ws "}}"')


def _map(schema: dict[str, Any], rules: Rules, hint: str, depth: int) -> str:
    """An object without ``properties``: a dict whose values are of ``additionalProperties`` when that is a schema
    (a ``dict[str, int]``) and whose keys are strings (of ``propertyNames``' ``enum`` or ``const``, or a number key's
    digits; in Python style also bare integers for a ``dict[int, X]``: :func:`_key`), of any number of entries
    (``minProperties``/``maxProperties`` are not held, :func:`toolwire.models._grammar_items.map_rule`);
    ``{}`` only for ``additionalProperties: false``; any object when ``patternProperties`` (whose keys take their own
    schemas) or nothing constrains it."""
    extra = schema.get("additionalProperties", True)
    if schema.get("patternProperties"):
        extra = True
    if extra is False:
        return rules.add("empty-dict", '"{}"') if rules.style == "py" else rules.add("empty-object", '"{" ws "}"')
    value = value_rule(extra, rules, hint + "-value", depth + 1) if isinstance(extra, dict) else rules.any_value
    key = _key(schema.get("propertyNames"), rules, hint)
    if value == rules.any_value and key == rules.string:
        return "pydict" if rules.style == "py" else "object"
    return map_rule(rules, hint + "-map", key, value)


def _key(names: Any, rules: Rules, hint: str) -> str:
    """A dict key of the ``propertyNames`` schema ``names``: one of its ``enum``'s values or its ``const`` (a
    ``dict[Literal["a", "b"], int]``; an integer among them, which no JSON key is, as its digits, the text the tool
    reads back as it: ``dict[IntEnum, int]``), the digits of a number key (the ``pattern`` toolwire writes for the
    keys of a ``dict[int, str]`` or ``dict[float, str]``, :data:`toolwire._schema_keys.KEY_TEXT`, translated by
    :func:`toolwire.models._grammar_pattern.pattern_rule`; review 94), else any string: like a value's, a key's other
    ``pattern`` or ``format`` (a ``dict[UUID, int]``) is not held (review 128 #7, see the module's docstring).

    In Python style the key may also be written bare where the pythonic parser reads it back as the same text
    (:func:`toolwire.parsing._scan.to_jsonable`, review 96): an integer (``{3: "North"}``, Python's form: ``0`` or no
    leading zero, at most 24 digits) for the integer pattern ``^(?:0|-?[1-9][0-9]*)$``, a number for the number pattern
    of a ``dict[float, X]``, and ``3``, ``True``, ``False`` or ``None`` for the enum texts ``"3"``, ``"true"``,
    ``"false"``, ``"null"``. JSON keys stay quoted."""
    quoted = _quoted_key(names, rules, hint)
    bare = _bare_key(names, rules) if rules.style == "py" else None
    return quoted if bare is None else rules.add(hint + "-key", f"{quoted} | {bare}")


def _quoted_key(names: Any, rules: Rules, hint: str) -> str:
    """The quoted dict key of :func:`_key`."""
    if not isinstance(names, dict):
        return rules.string
    options = [names["const"]] if "const" in names else names.get("enum")
    if isinstance(options, list) and options:
        written = [o if isinstance(o, str) else str(o) for o in options
                   if isinstance(o, str) or (isinstance(o, int) and not isinstance(o, bool))]
        keys = list(dict.fromkeys(rules.key(o) for o in written))
        return rules.add(hint + "-key", " | ".join(keys)) if keys else rules.string
    if names.get("type", "string") != "string" or any(word in names for word in ("anyOf", "oneOf", "allOf", "not",
                                                                                  "$ref")):
        return rules.string
    typed = number_text_patterns().get(names.get("pattern"))  # type: ignore[arg-type]
    text = None if typed is None else pattern_rule(typed, rules)
    return rules.string if text is None else _quoted(text, rules)


_BARE_PATTERNS = {KEY_TEXT["integer"]["pattern"]: "integer", KEY_TEXT["number"]["pattern"]: "number"}
_BARE_WORDS = {"true": "True", "false": "False", "null": "None"}
_PY_INT = re.compile(r"0|-?[1-9][0-9]{0,23}")  # Python's int literal; "-0" reads back as "0"


def _bare_key(names: Any, rules: Rules) -> str | None:
    """The GBNF of a Python-style key written without quotes (:func:`_key`), or ``None`` when it has none."""
    if not isinstance(names, dict):
        return None
    options = [names["const"]] if "const" in names else names.get("enum")
    if isinstance(options, list):
        texts = [o if isinstance(o, str) else str(o) for o in options
                 if isinstance(o, str) or (isinstance(o, int) and not isinstance(o, bool))]
        bare = [gbnf_literal(_BARE_WORDS.get(t, t)) for t in texts if t in _BARE_WORDS or _PY_INT.fullmatch(t)]
        return " | ".join(dict.fromkeys(bare)) or None
    pattern = names.get("pattern")
    if names.get("type", "string") != "string" or not isinstance(pattern, str) or any(
            word in names for word in ("anyOf", "oneOf", "allOf", "not", "$ref")):
        return None
    return _BARE_PATTERNS.get(pattern)


MAX_CALLS = 32
"""The most tool calls the grammar lets one reply hold (review 110: it was 8, and a request for the weather in 12
cities lost 4 of them without a word); a reply that reaches it says so in ``response_metadata["call_limit"]``."""


def call_grammar(
    tools: Sequence[ToolSpec],
    fmt: str,
    *,
    parallel: bool = True,
    max_calls: int | None = None,
    signature: bool = False,
) -> str:
    """Build the GBNF grammar of a reply made only of tool calls to ``tools``, in format ``fmt``.

    Args:
        tools: the callable tools (for a named ``tool_choice``, just that one).
        fmt: one of :data:`FORMATS` (``"pythonic"``, ``"json"``, ``"hermes"``, ``"function_tag"``).
        parallel: allow up to ``max_calls`` calls in one reply; False allows exactly one (in ``"json"``, a
            bare call object, as the prompt and the history show it).
        max_calls: the most calls one reply may hold (default :data:`MAX_CALLS`).
        signature: JSON calls take their arguments in signature order (required ones first, as the pythonic
            prompt shows them) instead of the schema's property order; for a model shown Python signatures
            that writes a JSON call. Pythonic calls always use signature order.

    Returns:
        GBNF text whose ``root`` matches one whole reply (the model must stop after it).

    Raises:
        ValueError: ``tools`` is empty or ``fmt`` is unknown.
    """
    if not tools:
        raise ValueError("call_grammar needs at least one tool")
    more = (max_calls or MAX_CALLS) - 1 if parallel else 0
    if fmt == "pythonic":
        rules = Rules("py")
        names = PythonNames({t.name: local_parameters(t.parameters) for t in tools})
        call = rules.add("call", " | ".join(python_call(t, rules, names) for t in tools))
        calls = rules.add("call-list", f'"[" {call} (", " {call}){{0,{more}}} "]"' if more else f'"[" {call} "]"')
        fence = '"```" ("python" | "py")? "\\n"'
        return rules.text(f'{calls} | {fence} {calls} "\\n```"')
    if fmt == "json":
        rules = Rules("json")
        call = rules.add("call", " | ".join(json_call(t, rules, signature) for t in tools))
        body = call
        if more:  # a list of calls, or call objects one per line (as the parsers read them, and as models
            # that open with a bare object write the next one)
            body = rules.add("calls", f'{call} ("\\n" {call}){{0,{more}}} | '
                                      f'"[" ws {call} ("," ws {call}){{0,{more}}} ws "]"')
        return rules.text(f'{body} | "```json\\n" {body} "\\n```"')
    if fmt in ("hermes", "function_tag"):
        rules = Rules("json")
        if fmt == "function_tag":  # JSON strings inside a parameter hold no call markup either
            rules.rules["string"] = f'"\\"" {tag_safe(rules, "tag-chars", JSON_EXCLUDED, JSON_ESCAPE)} "\\""'
        written = [json_call(t, rules, signature) if fmt == "hermes" else tag_call(t, rules) for t in tools]
        call = rules.add("call", " | ".join(written))
        block = rules.add("block", f'"<tool_call>\\n" {call} "\\n</tool_call>"')
        return rules.text(f'{block} ("\\n" {block}){{0,{more}}}' if more else block)
    raise ValueError(f"unknown call format {fmt!r}; use one of {', '.join(FORMATS)}")
