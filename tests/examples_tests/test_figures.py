"""The figure scripts of examples/ run in their --smoke mode; their outputs are checked."""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.image import imread  # noqa: E402

from examples import figure_gp  # noqa: E402
from examples import figure_partition  # noqa: E402
from examples import figure_regret  # noqa: E402


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _assert_png(path: Path) -> None:
    image = imread(path)
    assert image.shape[0] > 200 and image.shape[1] > 200
    assert np.ptp(image[..., :3]) > 0.5  # not a blank canvas


@pytest.fixture(scope="module")
def partition_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("partition")
    figure_partition.main(["--smoke", "--out", str(out)])
    return out


@pytest.fixture(scope="module")
def gp_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gp")
    figure_gp.main(["--smoke", "--out", str(out)])
    return out


@pytest.fixture(scope="module")
def regret_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("regret")
    figure_regret.main(["--smoke", "--out", str(out)])
    return out


# -- figure_partition ---------------------------------------------------------------------------
def test_partition_boxes_tile_the_square(partition_out: Path) -> None:
    _assert_png(partition_out / "figure_partition.png")
    rows = _rows(partition_out / "figure_partition.csv")
    boxes = [r for r in rows if r["kind"] == "box"]
    low = np.array([[float(r["x_low"]), float(r["y_low"])] for r in boxes])
    high = np.array([[float(r["x_high"]), float(r["y_high"])] for r in boxes])
    assert len(boxes) >= 4
    assert np.all(low >= 0) and np.all(high <= 1) and np.all(high > low)
    # CSV values have 6 significant digits
    np.testing.assert_allclose(np.prod(high - low, axis=1).sum(), 1.0, atol=1e-4)
    for i, j in itertools.combinations(range(len(boxes)), 2):
        overlap = np.minimum(high[i], high[j]) - np.maximum(low[i], low[j])
        assert not np.all(overlap > 1e-5), (boxes[i], boxes[j])


def test_partition_points_counts_and_next_box_are_consistent(partition_out: Path) -> None:
    rows = _rows(partition_out / "figure_partition.csv")
    boxes = [r for r in rows if r["kind"] == "box"]
    points = np.array(
        [[float(r["x_low"]), float(r["y_low"])] for r in rows if r["kind"] == "point"]
    )
    assert points.shape == (60, 2)  # --smoke plays 60 rounds
    assert sum(int(r["n_obs"]) for r in boxes) == 60
    assert sum(int(r["chosen_next"]) for r in boxes) == 1
    # a box's count is the number of played points inside it (6-digit CSV: skip edge cases)
    for r in boxes:
        lo = np.array([float(r["x_low"]), float(r["y_low"])])
        hi = np.array([float(r["x_high"]), float(r["y_high"])])
        inside = np.all((points > lo + 1e-5) & (points < hi - 1e-5), axis=1).sum()
        maybe = np.all((points > lo - 1e-5) & (points < hi + 1e-5), axis=1).sum()
        assert inside <= int(r["n_obs"]) <= maybe
    # the box chosen next has the largest index
    chosen = next(r for r in boxes if r["chosen_next"] == "1")
    assert float(chosen["index"]) == pytest.approx(max(float(r["index"]) for r in boxes))


# -- figure_gp ------------------------------------------------------------------------------------
def test_gp_soft_means_leave_the_tree_estimate_and_smooth_as_alpha_falls(gp_out: Path) -> None:
    _assert_png(gp_out / "figure_gp.png")
    rows = _rows(gp_out / "figure_gp.csv")
    curves = {k: np.array([float(r[k]) for r in rows]) for k in figure_gp.curve_names()}
    soft = [f"GP_S{i}" for i in range(1, len(figure_gp.ALPHAS) + 1)]  # alpha increasing
    assert list(figure_gp.ALPHAS) == sorted(figure_gp.ALPHAS)
    tree = curves["tree"]

    def distance(k: str) -> float:
        return float(np.abs(curves[k] - tree).mean())

    def max_slope(k: str) -> float:  # the curve's Lipschitz constant on the grid
        return float(np.abs(np.diff(curves[k])).max())

    tv = {k: figure_gp.total_variation(c) for k, c in curves.items()}
    # GP_H is the tree estimate shrunk towards the prior mean: the closest curve to it
    assert distance("GP_H") < min(distance(k) for k in soft)
    # the smoothest kernel is the farthest from the tree, with far less variation than any
    # other curve
    assert distance("GP_S1") == max(distance(k) for k in soft)
    assert tv["GP_S1"] < 0.7 * min(v for k, v in tv.items() if k != "GP_S1")
    # the Lipschitz constant of the posterior mean falls with alpha, step by step
    slopes = [max_slope(k) for k in soft]
    assert all(a < b for a, b in zip(slopes, slopes[1:])), slopes
    assert max_slope("GP_S1") < max_slope("tree")


def test_gp_kernels_are_symmetric_and_hard_one_is_an_indicator(gp_out: Path) -> None:
    rows = _rows(gp_out / "figure_gp_kernel.csv")
    n = int(math.isqrt(len(rows)))
    assert n * n == len(rows)
    hard = np.array([float(r["k_hard"]) for r in rows]).reshape(n, n)
    soft_key = next(k for k in rows[0] if k.startswith("k_soft"))
    soft = np.array([float(r[soft_key]) for r in rows]).reshape(n, n)
    assert set(np.unique(hard)) <= {0.0, 1.0}
    np.testing.assert_array_equal(np.diag(hard), 1.0)
    np.testing.assert_allclose(hard, hard.T)
    np.testing.assert_allclose(soft, soft.T, atol=1e-6)
    assert np.all(np.linalg.eigvalsh(soft) > -1e-4)  # positive semi-definite
    assert 2 <= np.unique(hard, axis=0).shape[0]  # several boxes


# -- figure_regret --------------------------------------------------------------------------------
def test_regret_point_scattering_sum_never_exceeds_the_bound(regret_out: Path) -> None:
    _assert_png(regret_out / "figure_regret.png")
    rows = _rows(regret_out / "figure_regret.csv")
    incremental = [r for r in rows if r["method"].endswith("incremental")]
    assert {r["function"] for r in incremental} == {"1-D", "2-D"}
    runs: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for r in incremental:
        runs.setdefault((r["function"], r["method"], r["seed"]), []).append(r)
    assert len(runs) == 4
    for key, run in runs.items():
        t = np.array([int(r["t"]) for r in run])
        np.testing.assert_array_equal(t, np.arange(1, t.size + 1))
        n_prev = np.array([float(r["n_prev"]) for r in run])
        n_boxes = np.array([float(r["n_boxes"]) for r in run])
        measured = np.array([float(r["scatter_sum"]) for r in run])
        bound = np.array([float(r["bound"]) for r in run])
        # the CSV's columns are what they claim to be
        np.testing.assert_allclose(measured, np.cumsum(1 / np.maximum(n_prev, 1)), rtol=1e-5)
        np.testing.assert_allclose(
            bound, math.e * n_boxes * np.log1p((math.e - 1) * t / n_boxes), rtol=1e-5
        )
        assert np.all(np.diff(n_boxes) >= 0), key  # nested partitions only grow
        assert np.all(n_prev <= t - 1)
        assert np.all(measured <= bound), key


def test_regret_is_measured_against_the_maximum(regret_out: Path) -> None:
    rows = _rows(regret_out / "figure_regret.csv")
    regret = np.array([float(r["regret"]) for r in rows])
    assert np.all(regret >= -1e-4)
    assert {r["method"] for r in rows} == set(figure_regret.METHODS)
    last = max(int(r["t"]) for r in rows)
    for function in ("1-D", "2-D"):
        final = {
            r["method"]: float(r["cum_regret"])
            for r in rows
            if r["function"] == function and int(r["t"]) == last
        }
        random = final.pop("uniform random")
        assert np.mean(list(final.values())) < random, (function, final, random)


def test_gp_legend_covers_no_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    figure_gp.draw(figure_gp.compute(n_samples=60, seed=0, n_grid=100, n_kernel=20), tmp_path)
    (fig,) = saved
    fig.canvas.draw()
    top = fig.axes[0]
    legend = top.get_legend()
    assert legend is not None
    overlap = Bbox.intersection(legend.get_window_extent(), top.get_window_extent())
    assert overlap is None or overlap.width * overlap.height == 0


def test_regret_curves_are_told_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # log scale (random search would flatten TreeUCB's curves), soft_gp dash-dotted, and the
    # refit rule's point-scattering curve says why it has no bound
    from matplotlib.figure import Figure

    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    figure_regret.draw(figure_regret.compute(n_rounds=30, n_seeds=2), tmp_path)
    (fig,) = saved
    regret_axes = fig.axes[0::2]
    for ax in regret_axes:
        assert ax.get_yscale() == "log"
        styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
        assert (
            styles["TreeUCB soft_gp, refit"] == "-." and styles["TreeUCB hoeffding, refit"] == "-"
        )
    legend = fig.axes[1].get_legend()
    assert legend is not None
    texts = [t.get_text() for t in legend.get_texts()]
    assert "refit: measured sum (not nested: no bound)" in texts


@pytest.mark.parametrize("n_seeds", [1, 2])
def test_regret_band_and_label_need_two_seeds(
    n_seeds: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # --smoke runs one seed: a "±1 s.e." band would claim a spread that was never measured
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure

    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    figure_regret.draw(figure_regret.compute(n_rounds=20, n_seeds=n_seeds), tmp_path)
    (fig,) = saved
    for ax in fig.axes[0::2]:
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert bool(bands) == (n_seeds > 1)
        assert ("s.e." in ax.get_ylabel()) == (n_seeds > 1)
    for ax in fig.axes:
        assert ("mean" in ax.get_ylabel()) == (n_seeds > 1)
