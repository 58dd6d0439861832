"""Fixtures shared by all test folders: one local Ray for the tests that run real Tuners."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """Start a 2-CPU local Ray once (without the dashboard) and shut it down at the end."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
