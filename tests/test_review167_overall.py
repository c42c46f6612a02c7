"""Review 167 #4: the terminal table's overall row says its accuracy is the mean of the categories' (as the HTML
page does), since its item counts are pooled: 1 of 4 right shows as 50.00."""

from __future__ import annotations

from rich.console import Console

from toolwire.evals.cli import _results_table
from toolwire.evals.report import ItemResult, Report


def test_the_overall_row_says_it_is_the_mean_of_categories() -> None:
    items = [ItemResult("parallel_0", "parallel", True)] + [
        ItemResult(f"simple_python_{i}", "simple_python", False, "wrong_value", "x") for i in range(3)]
    console = Console(width=200, record=True)
    console.print(_results_table(Report("m", ["simple_python", "parallel"], items)))
    row = next(line for line in console.export_text().splitlines() if "overall" in line)
    assert "overall (mean of categories)" in row and "50.00" in row, row
