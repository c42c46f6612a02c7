"""Which of a union's members each of pydantic's errors for it came from, for the tagged-union cut of
:func:`toolwire._schema_refs.validation_message` (:class:`~toolwire._schema_refs._TaggedUnions`): pydantic gives
each member's errors together under the member's name, so members whose classes share a name (classes a factory
makes) have to be told apart by the order of their fields and by the tag (review 242 #10, review 247 #4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["member_blocks", "split_by_tag"]

_MOST_ERRORS = 64  # errors under one union beyond which split_by_tag does not try


def member_blocks(errors: list[Any], prefix: tuple[Any, ...],
                  ordered: list[Any]) -> list[tuple[Any, list[Any]]]:
    """The errors under the union at ``prefix`` (a pydantic ``loc``) as ``(member name, its errors)`` per member
    pydantic tried, in its order: pydantic gives each member's errors together, under the member's name (a class's
    ``__name__``), so two classes of one name follow each other under that name (review 242 #10). A member's errors
    name each of its fields once (or several times at once, for errors inside it), so a field named again after
    another one, or again at its own level, begins the next member, and so does a field that comes before the last
    one named in each of the members' schemas (``ordered``; pydantic checks fields in order, unknown keys last)."""
    size = len(prefix)
    blocks: list[tuple[Any, list[Any]]] = []
    seen: set[Any] = set()
    last: tuple[Any, ...] = ()
    for err in errors:
        loc = tuple(err.get("loc", ()))
        if len(loc) <= size or loc[:size] != prefix:
            continue
        key = loc[size + 1] if len(loc) > size + 1 else None
        same = bool(blocks) and blocks[-1][0] == loc[size] and key is not None and (
            key not in seen or (len(last) > size + 2 and len(loc) > size + 2 and last[size + 1] == key)) and not (
            len(last) > size + 1 and all(_rank(b, key) < _rank(b, last[size + 1]) for b in ordered))
        if same:
            blocks[-1][1].append(err)
        else:
            blocks.append((loc[size], [err]))
            seen = set()
        seen.add(key)
        last = loc
    return blocks


def _rank(branch: Mapping[str, Any], key: Any) -> int:
    """Where ``key`` is among ``branch``'s properties; after them all for a key it does not have."""
    names = list(branch["properties"])
    return names.index(key) if key in names else len(names)


def split_by_tag(errors: list[Any], prefix: tuple[Any, ...], objects: list[Any], tag: str,
                 values: list[list[Any]]) -> list[tuple[Any, list[Any]]] | None:
    """The errors under the union at ``prefix`` (a pydantic ``loc``) as ``(member name, its errors)`` for each of
    the union's object members (``objects``, in pydantic's order, each taking ``values`` of the property ``tag``),
    when there is one way alone to split them; None when there is none, or more than one.

    Used where :func:`member_blocks` cannot tell members of one name apart (``op: Literal["num"], v: int`` and
    ``op: Literal["txt"], v: str``, both ``Step``: ``{"op": "txt", "v": 5}`` gives Num's error on ``op`` and Txt's
    on ``v``, one after the other). Each member's errors come together, under one name, in the order of its fields
    (a field again only for errors inside it; unknown keys last), and a member that takes the tag the call sent
    has no error on it, while every other member has one: so the errors are cut where those rules allow, and kept
    when they allow one cut alone (review 247 #4)."""
    size = len(prefix)
    seq = [err for err in errors if len(loc := tuple(err.get("loc", ()))) > size and loc[:size] == prefix]
    sent = {repr(err.get("input")) for err in seq if tuple(err.get("loc", ()))[size + 1:] == (tag,)
            and err.get("type") != "missing"}
    if len(sent) != 1 or len(seq) > _MOST_ERRORS or len(objects) != len(values) or len(seq) < len(objects):
        return None
    given = next(err.get("input") for err in seq if tuple(err.get("loc", ()))[size + 1:] == (tag,)
                 and err.get("type") != "missing")
    takes = [any(v == given and type(v) is type(given) for v in taken) for taken in values]
    locs = [tuple(err.get("loc", ())) for err in seq]
    ways: dict[tuple[int, int], int] = {}

    def ends(start: int, member: int) -> list[int]:
        """Each ``end`` for which ``seq[start:end]`` can be the errors of ``objects[member]``."""
        found: list[int] = []
        if len(locs[start]) == size + 1:  # (an error at the member's own level, a validator's, stands alone)
            return [start + 1]
        branch, on_tag = objects[member], 0
        for end in range(start + 1, len(seq) + 1):
            loc = locs[end - 1]
            if end > start + 1:
                before = locs[end - 2]
                first, then = _rank(branch, before[size + 1]), _rank(branch, loc[size + 1])
                same = before[size + 1] == loc[size + 1]
                if loc[size] != before[size] or len(loc) == size + 1 or then < first or (then == first and (
                        (same and (len(before) == size + 2 or len(loc) == size + 2))
                        or (not same and first < len(branch["properties"])))):
                    break  # (one member's errors are all under its name, in the order of its fields)
            on_tag += loc[size + 1:] == (tag,)
            if on_tag > (0 if takes[member] else 1):
                break
            if on_tag == (0 if takes[member] else 1):
                found.append(end)
        return found

    def count(start: int, member: int) -> int:  # (the ways to split seq[start:] among objects[member:], up to 2)
        if member == len(objects):
            return 1 if start == len(seq) else 0
        if start == len(seq):
            return 0
        if (start, member) not in ways:
            found = 0
            for end in ends(start, member):
                found += count(end, member + 1)
                if found > 1:
                    break
            ways[start, member] = min(found, 2)
        return ways[start, member]

    if count(0, 0) != 1:
        return None
    blocks: list[tuple[Any, list[Any]]] = []
    start = 0
    for member in range(len(objects)):
        end = next(end for end in ends(start, member) if count(end, member + 1) == 1)
        blocks.append((tuple(seq[start].get("loc", ()))[size], seq[start:end]))
        start = end
    return blocks
