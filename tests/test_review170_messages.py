"""Review 170: the texts of errors and warnings people (and models) read."""

from __future__ import annotations

import pytest

from toolwire import tool
from toolwire.errors import SchemaError


@pytest.mark.parametrize("bad", [5, ["Adds."], {"text": "Adds."}])
def test_description_not_text_is_refused_when_the_tool_is_made(bad: object) -> None:
    """#2: @tool(description=5) was taken and sent to the provider as a JSON number."""

    def add(x: int) -> int:
        """Add."""
        return x

    with pytest.raises(SchemaError) as info:
        tool(description=bad)(add)
    name = type(bad).__name__
    assert str(info.value) == (f"The description of tool 'add' must be text, not {name}: pass description='...', "
                               "a sentence saying what the tool does.")


def test_a_tools_file_class_is_named_by_the_file_not_the_internal_module(tmp_path, monkeypatch) -> None:
    """#5: the CLI named the class toolwire_user_tools_<hash>.Connection, a module the user never wrote."""
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    (tmp_path / "helper_type.py").write_text(
        "class Connection:\n    pass\n\n\ndef query(conn: Connection, sql: str) -> str:\n"
        '    """Run a SQL query."""\n    return ""\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        load_tools("helper_type.py")
    text = str(info.value)
    assert "toolwire_user_tools" not in text
    assert "parameter 'conn' is typed helper_type.Connection, which has no JSON form" in text


def test_a_tools_entry_message_keeps_the_ellipsis_of_the_library_text(tmp_path, monkeypatch) -> None:
    """#6: "pass description=)": the first sentence's final-period strip took the whole "..." away."""
    from toolwire.cli_tools import load_tools
    from toolwire.errors import UserError

    (tmp_path / "nodoc.py").write_text("def lookup(order_id: int) -> str:\n    return ''\n\n\nTOOLS = [lookup]\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        load_tools("nodoc.py")
    assert str(info.value) == (
        "The TOOLS entry 'lookup' in 'nodoc.py' cannot be a tool (Tool 'lookup' has no description: add a docstring "
        "to the function or pass description=... so the model knows when to use it): fix it or take it out of TOOLS.")


@pytest.mark.parametrize(("data", "expected"), [
    ({"type": "bot", "content": "x"},
     "Cannot read a message of type 'bot'; use one of ai, assistant, developer, human, system, tool, user."),
    ({"role": "bot", "content": "x"},
     "Cannot read a message with the role 'bot'; use one of ai, assistant, developer, human, system, tool, user."),
    ({"content": "x"}, "Cannot read a message without a 'role'; add one, such as {'role': 'user', 'content': 'hi'}."),
])
def test_an_unknown_message_kind_is_named_by_its_key_in_a_plain_list(data: dict, expected: str) -> None:
    """#7: the kinds were a Python list repr, and a {"role": ...} dict was told about its "type"."""
    from toolwire import message_from_dict
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        message_from_dict(data)
    assert str(info.value) == expected


def test_an_unknown_langchain_type_lists_the_types_plainly() -> None:
    """#7: the LangChain types read were a Python list repr."""
    from toolwire import message_from_dict
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        message_from_dict({"type": "function", "data": {"content": "x", "name": "f"}})
    assert "[" not in str(info.value) and str(info.value).endswith(" ai, chat, human, system, tool.")
