"""The public names of ``toolwire``: ``__all__`` is sorted, complete, and pinned."""

from __future__ import annotations

import types

import toolwire

EXPECTED = [
    "AIMessage",
    "AIMessageChunk",
    "Agent",
    "AgentEvent",
    "AgentResult",
    "BaseChatModel",
    "BaseMessage",
    "ContextOverflowError",
    "HumanMessage",
    "InvalidToolCall",
    "MaxStepsExceeded",
    "ProviderError",
    "RepeatedCallWarning",
    "SchemaError",
    "StrictSchemaWarning",
    "StructuredTool",
    "SystemMessage",
    "Tool",
    "ToolCall",
    "ToolCallParseError",
    "ToolDefinitionWarning",
    "ToolExecutionError",
    "ToolExecutor",
    "ToolMessage",
    "ToolResultError",
    "ToolSpec",
    "ToolTimeoutError",
    "ToolValidationError",
    "ToolwireError",
    "UnknownToolError",
    "UserError",
    "__version__",
    "convert_to_openai_tool",
    "current_call_id",
    "current_tool_call",
    "merge_chunks",
    "message_from_dict",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
    "tool",
]


def test_all_is_pinned() -> None:
    assert toolwire.__all__ == EXPECTED


def test_all_is_sorted_without_duplicates() -> None:
    assert toolwire.__all__ == sorted(toolwire.__all__)
    assert len(set(toolwire.__all__)) == len(toolwire.__all__)


def test_every_name_in_all_exists() -> None:
    missing = [name for name in toolwire.__all__ if not hasattr(toolwire, name)]
    assert missing == []


def test_every_public_name_of_the_package_is_in_all() -> None:
    public = {
        name for name, value in vars(toolwire).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - set(toolwire.__all__) == set()


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from toolwire import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(namespace) == sorted(toolwire.__all__)


def test_exported_objects_come_from_their_modules() -> None:
    assert toolwire.tool.__module__ == "toolwire.tools"
    assert toolwire.ToolExecutor.__module__ == "toolwire.execution"
    assert toolwire.Agent.__module__ == "toolwire.agent"
    assert toolwire.AIMessage.__module__ == "toolwire.messages"
    assert toolwire.BaseChatModel.__module__ == "toolwire.models.base"
    assert toolwire.convert_to_openai_tool.__module__ == "toolwire.models.lowering.openai"
    assert issubclass(toolwire.SchemaError, toolwire.UserError)
    assert all(issubclass(getattr(toolwire, n), toolwire.ToolwireError)
               for n in ("UserError", "ToolCallParseError", "ToolExecutionError", "ProviderError",
                         "MaxStepsExceeded", "ToolValidationError", "ToolTimeoutError", "UnknownToolError"))
