"""Chat models: the interface (:class:`BaseChatModel`), the embedded local model and the providers.

Provider classes are imported lazily, so ``import toolwire`` never needs an optional SDK; using a
provider whose extra is not installed raises :class:`~toolwire.errors.UserError` with the
``pip install`` line to run (for the embedded model a :class:`~toolwire.errors.MissingExtraError`, also an
``ImportError``: on ``from toolwire.models import ChatLlamaCpp`` without numpy, else when the model is made without
llama-cpp-python). Without numpy, ``from toolwire.models import *`` and ``dir()`` leave ``ChatLlamaCpp`` out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.models.base import BaseChatModel, ChatRequest, to_tool, to_tool_spec

if TYPE_CHECKING:  # the real classes for type checkers; at run time __getattr__ imports them on first use
    from toolwire.models.anthropic import ChatAnthropic
    from toolwire.models.factory import init_chat_model
    from toolwire.models.google import ChatGoogleGenAI
    from toolwire.models.llamacpp import ChatLlamaCpp
    from toolwire.models.openai import ChatOpenAI

__all__ = [
    "BaseChatModel",
    "ChatAnthropic",
    "ChatGoogleGenAI",
    "ChatLlamaCpp",
    "ChatOpenAI",
    "ChatRequest",
    "init_chat_model",
    "to_tool",
    "to_tool_spec",
]


def _numpy_found() -> bool:
    """Whether numpy can be imported (found, not imported): the embedded model's module needs it."""
    import importlib.util

    try:
        return importlib.util.find_spec("numpy") is not None
    except (ImportError, ValueError):
        return False


if not TYPE_CHECKING and not _numpy_found():  # an install for hosted providers only: star imports and dir() leave
    __all__.remove("ChatLlamaCpp")  # the local model out, so they work; naming it still raises MissingExtraError
    # (review 168 #2; hidden from type checkers, for which the name stays exported)

_LAZY = {
    "ChatLlamaCpp": "toolwire.models.llamacpp",
    "init_chat_model": "toolwire.models.factory",
    "ChatOpenAI": "toolwire.models.openai",
    "ChatAnthropic": "toolwire.models.anthropic",
    "ChatGoogleGenAI": "toolwire.models.google",
}


if not TYPE_CHECKING:  # (hidden from type checkers, so a misspelt name is an error there: review 166 #3)

    def __getattr__(name: str) -> Any:
        """Import a provider's class (or ``init_chat_model``) on first use: ``import toolwire`` needs no optional SDK.

        Raises:
            AttributeError: ``name`` is none of the lazily imported names.
        """
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'toolwire.models' has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    """The module's names with the lazily imported ones (tab completion, ``dir()``; review 52)."""
    return sorted({*globals(), *(name for name in _LAZY if name in __all__)})
