"""ParamAxis draws unit coordinates in a parameter's units, on any grid size."""

from __future__ import annotations

import numpy as np

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.visualization._param_axis import ParamAxis


def test_huge_int_grid_axis_runs_between_the_outer_bin_edges() -> None:
    spec = ParamSpec("a", "int", low=0, high=10**12)
    axis = ParamAxis(spec)
    assert axis.limits == (-0.5, 10**12 + 0.5)
    # grid value k sits at the centre of its bin
    for k in (0, 123_456_789, 10**12):
        centre = (spec.bin_edge(k) + spec.bin_edge(k + 1)) / 2
        np.testing.assert_allclose(axis.to_plot(centre), k, rtol=1e-12, atol=1e-3)


def test_log_grid_axis_matches_interpolation_between_the_bin_edges() -> None:
    # the ParamAxis before issue 11 interpolated between the bin edges of values 1, 3, .., 63
    spec = ParamSpec("k", "int", low=1, high=63, step=2, log=True)
    edges = spec.bin_edges
    assert edges is not None
    mids = np.array([2.0 * j for j in range(33)])  # midpoints 2, 4, .., 62 and 64
    mids[0] = 1.0  # low - step / 2 <= 0 on a log axis: the first bin keeps its upper half
    u = np.linspace(0.0, 1.0, 101)
    expected = np.exp(np.interp(u, edges, np.log(mids)))
    np.testing.assert_allclose(ParamAxis(spec).to_plot(u), expected, rtol=1e-12)
