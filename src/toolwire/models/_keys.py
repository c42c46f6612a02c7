"""The API key of a hosted-provider model: what ``api_key=`` takes, and the value that hides it.

``api_key`` may be text, any object with a ``get_secret_value()`` method that returns text (pydantic's
``SecretStr``, what LangChain's models hold their keys in; duck-typed, so pydantic is not needed here) or, where the
provider's SDK takes one, a function that returns the key: the ``openai`` SDK calls such a key provider before
every request (``OpenAI(api_key=callable)``, in releases that have it), for short-lived tokens (Microsoft Entra ID,
a vault). Whatever the form, the key is held in a :class:`Secret`, which never shows in ``repr``, ``str`` or logs,
and is sent without the spaces and line end a key read from a file brings along.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from toolwire.errors import UserError

__all__ = ["KeyFunction", "Secret", "resolve_key", "takes_key_function"]


class Secret:
    """A string that hides itself: ``repr``/``str`` give ``'**********'``; :meth:`get` returns the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get(self) -> str:
        """The secret value (to hand to an SDK client, or to mask in errors; never to print)."""
        return self._value

    def for_client(self, asynchronous: bool) -> str | Callable[[], str] | Callable[[], Awaitable[str]]:
        """What the SDK client's ``api_key`` gets: the key itself (a :class:`KeyFunction` gives a function)."""
        return self._value

    def __repr__(self) -> str:
        return "'**********'"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("An API key is not pickled; build the model again where it is needed.")


class KeyFunction(Secret):
    """An API key given as a function of no arguments that returns it, called by the SDK before each request.

    Each key the function returns is checked and cleaned as a key given as text is (:func:`clean_key`) and kept as
    :meth:`get`'s value (``""`` before the first request), so that an error echoing it is masked like any key.

    Args:
        function: the user's function (``() -> str``).
        owner: the model class's name, for the error messages.
    """

    __slots__ = ("_function", "_owner")

    def __init__(self, function: Callable[[], Any], owner: str) -> None:
        super().__init__("")
        self._function = function
        self._owner = owner

    def __call__(self) -> str:
        """Call the function and return its key, cleaned.

        Raises:
            UserError: it returned something other than text (or a ``SecretStr``), an empty key, or a key an
                HTTP header cannot carry.
        """
        key = clean_key(_secret_text(self._function(), self._owner, "the api_key function"), self._owner,
                        "the api_key function")
        if not key:
            raise UserError(f"{self._owner}: the api_key function returned an empty key: make it return the key.")
        self._value = key
        return key

    async def acall(self) -> str:
        """:meth:`__call__` for the SDK's async client, which awaits its key provider."""
        return self()

    def for_client(self, asynchronous: bool) -> Callable[[], str] | Callable[[], Awaitable[str]]:
        """The key provider for the SDK client: this object, or :meth:`acall` for the async client."""
        return self.acall if asynchronous else self


def takes_key_function(client_class: Any) -> bool:
    """Whether an SDK client class takes a function as its ``api_key`` (its annotation names ``Callable``, as the
    ``openai`` SDK's ``api_key: str | Callable[[], str] | None`` does in the releases that call a key provider)."""
    try:
        parameter = inspect.signature(client_class.__init__).parameters.get("api_key")
    except (TypeError, ValueError):
        return False
    return parameter is not None and "Callable" in str(parameter.annotation)


def clean_key(value: str, owner: str, source: str) -> str:
    """``value`` without the spaces and line end around it (sent as they are, they made an HTTP header error that
    showed the whole key, review 37).

    Raises:
        UserError: the key holds characters other than printable ASCII (a pasted quote): an HTTP header cannot
            carry them. The message names ``source`` (``api_key``, an environment variable), never the key.
    """
    value = value.strip()
    if not value.isascii() or not value.isprintable():
        raise UserError(f"The API key given by {source} holds a character an HTTP header cannot carry (a pasted "
                        "quote, a space or a control character): set it to the key alone.")
    return value


def _secret_text(value: Any, owner: str, source: str) -> str:
    """The text of a key given as text or as an object with ``get_secret_value()`` (``SecretStr``).

    Raises:
        UserError: anything else (the message names its type, never its value).
    """
    reveal = getattr(value, "get_secret_value", None)
    if not isinstance(value, str) and callable(reveal):
        value = reveal()
    if isinstance(value, str):
        return value
    raise UserError(f"{owner}: {source} must give the key as text or a SecretStr, not {type(value).__name__}.")


def resolve_key(api_key: Any, *, owner: str, key_env: Sequence[str], functions: bool,
                sdk: str, given_as: str = "api_key") -> Secret | None:
    """The API key a model is built with, as a :class:`Secret` (None: none given or set).

    Args:
        api_key: what the user passed: None, text, an object with ``get_secret_value()`` (``SecretStr``), or a
            function of no arguments returning the key. Empty text (or an empty ``SecretStr``), or text of only
            spaces and line ends, counts as not given; so does such an environment variable.
        owner: the model class's name, for the messages.
        key_env: the environment variables read, in order, when ``api_key`` is not given.
        functions: whether the provider's SDK calls a key function (:func:`takes_key_function`).
        sdk: the SDK's package name, for the messages (``"anthropic"``).
        given_as: the argument ``api_key`` was passed as, for the messages (``"auth_token"``: review 321 #2).

    Returns:
        A :class:`Secret` (a :class:`KeyFunction` for a function), or None when no key is given or set.

    Raises:
        UserError: ``api_key`` is of another type (a number...), an async function, a function where the SDK
            takes none, or a key holding a character an HTTP header cannot carry. No message shows the key.
    """
    if api_key is not None and not isinstance(api_key, str) and not callable(getattr(api_key, "get_secret_value",
                                                                                      None)):
        return _key_function(api_key, owner=owner, functions=functions, sdk=sdk)
    given = _secret_text(api_key, owner, given_as) if api_key is not None else ""
    given = given if given.strip() else ""  # spaces or a line end alone: no key, as "" is (review 76)
    source = given_as if given else next((k for k in key_env if os.environ.get(k, "").strip()), None)
    value = given or (os.environ[source] if source else "")
    return Secret(clean_key(value, owner, source or given_as)) if value else None


def _key_function(api_key: Any, *, owner: str, functions: bool, sdk: str) -> KeyFunction:
    """``api_key`` (neither text nor a ``SecretStr``) as a :class:`KeyFunction`: see :func:`resolve_key`.

    Raises:
        UserError: it is no function, an async one, or a function where the SDK takes none.
    """
    if not callable(api_key):
        also = ", or a function that returns it" if functions else ""
        raise UserError(f"{owner}: api_key must be the key as text, a SecretStr (any object with get_secret_value())"
                        f"{also}, not {type(api_key).__name__}.")
    if inspect.iscoroutinefunction(api_key) or inspect.iscoroutinefunction(type(api_key).__call__):
        raise UserError(f"{owner}: api_key must be a plain function that returns the key, not an async one: "
                        "pass a function that returns it at once, or the key itself.")
    if not functions:
        raise UserError(f"{owner} takes api_key as text or a SecretStr, not a function (the {sdk} package calls no "
                        "key function): call it and pass the key it returns.")
    return KeyFunction(api_key, owner)
