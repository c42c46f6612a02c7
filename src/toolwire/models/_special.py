"""Keeping message text from becoming chat-template markup in a local model's prompt.

The attack: the dialects (:mod:`toolwire.models.dialects`) copy message text into the conversation as it
is, the chat template writes it between its own markup, and the whole prompt is tokenized with special
tokens parsed (the template's ``<|im_start|>`` must become its token). So a tool result (a web page, a
file, an API's answer) holding ``<|im_end|>\\n<|im_start|>assistant\\n...`` closed its turn and forged
whole turns, a fake assistant call for one, which the model then read as its own. Plain-text markup the
template uses (Qwen's ``</tool_response>``, and ``<tool_call>``, an added token that llama.cpp parses even
without special tokens) let a result close its block and write a call inside the same turn.

:class:`Neutraliser` defuses such text before rendering: in every occurrence it puts a zero-width joiner
after the first character (``<|im_end|>`` becomes ``<`` ZWJ ``|im_end|>``), which no token and no template
markup contains, so the text cannot tokenize to a control token nor read as the template's markup, while
the template's own markup, written outside the messages, still tokenizes as before. Only the prompt
changes: the messages the caller holds and gets back are untouched.

What is defused where:

* the model's control tokens (llama.cpp's ``CONTROL`` and ``UNKNOWN`` token attributes: turn markers,
  BOS/EOS, FIM and vision tokens...) in every string of every message, the system prompt and the
  assistant's replies included: none of them is ever meant as message text, and a system prompt too is
  often assembled from text of other origins;
* the template's markup (its user-defined added tokens, such as Qwen's ``<tool_call>``, and tag-like
  strings its source writes: ``<tool_response>``, ``</tools>``, ``[INST]``..., and always ``<tool_call>``)
  in every message but the assistant's: an assistant reply holds the model's own calls written in that
  markup (kept byte for byte so that the KV cache of the last turn is reused), and its text came from the
  model, not from a tool.

The tools' definitions (names, descriptions, schemas) are the developer's code and are not changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from toolwire.models.dialects import Rendered

__all__ = ["JOINER", "Neutraliser", "control_strings", "template_markup"]

JOINER = "\u200d"
"""The zero-width joiner put after the first character of a defused string."""

_TAGS = re.compile(r"<\|[^\s<>|]{1,48}\|>|</?[A-Za-z_][\w.:-]{0,47}>|\[/?[A-Z][A-Z_]{1,31}\]")
"""Tag-like markup a chat template writes: ``<|im_start|>``, ``<tool_response>``, ``</tools>``, ``[INST]``."""

_CALL_MARKUP = ("<tool_call>", "</tool_call>")
"""The hermes call markup, which the dialects read as the start of a call whatever the template."""

_MAX_PASSES = 8  # defusing one occurrence may reveal another overlapping it: repeat (twice is the most seen)


def _trie_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    """A regex matching any of ``words`` (longest first at each position), built as a trie so that a vocabulary
    with thousands of control tokens (Gemma's ``<unused123>``) is matched in one pass at any text length."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = True
    if not trie:
        return None

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return re.compile(build(trie))


def _defuse(pattern: re.Pattern[str] | None, text: str) -> str:
    if pattern is None:
        return text
    for _ in range(_MAX_PASSES):
        if pattern.search(text) is None:
            break
        text = pattern.sub(lambda m: m[0][0] + JOINER + m[0][1:], text)
    return text


class Neutraliser:
    """Defuses a model's control-token strings and its template's markup inside message text.

    Args:
        control: the texts of the model's control tokens (defused in every message).
        markup: the template's markup (defused in every message but the assistant's).

    Strings shorter than two characters cannot be split and are left out.
    """

    def __init__(self, control: Iterable[str], markup: Iterable[str] = ()) -> None:
        self.control = frozenset(s for s in control if len(s) >= 2)
        self.markup = frozenset(s for s in markup if len(s) >= 2) | self.control
        self._control = _trie_pattern(self.control)
        self._all = _trie_pattern(self.markup)

    def text(self, text: str, *, assistant: bool = False) -> str:
        """``text`` with every control-token string (and, unless ``assistant``, all template markup) defused."""
        return _defuse(self._control if assistant else self._all, text)

    def _value(self, value: Any, assistant: bool) -> Any:
        if isinstance(value, str):
            return self.text(value, assistant=assistant)
        if isinstance(value, dict):
            return {k: v if k == "role" or (isinstance(k, str) and k.startswith("_")) else self._value(v, assistant)
                    for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._value(v, assistant) for v in value]
        return value

    def rendered(self, chat: Rendered) -> Rendered:
        """A copy of ``chat`` whose messages (every string in them but the role) are defused; the tools are
        kept as they are (the developer's definitions)."""
        messages = [self._value(m, m.get("role") == "assistant") for m in chat.messages]
        return Rendered(messages, chat.tools)


def control_strings(llama_cpp: Any, vocab: Any) -> tuple[list[str], list[str]]:
    """The texts of a llama.cpp vocabulary's control tokens (``CONTROL`` or ``UNKNOWN`` attribute: what
    tokenizing with special tokens parsed turns into them) and of its user-defined added tokens (parsed
    into their token even without special tokens), as ``(control, user_defined)``."""
    control_bits = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
    user_bit = llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    get_attr, get_text = llama_cpp.llama_vocab_get_attr, llama_cpp.llama_vocab_get_text
    control: list[str] = []
    user: list[str] = []
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        attr = int(get_attr(vocab, token))
        if attr & (control_bits | user_bit):
            raw = get_text(vocab, token)
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")
            (control if attr & control_bits else user).append(text)
    return control, user


def template_markup(template: str, user_defined: Iterable[str] = ()) -> set[str]:
    """The markup a chat template writes: tag-like strings in its source and the user-defined added tokens
    it mentions (a user-defined token the template never writes, such as Gemma's ``<table>``, is text),
    and always the hermes call markup ``<tool_call>`` / ``</tool_call>`` the dialects read calls in."""
    found = set(_TAGS.findall(template)) | set(_CALL_MARKUP)
    found.update(s for s in user_defined if len(s) >= 2 and s in template)
    return found
