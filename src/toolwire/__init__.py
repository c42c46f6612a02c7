"""toolwire: connect Python tools to large language models.

Define a tool from a function (:func:`tool`), bind tools to a chat model (``model.bind_tools``), read the
reply's ``tool_calls``, run them (``tool.invoke(tool_call)`` or :class:`ToolExecutor`), send the
:class:`ToolMessage` results back, and loop (:class:`Agent`) until the model answers in text.
"""

from toolwire._structured_tool import StructuredTool
from toolwire._version import __version__  # (pyproject.toml's, from the package's metadata: review 278 #3)
from toolwire.agent import Agent, AgentEvent, AgentResult
from toolwire.errors import (
    ContextOverflowError,
    MaxStepsExceeded,
    ProviderError,
    RepeatedCallWarning,
    SchemaError,
    StrictSchemaWarning,
    ToolCallParseError,
    ToolDefinitionWarning,
    ToolExecutionError,
    ToolResultError,
    ToolTimeoutError,
    ToolValidationError,
    ToolwireError,
    UnknownToolError,
    UserError,
)
from toolwire.execution import ToolExecutor
from toolwire.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
    merge_chunks,
    message_from_dict,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
)
from toolwire.models.base import BaseChatModel
from toolwire.models.lowering.openai import convert_to_openai_tool
from toolwire.tools import Tool, ToolSpec, current_call_id, current_tool_call, tool

__all__ = [
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
