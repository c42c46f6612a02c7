"""The BFCL HTML report in a real headless browser (Debian's Chromium): rendered DOM and a screenshot.

``make test`` installs Chromium when it can (apt, as root); elsewhere this test is skipped with the
reason, so a developer machine without root still runs the rest.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from _paths import BFCL
from toolwire.evals.bfcl import CATEGORIES, load_category
from toolwire.evals.bfcl_checker import example_calls
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import write_html
from toolwire.messages import AIMessage

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (make test installs it as root)"),
    pytest.mark.skipif(not (BFCL / "README.md").is_file(), reason="no BFCL data beside the repo"),
]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


class HalfRight:
    """Answers every even item from the ground truth and calls nothing on odd ones."""

    name = "half-right"

    def __init__(self, items):
        self.items = {i.question_text: i for i in items}

    def bind_tools(self, tools):
        self.names = [t["function"]["name"] for t in tools]
        return self

    def invoke(self, messages):
        item = self.items[messages[-1].text]
        if int(item.id.rsplit("_", 1)[1]) % 2 or item.ground_truth is None:
            return AIMessage("No tool fits.")
        calls = example_calls(item.ground_truth, item.functions)
        sent = {orig: sent for sent, orig in item.toolset().names.items()}
        return AIMessage("", tool_calls=[{**c, "name": sent.get(c["name"], c["name"])} for c in calls])


def _chromium(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    items = [i for c in CATEGORIES for i in load_category(BFCL, c, limit=4)]
    report = run_bfcl(HalfRight(items), BFCL, limit=4)
    page = tmp_path / "report.html"
    write_html(report, page, published=BFCL / "README.md")

    dom = _chromium(["--dump-dom", page.as_uri()], tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for category in CATEGORIES:
        assert category in dom.stdout
    assert "Qwen2.5-1.5B-Instruct" in dom.stdout  # the published scores beside ours
    assert dom.stdout.count("<rect") >= len(CATEGORIES)

    shot = tmp_path / "report.png"
    done = _chromium([f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri()], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 1600)
    assert len(data) > 20_000  # a blank page compresses to a few kB; the chart and tables do not
    keep = Path(__file__).resolve().parents[1] / "reports"
    keep.mkdir(exist_ok=True)
    shutil.copy(shot, keep / "bfcl-report-screenshot.png")
