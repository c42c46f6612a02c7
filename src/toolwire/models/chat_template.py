"""Chat templates: the Jinja text a GGUF file carries under ``tokenizer.chat_template``, rendered the way
llama-cpp-python's ``Jinja2ChatFormatter`` and Hugging Face ``apply_chat_template`` render it, and the
:class:`Rendered` conversation a dialect (:mod:`toolwire.models.dialects`) hands to it."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from toolwire.errors import UserError

__all__ = ["CHATML_TEMPLATE", "ChatTemplate", "Rendered"]

CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""The template used when a GGUF carries none (ChatML)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Rendered:
    """A conversation ready for the chat template.

    Attributes:
        messages: ``{"role", "content", ...}`` dicts (OpenAI / Hugging Face chat-template shape).
        tools: the ``tools`` template variable (OpenAI function tools), or None.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None


class ChatTemplate:
    """A chat template (Jinja, as stored in GGUF files under ``tokenizer.chat_template``) ready to render.

    Rendered as llama-cpp-python's ``Jinja2ChatFormatter`` and Hugging Face ``apply_chat_template`` do:
    a sandboxed immutable environment with ``trim_blocks``/``lstrip_blocks``, the ``loopcontrols``
    extension, a ``tojson`` filter that keeps non-ASCII text, and the ``raise_exception`` and
    ``strftime_now`` globals.

    Args:
        template: the Jinja source.
        bos_token, eos_token: the texts of the model's BOS and EOS tokens (template variables).

    Raises:
        UserError: the template is not valid Jinja.
    """

    def __init__(self, template: str, *, bos_token: str = "", eos_token: str = "") -> None:
        import jinja2
        import jinja2.ext
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(loader=jinja2.BaseLoader(), trim_blocks=True, lstrip_blocks=True,
                                            extensions=[jinja2.ext.loopcontrols])
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = lambda fmt: time.strftime(fmt)
        self.source = template
        self.bos_token = bos_token
        self.eos_token = eos_token
        try:
            self._jinja = env.from_string(template)
        except jinja2.TemplateError as exc:
            raise UserError(f"The model's chat template cannot be read ({exc}).") from None

    def render(self, chat: Rendered, *, add_generation_prompt: bool = True) -> str:
        """Render a conversation (adding the assistant's generation prompt by default).

        Args:
            chat: the conversation as the dialect wrote it (messages as role/content dicts, and the tools for
                the template's ``tools`` variable).
            add_generation_prompt: end with the opening of the assistant's turn (``<|im_start|>assistant``).

        Returns:
            The prompt text, as the template renders it.

        Raises:
            UserError: the template refused the conversation (its ``raise_exception`` message).
        """
        try:
            return self._jinja.render(messages=chat.messages, tools=chat.tools,
                                      add_generation_prompt=add_generation_prompt,
                                      bos_token=self.bos_token, eos_token=self.eos_token)
        except Exception as exc:
            raise UserError(f"The model's chat template cannot render this conversation: {exc}") from None


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: Any = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _raise(message: str) -> None:
    raise ValueError(message)
