"""Review 167 #2: BFCL's JSON-lines files are split on "\\n" only, as BFCL's own loader reads them: U+2028, U+2029
and U+0085 written raw inside a JSON string are text, not line ends; CRLF and a byte-order mark still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolwire.errors import UserError
from toolwire.evals.bfcl import load_category

_FUNCTION = {"name": "f", "description": "d",
             "parameters": {"type": "dict", "properties": {"x": {"type": "string"}}, "required": ["x"]}}


def _write(folder: Path, texts: list[str], newline: str = "\n", bom: str = "") -> Path:
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    questions = [json.dumps({"id": f"simple_python_{n}", "question": [[{"role": "user", "content": text}]],
                             "function": [_FUNCTION]}, ensure_ascii=False) for n, text in enumerate(texts)]
    answers = [json.dumps({"id": f"simple_python_{n}", "ground_truth": [{"f": {"x": [text]}}]}, ensure_ascii=False)
               for n, text in enumerate(texts)]
    for path, rows in ((folder / "BFCL_v4_simple_python.json", questions),
                       (folder / "possible_answer" / "BFCL_v4_simple_python.json", answers)):
        path.write_bytes((bom + "".join(row + newline for row in rows)).encode("utf-8"))
    return folder


@pytest.mark.parametrize("newline,bom", [("\n", ""), ("\r\n", ""), ("\r\n", "\ufeff")])
def test_unicode_line_separators_inside_strings_are_text(tmp_path: Path, newline: str, bom: str) -> None:
    texts = ["first\u2028second", "a\u2029b", "c\u0085d", "plain"]
    items = load_category(_write(tmp_path, texts, newline, bom), "simple_python")
    assert [i.id for i in items] == [f"simple_python_{n}" for n in range(4)]
    assert [i.question_text for i in items] == texts
    assert [i.ground_truth for i in items] == [[{"f": {"x": [t]}}] for t in texts]


def test_a_bad_line_after_one_with_a_separator_is_named_by_its_own_number(tmp_path: Path) -> None:
    folder = _write(tmp_path, ["first\u2028second"])
    path = folder / "BFCL_v4_simple_python.json"
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"BFCL_v4_simple_python.json:2 is not valid JSON"):
        load_category(folder, "simple_python")
