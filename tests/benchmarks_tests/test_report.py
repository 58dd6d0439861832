"""The paired statistics of the benchmarks (``benchmarks/_report.py``), on hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks._report import FLOOR
from benchmarks._report import geomean
from benchmarks._report import geomean_curve
from benchmarks._report import mean_ranks
from benchmarks._report import normalised_regret
from benchmarks._report import paired
from benchmarks._report import problem_table


def test_paired_log_ratio_mean_se_and_win_rate() -> None:
    a = np.array([1.0, 2.0, 4.0, 3.0])
    b = np.array([2.0, 2.0, 1.0, 3.0])
    st = paired(a, b)
    diff = np.log(a) - np.log(b)  # -log 2, 0, log 4, 0
    np.testing.assert_allclose(st.mean, diff.mean())
    np.testing.assert_allclose(st.se, diff.std(ddof=1) / 2.0)
    assert st.win == pytest.approx(0.5)  # one win, two ties (1/2 each), one loss
    assert st.n == 4
    assert str(st) == f"{diff.mean():+.3f} ± {diff.std(ddof=1) / 2.0:.3f}"
    np.testing.assert_allclose(st.ratio, np.exp(diff.mean()))


def test_paired_floors_regrets_so_solved_runs_tie() -> None:
    st = paired([0.0, 1e-9], [1e-7, 0.0])
    assert st.mean == 0.0 and st.win == 0.5
    np.testing.assert_allclose(paired([0.0], [1.0]).mean, math.log(FLOOR))


def test_paired_of_one_run_has_no_standard_error() -> None:
    assert math.isnan(paired([1.0], [2.0]).se)
    assert paired([], []).n == 0


def test_paired_takes_a_coarser_floor() -> None:
    np.testing.assert_allclose(paired([0.0], [1e-2], floor=1e-3).mean, math.log(0.1))


def test_geomean() -> None:
    np.testing.assert_allclose(geomean([1.0, 4.0]), 2.0)
    np.testing.assert_allclose(geomean(x for x in (0.0, 1.0)), math.sqrt(FLOOR))
    np.testing.assert_allclose(geomean_curve([[1.0, 4.0], [4.0, 1.0]]), [2.0, 2.0])


def test_mean_ranks_share_ties() -> None:
    values = np.array([[1.0, 5.0, 2.0], [2.0, 5.0, 1.0], [3.0, 1.0, 3.0]])
    np.testing.assert_allclose(mean_ranks(values), [(1 + 2.5 + 2) / 3, (2 + 2.5 + 1) / 3, 7 / 3])


def test_a_failed_run_ranks_last() -> None:
    np.testing.assert_allclose(mean_ranks(np.array([[np.nan], [2.0], [1.0]])), [3.0, 2.0, 1.0])


def _run(sampler: str, seed: int, true: list[float], seeded: bool) -> dict[str, object]:
    values = np.array(true)
    return {
        "sampler": sampler,
        "problem": "p",
        "seed": seed,
        "obs": values,
        "true": values,
        "scale": math.nan,
        "seeded": seeded,
    }


@pytest.mark.parametrize("seeded", [False, True])
def test_regret_is_against_the_best_of_the_same_instance_when_the_seed_draws_it(
    seeded: bool,
) -> None:
    # seed 1's instance has its optimum 100 higher: against the best of both seeds, its runs
    # carried an offset of 100 and the log-ratio of its two samplers shrank to nearly 0
    runs = [
        _run("A", 0, [3.0, 1.0], seeded),
        _run("B", 0, [3.0, 2.0], seeded),
        _run("A", 1, [103.0, 101.0], seeded),
        _run("B", 1, [103.0, 102.0], seeded),
    ]
    normalised_regret(runs)
    if seeded:  # per seed: best 1 (101), median of all its trials 2.5 (102.5)
        expected = [[2 / 1.5, 0.0], [2 / 1.5, 1 / 1.5], [2 / 1.5, 0.0], [2 / 1.5, 1 / 1.5]]
    else:  # one best (1) and one median (52) for both seeds
        expected = [
            [2 / 51, 0.0],
            [2 / 51, 1 / 51],
            [102 / 51, 100 / 51],
            [102 / 51, 101 / 51],
        ]
    for run, row in zip(runs, expected):
        np.testing.assert_allclose(run["regret"], row)


def test_problem_table_gives_each_problems_median_regret_over_seeds() -> None:
    # regrets by hand: best 0 over both samplers of each seed, spread = median of all trials
    runs = [
        {**_run("A", 0, [4.0, 0.0], True), "problem": "p"},
        {**_run("B", 0, [4.0, 2.0], True), "problem": "p"},
        {**_run("A", 1, [4.0, 2.0], True), "problem": "p"},
        {**_run("B", 1, [4.0, 0.0], True), "problem": "p"},
        {**_run("A", 2, [4.0, 3.0], True), "problem": "p"},
        {**_run("B", 2, [4.0, 0.0], True), "problem": "p"},
        {**_run("A", 0, [1.0], True), "problem": "q"},  # shorter than 2 trials: missing
        {**_run("B", 0, [1.0, 1.0], True), "problem": "q"},
    ]
    normalised_regret(runs)
    # p: medians of all trials per seed 3, 3 and 3.5; A's regrets 0, 2/3, 3/3.5, median 2/3
    text = problem_table(runs, ["A", "B"], 2)
    lines = text.strip().splitlines()
    assert lines[0] == "### Median regret over seeds after 2 trials"
    assert lines[2:4] == ["| problem | A | B |", "|---|---|---|"]
    assert lines[4] == "| p | 0.667 | 0.000 |"
    assert lines[5] == "| q | - | 0.000 |"
