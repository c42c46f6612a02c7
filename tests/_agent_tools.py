"""Tools the Agent's tool_choice and resuming tests bind (reviews 162, 165): each records what it ran in ``ran``."""

from __future__ import annotations

from toolwire import tool

ran: list[str] = []


@tool
def delete_all(folder: str) -> str:
    """Delete every file of a folder.

    Args:
        folder: the folder
    """
    ran.append(folder)
    return f"deleted everything in {folder}"


@tool
def lookup(q: str) -> str:
    """Look something up.

    Args:
        q: the query
    """
    ran.append(q)
    return "found " + q


@tool(return_direct=True)
def final_answer(answer: str) -> str:
    """Give the final answer.

    Args:
        answer: the answer
    """
    return answer
