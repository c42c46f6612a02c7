"""The HTML page of a BFCL report (used by :func:`toolwire.evals.report.write_html`).

One self-contained document: inline CSS, an inline SVG chart, no scripts, no external URLs. Every
string that comes from the data or the model is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

from toolwire.evals.bfcl_checker import category_kind

if TYPE_CHECKING:
    from toolwire.evals.report import Report

__all__ = ["render_chart", "render_html"]

OURS_COLOR = "#2563eb"
PALETTE = ("#9ca3af", "#f59e0b", "#10b981", "#a855f7", "#ef4444", "#14b8a6", "#eab308", "#64748b")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1100px;
color:#111827;padding:0 1rem;line-height:1.4}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2rem}
.meta{color:#4b5563;margin-top:0}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
details{border:1px solid #e5e7eb;border-radius:6px;margin:.5rem 0;padding:.3rem .7rem}
summary{cursor:pointer;font-weight:600}
pre{margin:0;white-space:pre-wrap;word-break:break-word;font-size:.8rem;max-width:28rem}
.reason{font-family:ui-monospace,monospace;font-size:.8rem;white-space:nowrap}
.ok{color:#047857}.none{color:#6b7280}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
"""

GENERATOR = "toolwire eval bfcl"
"""The page's ``<meta name="generator">``: how ``--html`` tells a page it may overwrite from another file."""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _json(value: Any) -> str:
    return _e(json.dumps(value, ensure_ascii=False, default=repr))


def render_chart(ours_label: str, ours: Mapping[str, float], categories: list[str],
                 published: Mapping[str, Mapping[str, float]]) -> str:
    """Return an inline ``<svg>`` grouped horizontal bar chart (percent, 0-100).

    Args:
        ours_label: the label of this run's bars (drawn first in each group, in blue).
        ours: category -> accuracy in percent.
        categories: the groups, in order.
        published: ``{model label: {category: percent}}``; a missing score is drawn as "n/a".

    Returns:
        SVG markup (no ``xmlns`` needed inside HTML5); labels are escaped.
    """
    series: list[tuple[str, Mapping[str, float], str]] = [(ours_label, ours, OURS_COLOR)]
    for k, (label, scores) in enumerate(published.items()):
        series.append((label, scores, PALETTE[k % len(PALETTE)]))
    label_w, bar_w, value_w, bar_h, gap, head_h, top = 300, 480, 70, 15, 3, 24, 28
    width = label_w + bar_w + value_w
    height = top + len(categories) * (head_h + len(series) * (bar_h + gap) + 10) + 4
    parts = [f'<svg role="img" aria-label="Accuracy per category" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" style="max-width:100%;height:auto">']
    for tick in (0, 25, 50, 75, 100):
        x = label_w + bar_w * tick / 100
        parts.append(f'<line x1="{x:.1f}" y1="{top - 8}" x2="{x:.1f}" y2="{height - 4}" stroke="#e5e7eb"/>')
        parts.append(f'<text x="{x:.1f}" y="{top - 12}" font-size="11" text-anchor="middle" '
                     f'fill="#6b7280">{tick}%</text>')
    y = top
    for category in categories:
        parts.append(f'<text x="4" y="{y + 16}" font-size="13" font-weight="700">{_e(category)}</text>')
        y += head_h
        for label, scores, color in series:
            short = label if len(label) <= 44 else label[:41] + "..."
            weight = "700" if color == OURS_COLOR else "400"
            parts.append(f'<text x="{label_w - 8}" y="{y + bar_h - 3}" font-size="11" text-anchor="end" '
                         f'font-weight="{weight}">{_e(short)}</text>')
            value = scores.get(category)
            if value is None:
                parts.append(f'<text x="{label_w + 4}" y="{y + bar_h - 3}" font-size="11" '
                             f'fill="#9ca3af">n/a</text>')
            else:
                w = bar_w * max(0.0, min(float(value), 100.0)) / 100
                parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}">'
                             f'<title>{_e(label)}: {_e(category)} {value:.2f}%</title></rect>')
                parts.append(f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}" font-size="11">'
                             f'{value:.2f}</text>')
            y += bar_h + gap
        y += 10
    parts.append("</svg>")
    return "\n".join(parts)


def _summary_table(report: Report, published: Mapping[str, Mapping[str, float]]) -> str:
    rows = ['<table class="summary"><thead><tr><th>category</th><th>items</th><th>correct</th>'
            '<th>accuracy %</th><th>mean s / item</th><th>input tokens</th><th>output tokens</th>'
            '<th>errors</th></tr></thead><tbody>']
    for s in report.summary():
        accuracy = "" if s.accuracy is None else f"{s.accuracy:.2f}"
        rows.append(f"<tr><td>{_e(s.category)}</td><td class=num>{s.count}</td><td class=num>{s.correct}</td>"
                    f"<td class=num>{accuracy}</td><td class=num>{s.mean_seconds:.3f}</td>"
                    f"<td class=num>{s.input_tokens}</td><td class=num>{s.output_tokens}</td>"
                    f"<td class=num>{s.errors}</td></tr>")
    overall = report.overall()
    rows.append(f'<tr><th>overall (mean of categories)</th><td class=num>{len(report.items)}</td>'
                f'<td class=num>{sum(i.valid for i in report.items)}</td>'
                f'<td class=num>{"" if overall is None else f"{overall:.2f}"}</td>'
                '<td></td><td></td><td></td><td></td></tr>')
    rows.append("</tbody></table>")
    if published:
        cats = [c for c in report.categories if any(c in p for p in published.values())]
        rows.append("<h3>Published scores (leaderboard)</h3><table><thead><tr><th>model</th>")
        rows += [f"<th>{_e(c)}</th>" for c in cats]
        rows.append("</tr></thead><tbody>")
        for label, scores in published.items():
            cells = "".join(f"<td class=num>{f'{scores[c]:.2f}' if c in scores else ''}</td>"
                            for c in cats)
            rows.append(f"<tr><td>{_e(label)}</td>{cells}</tr>")
        rows.append("</tbody></table>")
    return "\n".join(rows)


def _no_key_expected(category: str) -> str:
    """What an item without an answer key expects: ``"a call (any)"`` for a relevance category (live_relevance, review
    140: its failed rows read "no call" as expected), ``"no call"`` for an irrelevance one."""
    return "a call (any)" if category_kind(category) == "relevance" else "no call"


def _failures(report: Report) -> str:
    parts: list[str] = []
    for s in report.summary():
        failed = report.failures(s.category)
        if not s.count:
            continue
        head = f"{_e(s.category)}: {len(failed)} failure{'s' if len(failed) != 1 else ''} of {s.count}"
        if not failed:
            parts.append(f'<details><summary>{head}</summary><p class="ok">All items correct.</p></details>')
            continue
        parts.append(f"<details><summary>{head}</summary>")
        reasons: dict[str, int] = {}
        for item in failed:
            reasons[str(item.reason)] = reasons.get(str(item.reason), 0) + 1
        counts = ", ".join(f"{_e(r)}: {n}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
        parts.append(f"<p>{counts}</p>")
        parts.append("<table><thead><tr><th>id</th><th>reason</th><th>what was wrong</th><th>question</th>"
                     "<th>expected</th><th>actual</th></tr></thead><tbody>")
        for item in failed:
            expected = (f'<span class="none">{_no_key_expected(item.category)}</span>' if item.expected is None
                        else f"<pre>{_json(item.expected)}</pre>")
            actual = (f"<pre>{_json(item.actual)}</pre>" if item.actual
                      else '<span class="none">no call</span>')
            if item.text:
                actual += f"<pre>{_e(item.text[:500])}</pre>"
            parts.append(f'<tr id="{_e(item.id)}"><td>{_e(item.id)}</td>'
                         f'<td class="reason">{_e(item.reason)}</td>'
                         f"<td>{_e(item.message)}</td><td>{_e(item.question)}</td>"
                         f"<td>{expected}</td><td>{actual}</td></tr>")
        parts.append("</tbody></table></details>")
    return "\n".join(parts) or "<p>No items scored.</p>"


def render_html(report: Report, published: Mapping[str, Mapping[str, float]]) -> str:
    """Return the whole HTML document of ``report`` (see :func:`toolwire.evals.report.write_html`).

    Args:
        report: the run.
        published: ``{model label: {category: percent}}`` (may be empty).

    Returns:
        The page's text, with U+FFFD in place of any text UTF-8 cannot encode (a lone surrogate), so it can always
        be written.
    """
    return _SURROGATE.sub("\ufffd", _document(report, published))  # (text UTF-8 cannot encode: review 308 #2)


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate (a ``--data`` folder's name that is not UTF-8, a question holding one): U+FFFD on the page."""


def _document(report: Report, published: Mapping[str, Mapping[str, float]]) -> str:
    categories = [s.category for s in report.summary() if s.count]
    chart = render_chart(f"{report.model} (this run)", report.accuracy(), categories, published)
    status = "finished " + _e(report.finished) if report.finished else "unfinished (interrupted or running)"
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{GENERATOR}">',
        f"<title>BFCL report: {_e(report.model)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>BFCL results: {_e(report.model)}</h1>",
        f'<p class="meta">{len(report.items)} items from {_e(report.data_dir or "?")}; started '
        f"{_e(report.started or '?')}, {status}. Scored with toolwire's AST checker (BFCL rules).</p>",
        "<h2>Accuracy per category</h2>",
        chart,
        _summary_table(report, published),
        "<h2>Failures</h2>",
        _failures(report),
        "</body></html>",
        "",
    ])
