"""Review 119 (adversarial input): a ToolMessage whose artifact holds an integer too long to write as text can still
be saved; ToolExecutor makes an id for a call whose id is empty."""

from __future__ import annotations

import json

from toolwire import AIMessage, ToolExecutor, ToolMessage, messages_from_dict, messages_to_dict, tool


def test_an_artifact_holding_a_huge_integer_is_saved_as_its_first_digits_and_digit_count() -> None:
    @tool(response_format="content_and_artifact")
    def power() -> tuple[str, dict]:
        """A big power."""
        return "computed", {"value": 3 ** 20000, "small": 7, "list": [-(10 ** 5000), 1]}

    message = power.invoke({"name": "power", "args": {}, "id": "c1", "type": "tool_call"})
    saved = json.loads(json.dumps(messages_to_dict([message])))  # was: ValueError (4300 digits)
    artifact = saved[0]["data"]["artifact"] if "data" in saved[0] else saved[0]["artifact"]
    assert artifact["small"] == 7 and artifact["list"][1] == 1
    assert artifact["value"].endswith("... (9543 digits)") and artifact["value"].startswith("26613034272174197919")
    assert artifact["list"][0].startswith("-10000000000000000000...") and artifact["list"][0].endswith("(5001 digits)")
    assert isinstance(messages_from_dict(saved)[0], ToolMessage)


def test_the_executor_makes_an_id_for_a_call_whose_id_is_empty() -> None:
    @tool
    def ok() -> str:
        """OK."""
        return "ok"

    call = {"name": "ok", "args": {}, "id": "", "type": "tool_call"}
    for answer in (*ToolExecutor([ok]).call([call]), *ToolExecutor([ok]).execute([call])):
        assert answer.tool_call_id.startswith("call_")  # was: '' (a provider refuses it)
    assert AIMessage("", tool_calls=[call]).tool_calls[0]["id"].startswith("call_")
