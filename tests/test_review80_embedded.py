"""Review 80: a new user's offline assistant on the embedded model (tools, Agent, structured output, CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Generic, TypeVar

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, Tool, tool
from toolwire.errors import SchemaError
from toolwire.testing import ScriptedChatModel

T = TypeVar("T")


class Item(BaseModel):
    """An item."""

    name: str


class Page(BaseModel, Generic[T]):
    """A page of items."""

    items: list[T]


class Città(BaseModel):  # a Python identifier may hold any letter
    """Una città."""

    nome: str


def _answer(model: ScriptedChatModel, args: dict) -> AIMessage:
    """A reply calling the one tool the newest request bound, whatever its name."""
    name = model.requests[-1].tools[0]
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1", "type": "tool_call"}])


@pytest.mark.parametrize("name", ["météo", "天气"])
def test_a_non_ascii_tool_name_is_refused_saying_ascii(name: str) -> None:
    # 'é' and '天' are letters, so "use 1 to 64 letters" told the user to do what they had done
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError, match="ASCII letters"):
        Tool.from_function(f, name=name)
    with pytest.raises(SchemaError, match="ASCII letters"):
        tool(name)(f)


@pytest.mark.parametrize(("schema", "args", "expected"), [
    (Page[Item], {"items": [{"name": "a"}]}, Page[Item](items=[Item(name="a")])),
    (Città, {"nome": "Roma"}, Città(nome="Roma")),
    ({"title": "Weather Report", "type": "object", "properties": {"t": {"type": "number"}}}, {"t": 1.5},
     {"t": 1.5}),
])
def test_structured_output_takes_a_schema_whose_name_is_no_tool_name(schema: object, args: dict,
                                                                       expected: object) -> None:
    # a generic pydantic model (Page[Item]), a class named with an accent, a JSON Schema title with a space: the
    # output tool's name is toolwire's to choose (with_structured_output takes none), yet each raised "Tool name
    # ... is not allowed", which the user could not act on
    model = ScriptedChatModel([lambda messages: _answer(model, args)])
    assert model.with_structured_output(schema).invoke("go") == expected
    name = model.requests[0].tools[0]
    assert model.requests[0].tool_choice == name
    Tool.from_function(lambda: None, name=name, description="valid name")  # (raises for a name no tool may have)


def test_ask_json_keeps_stdout_for_the_json_when_a_tool_writes_below_python(tmp_path: Path) -> None:
    # a tool running a command (subprocess.run without capture) or C code writes to file descriptor 1, not through
    # sys.stdout: that text came before the JSON on stdout, so `toolwire ask --json | jq` could not parse it
    tools = tmp_path / "shell_tools.py"
    tools.write_text("import os\nfrom toolwire import tool\nos.write(1, b'import noise\\n')\n\n\n@tool\n"
                     "def shell(x: int) -> int:\n    'Run a command.'\n    os.write(1, b'command output\\n')\n"
                     "    return x\n")
    script = ("import sys\nfrom toolwire import AIMessage, cli\nfrom toolwire.messages import tool_call\n"
              "from toolwire.testing import ScriptedChatModel\n"
              "model = ScriptedChatModel([AIMessage('', tool_calls=[tool_call('shell', {'x': 1}, 'c1')]), 'done'])\n"
              "cli._model = lambda *args, **kwargs: model\n"
              f"sys.argv = ['toolwire', 'ask', 'q', '--tools', {str(tools)!r}, '--json']\ncli.main()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [m["type"] for m in json.loads(done.stdout)] == ["human", "ai", "tool", "ai"]
    assert "import noise" in done.stderr and "command output" in done.stderr


class _Address(BaseModel):
    """A postal address."""

    street: str
    city: str
    zip: str = "00000"


def _ship(address: _Address, express: bool = False) -> str:
    """Ship a parcel to an address."""
    return address.city


def test_a_value_the_schema_gives_as_default_is_not_judged_made_up() -> None:
    # the default model wrote zip="00000", the schema's default, unsure of it; not found in the conversation it was
    # "made up", the right call was declined, and the model then wrote its lead-in sentence again and again until
    # max_tokens (stop_reason "length" after 20 copies); writing a default says what leaving it out says
    from toolwire.messages import HumanMessage
    from toolwire.models._call_checks import conversation_texts, made_up_value
    from toolwire.models._tool_text import default_values
    from toolwire.models.base import to_tool_spec

    specs = [to_tool_spec(Tool.from_function(_ship, name="ship"))]
    text = '[ship(address={"street": "5 Main St", "city": "Springfield", "zip": "00000"})]'
    start = text.index('"00000"')
    spans = [(0, start, 0.99), (start, start + 7, 0.1), (start + 7, len(text), 0.99)]
    said = conversation_texts([HumanMessage("Ship a parcel to 5 Main St, Springfield.")])
    assert made_up_value(text, spans, said, 0.3) is not None  # (the rule itself: unsure and not in the conversation)
    assert default_values(specs)["ship"]["address"] == ["00000"]  # (the nested model's default, through its $ref)
    assert made_up_value(text, spans, said, 0.3, defaults=default_values(specs)) is None
