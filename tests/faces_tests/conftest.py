"""The ``face`` fixture: every test that takes it runs on TreeUCBSampler and on TreeUCBSearch."""

from __future__ import annotations

import optuna
import pytest

from tests.faces_tests.faces import Face

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.fixture(params=["optuna", "ray"])
def face(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Face:
    """A face (see ``faces.py``): ``face.make(space, **options)`` gives a driver."""
    return Face(request.param, monkeypatch)
