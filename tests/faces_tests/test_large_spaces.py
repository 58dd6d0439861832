"""Huge integer and fine float grids (issue 11, defects 1 and 2): ``suggest_int("a", 0, 10**12)``
and ``tune.randint(0, 10**12)`` raised MemoryError once the model took over.  (A float on
[-1e308, 1e308], defect 2, is tested on the searcher only: Optuna's RandomSampler, which draws
the sampler's first trial, overflows on that range.)"""

from __future__ import annotations

import math

import numpy as np

from tests.faces_tests.faces import Face
from tests.faces_tests.faces import Float
from tests.faces_tests.faces import Int

HUGE = {
    "a": Int(0, 10**12),
    "b": Int(0, 999_999_999, step=3),
    "c": Float(0.0, 1.0, step=1e-9),
}


def test_huge_grids_suggest_legal_values(face: Face) -> None:
    run = face.make(HUGE, seed=0, n_startup_trials=5)
    rng = np.random.default_rng(0)
    params = run.run(45, lambda p: float(rng.random()))
    for p in params:
        a, b, c = p["a"], p["b"], p["c"]
        assert type(a) is int and 0 <= a <= 10**12
        assert type(b) is int and 0 <= b <= 999_999_999 and b % 3 == 0
        assert 0.0 <= c <= 1.0 and math.isclose(c, round(c * 1e9) * 1e-9, abs_tol=1e-15)
    for name in HUGE:  # the model spreads its points, never a constant
        assert len({p[name] for p in params[5:]}) >= 30
    # every parameter is a column of the model (none left to an independent sampler)
    assert sorted(run.model().space.names) == sorted(HUGE)
