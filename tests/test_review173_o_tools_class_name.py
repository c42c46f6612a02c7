"""Review 173 #5: a tool result holding an object of a class from a --tools file reaches the model as the log line
says it is written ('<Connection object at 0x...>'), not under the internal module name
'toolwire_user_tools_<hash>'."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolwire import tool
from toolwire.cli_tools import load_tools
from toolwire.messages import ToolMessage

_FILE = '''
from toolwire import tool

class Connection:
    def __init__(self):
        self.sock = object()

@tool
def connect(host: str) -> str:
    """Open a connection to a host."""
    return Connection()
'''


def _call(name: str) -> dict[str, object]:
    return {"name": name, "args": {"host": "h"}, "id": "c1", "type": "tool_call"}


def test_a_tools_file_class_is_written_as_the_log_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "helper_type.py").write_text(_FILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    [connect] = load_tools("helper_type.py")
    with caplog.at_level("WARNING", logger="toolwire.tools"):
        message = connect.invoke(_call("connect"))
    assert isinstance(message, ToolMessage)
    assert "toolwire_user_tools" not in message.content
    assert re.fullmatch(r'"<Connection object at 0x[0-9a-f]+>"', message.content), message.content
    told = [r.getMessage() for r in caplog.records if "no JSON form" in r.getMessage()]
    assert all("'<Connection object at 0x...>'" in line for line in told)


def test_a_nested_object_of_a_module_class_reads_the_same() -> None:
    class Opaque:
        pass

    @tool
    def fetch(host: str) -> object:
        """Fetch."""
        return {"thing": Opaque()}

    content = fetch.invoke(_call("fetch")).content
    assert re.fullmatch(r'\{"thing": "<' + re.escape(Opaque.__qualname__) + r' object at 0x[0-9a-f]+>"\}', content)
