"""The cost-per-parameter benchmark runs end to end at a tiny size and writes its table."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import __main__ as cli
from benchmarks._harness import RESULTS_ENV


def test_dims_writes_a_row_per_size_with_the_ratio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("benchmarks.dims.QUICK_DIMS", (3, 70))  # past numpy's 64 axes
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    cli.main(["dims", "--quick", "--trials", "14", "--repeats", "1"])
    text = (tmp_path / "dims.md").read_text()
    rows = [ln.strip("|").split("|") for ln in text.splitlines() if ln.startswith("| ")][1:]
    assert [int(r[0]) for r in rows] == [3, 70]
    for r in rows:
        tree, tpe, ratio = (float(c) for c in r[1:])
        assert tree > 0 and tpe > 0
        assert ratio == pytest.approx(tree / tpe, rel=0.05, abs=0.01)  # of rounded figures
