"""Review 189 #2: a result or artifact that is a struct sequence (``os.stat()``, ``time.localtime()``) is written as
an object of its named fields, as a NamedTuple is, those past its sequence part too (``st_mtime`` as a float); it
went out as a bare array of numbers, the field names and the float times lost."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from toolwire import tool
from toolwire.messages import ToolMessage
from toolwire.results import json_ready, result_to_content


def test_a_stat_result_is_an_object_of_all_its_named_fields(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello", encoding="utf-8")
    stat = os.stat(path)
    written = json.loads(result_to_content(stat))
    assert written["st_size"] == 5
    assert written["st_mode"] == stat.st_mode
    assert written["st_mtime"] == stat.st_mtime and isinstance(written["st_mtime"], float)
    assert written["st_mtime_ns"] == stat.st_mtime_ns
    assert list(written)[:7] == ["st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size"]


def test_struct_times_inside_containers_are_objects() -> None:
    moment = time.gmtime(0)
    written = json.loads(result_to_content({"when": [moment], "pair": (1, 2)}))
    assert written["pair"] == [1, 2]
    [when] = written["when"]
    assert when["tm_year"] == 1970 and when["tm_yday"] == 1
    assert when["tm_zone"] == moment.tm_zone  # (a field past the sequence part)


def test_a_tool_returning_os_stat(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc", encoding="utf-8")

    @tool
    def file_info(path: str) -> os.stat_result:
        """The file's stat record.

        Args:
            path: the file.
        """
        return os.stat(path)

    message = file_info.invoke({"name": "file_info", "args": {"path": str(tmp_path / "a.txt")}, "id": "c1",
                                "type": "tool_call"})
    assert json.loads(message.content)["st_size"] == 3


def test_an_artifact_that_is_a_struct_sequence_is_saved_as_an_object() -> None:
    moment = time.gmtime(0)
    assert json_ready(moment)["tm_year"] == 1970
    saved = ToolMessage(content="ok", tool_call_id="c1", artifact={"moment": moment}).to_dict()
    assert json.loads(json.dumps(saved))["artifact"]["moment"]["tm_mon"] == 1


def test_a_tuple_whose_fields_do_not_name_its_items_is_a_list() -> None:
    class Odd(tuple):
        _fields = ("only",)

    assert json.loads(result_to_content({"odd": Odd((1, 2))})) == {"odd": [1, 2]}
