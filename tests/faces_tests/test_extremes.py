"""A diverged trial (a value near 1e160) among ordinary ones (issue 21, defect 1): on the
sampler every trial from the 10th on failed with ``ValueError: a cannot be empty`` in the local
GP; on the searcher it made every later ``suggest`` raise, which aborted ``Tuner.fit``."""

from __future__ import annotations

import pytest

from tests.faces_tests.faces import Face
from tests.faces_tests.faces import Float

SPACE = {f"x{i}": Float(-1.0, 1.0) for i in range(3)}


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_a_diverged_trial_leaves_the_face_suggesting(face: Face, direction: str) -> None:
    run = face.make(SPACE, directions=[direction], seed=0)
    params = []
    for i in range(30):
        trial = run.ask()  # raised from the 10th trial on
        assert set(trial.params) == set(SPACE)
        params.append(trial.params)
        value = sum((x - 0.2) ** 2 for x in trial.params.values())
        run.tell(trial, 1e160 if i == 3 else value)
    assert all(-1.0 <= x <= 1.0 for p in params for x in p.values())
    assert run.model().n_observations == 30  # every trial told, the diverged one included
