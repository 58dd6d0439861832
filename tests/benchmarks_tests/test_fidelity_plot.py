"""The fidelity benchmark's figure reads as a figure in a paper: one colour per sampler in every
panel, and one legend, readable at the README's width, that covers no panel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from benchmarks import fidelity


def _logs(pruners: list[str], seeds: list[int]) -> dict:
    rng = np.random.default_rng(0)
    logs = {}
    for pruner in pruners:
        for sampler in fidelity._samplers(pruner, "curves"):
            for seed in seeds:
                steps = np.cumsum(rng.integers(5, 27, 60))
                values = 0.3 * np.exp(-steps / 400) + 0.01 * rng.random(60)
                logs[("curves", pruner, sampler, seed, 60)] = [
                    (int(s), float(v), float(v)) for s, v in zip(steps, values)
                ]
    return logs


def test_a_sampler_has_one_colour_in_every_panel_and_the_legend_is_readable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    pruners = list(fidelity.PRUNERS)
    fidelity.plot(_logs(pruners, [0, 1]), "curves", pruners, [0, 1], 60, 0.0, tmp_path / "f.png")
    (fig,) = saved
    fig.canvas.draw()
    colour: dict[str, tuple] = {}
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(pruners)
    for ax in panels:
        for line in ax.get_lines():
            c = tuple(line.get_color())
            assert colour.setdefault(line.get_label(), c) == c, line.get_label()
    assert len(set(colour.values())) == len(colour)  # and different samplers differ
    (legend,) = fig.legends
    assert {t.get_text() for t in legend.get_texts()} == set(colour)
    # README width is about 900 px: the figure is drawn at that width, so points stay points
    assert fig.get_figwidth() * fig.dpi <= 1000
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 9
    for ax in panels:
        overlap = Bbox.intersection(legend.get_window_extent(), ax.get_window_extent())
        assert overlap is None or overlap.width * overlap.height == 0
