"""Values the model was not sent are hidden only inside the exception's own message, short ones only as whole
words, and a huge bound value costs no time (review 230 #1, #3)."""

from __future__ import annotations

import functools

from toolwire import tool
from toolwire._tool_args import hide_values


def _count_rows(status: str, db: str) -> int:
    """Count rows.

    Args:
        status: the status.
    """
    raise LookupError(f"no status {status!r} in {db} (see the reorders table)")


def _call(t, args: dict) -> str:
    return t.invoke({"name": t.name, "args": args, "id": "c1", "type": "tool_call"}).content


def test_a_short_hidden_value_leaves_the_tool_name_and_other_words() -> None:
    count_orders = tool(functools.partial(_count_rows, db="orders"), name="count_orders")
    text = _call(count_orders, {"status": "late"})
    assert text.startswith("Error: tool 'count_orders' raised LookupError:")
    assert "in <hidden> (see the reorders table)" in text


def test_a_long_value_is_hidden_inside_a_word_too() -> None:
    assert hide_values("key_sk-live-123456", {"api_key": "sk-live-123456"}) == "key_<hidden>"
    assert hide_values("user count_user", {"role": "user"}) == "<hidden> count_user"


class _CountedList(list):
    """A list that counts how often its repr is built."""

    built = 0

    def __repr__(self) -> str:
        type(self).built += 1
        return super().__repr__()


def test_a_huge_bound_value_is_not_printed_whole() -> None:
    catalog = _CountedList([f"p-{i}-{k}" for k in range(100)] for i in range(1000))

    def find(product: str, catalog: list) -> str:
        """Find a product.

        Args:
            product: its name.
        """
        raise LookupError(f"no product {product!r}")

    finder = tool(functools.partial(find, catalog=catalog), name="find")
    _CountedList.built = 0
    text = _call(finder, {"product": "x"})
    assert text == "Error: tool 'find' raised LookupError: no product 'x'"
    assert _CountedList.built == 0  # (the whole catalog's repr took seconds before: review 230 #3)


def _sync(command: str, token: str) -> str:
    """Sync an app.

    Args:
        command: what to run.
    """
    raise RuntimeError(f"error: authentication failed (token {token}) for app\n")


def test_a_message_ending_in_a_newline_is_hidden_too() -> None:
    sync = tool(functools.partial(_sync, token="sk-live-ABCDEF123456"), name="sync")
    text = _call(sync, {"command": "go"})
    assert "sk-live" not in text and "(token <hidden>) for app" in text  # (review 232 #3)


def test_a_long_value_shown_cut_short_is_hidden() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9." + "A1b2C3d4E5" * 12
    shown = f"Invalid arguments for tool 'fetch': 'limit': not an integer (got '{token[:78]}...)."
    assert hide_values(shown, {"token": token}) == \
        "Invalid arguments for tool 'fetch': 'limit': not an integer (got <hidden>...)."  # (review 232 #4)


def test_a_long_value_cut_in_its_middle_is_hidden_both_ends() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9." + "eHh5enp5MTIzNDU2Nzg5MA" * 5
    shown = f"Input should be a valid integer [input_value='{token[:20]}...{token[-25:]}', input_type=str]"
    hidden = hide_values(shown, {"token": token})
    assert token[:16] not in hidden and token[-16:] not in hidden  # (review 233 #1)
    assert hidden.endswith(", input_type=str]")
