"""Fixtures shared by all test folders: one local Ray for the tests that run real Tuners."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """Start a 2-CPU local Ray once (without the dashboard) and shut it down at the end."""
    import ray

    # Workers import the trainables' modules (examples.*) from the driver's working directory
    # at ray.init: start from the repository root whatever folder the first test moved into.
    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parents[1])
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        os.chdir(cwd)
    yield
    ray.shutdown()


# Property tests explore new examples on a developer's machine but replay a fixed set in CI,
# so that a CI run is reproducible (failures found locally are kept as regression tests).
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
