"""``python -m benchmarks ray_compare`` end to end: real Tuner runs of every searcher, tiny.

Needs hyperopt and nevergrad (the ``benchmarks`` extra) besides Ray and ioh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import __main__ as cli
from benchmarks import ray_compare
from benchmarks._harness import RESULTS_ENV

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("ray_session")]


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of ``text``, as rows of cells (header row first)."""
    tables: list[list[list[str]]] = []
    previous = False
    for line in text.splitlines():
        row = line.startswith("| ")
        if row and "---" not in line:
            if not previous:
                tables.append([])
            tables[-1].append([c.strip() for c in line.strip("|").split("|")])
        previous = line.startswith("|")
    return tables


def test_ray_compare_writes_ranks_regrets_and_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    argv = ["--problems", "bbob-f08-5d-noisy", "--seeds", "1", "--trials", "6", "--no-plot"]
    cli.main(["ray_compare", *argv])
    text = (tmp_path / "ray_compare.md").read_text()
    assert f"Command: `python -m benchmarks ray_compare {' '.join(argv)}`." in text
    assert "Failed runs" not in text
    assert "### After 6 trials" in text
    ranks, times = _tables(text)
    # one group (bbob-noisy) plus overall: rank, regret, then the win rate vs OptunaSearch
    assert ranks[0] == [
        "searcher",
        "rank bbob-noisy",
        "rank overall",
        "regret bbob-noisy",
        "regret overall",
        f"win rate vs {ray_compare.REFERENCE}",
    ]
    assert sorted(r[0] for r in ranks[1:]) == sorted(ray_compare.SEARCHERS)
    # one (problem, seed) cell: the ranks of five searchers are a permutation of 1..5 (ties
    # share their mean), so they sum to 15
    assert sum(float(r[2]) for r in ranks[1:]) == pytest.approx(15.0)
    assert all(1.0 <= float(r[2]) <= 5.0 for r in ranks[1:])
    assert all(float(r[4]) > 0.0 for r in ranks[1:])
    assert [r[0] for r in times[1:]] == list(ray_compare.SEARCHERS)
    for row in times[1:]:
        assert row[1:3] == ["1", "0"]  # one run, none failed
        assert float(row[3]) > 0.0 and float(row[4]) > 0.0


def test_ray_compare_rejects_an_unknown_searcher(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="Unknown searcher 'SMAC'"):
        cli.main(["ray_compare", "--searchers", "SMAC", "--out", str(tmp_path)])
    assert not list(tmp_path.iterdir())
