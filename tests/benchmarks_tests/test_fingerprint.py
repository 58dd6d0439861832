"""Seeded runs of the core, the sampler and the searcher keep the golden fingerprints.

``fingerprints.json`` was written by ``python -m benchmarks.fingerprint --write`` before the
core was split (issue #22): the same seeds must suggest the same points after any refactor.
A change of behaviour that is meant rewrites the file and says why in its commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import fingerprint

GOLDEN = json.loads((Path(__file__).parent / "fingerprints.json").read_text())


@pytest.mark.parametrize(
    "run",
    [fingerprint.core_fingerprints, fingerprint.optuna_fingerprints, fingerprint.ray_fingerprints],
)
def test_fingerprints_match_the_golden_ones(run: object) -> None:
    got = run()  # type: ignore[operator]
    assert got  # each run hashes some cases
    assert {k: GOLDEN.get(k) for k in got} == got


def test_fingerprints_tell_runs_apart() -> None:
    assert len(set(GOLDEN.values())) == len(GOLDEN)
    shorter = fingerprint.core_fingerprints(n_asks=16)
    assert all(shorter[k] != GOLDEN[k] for k in shorter if not k.endswith("posterior"))


def test_the_cores_default_is_the_papers_uniform_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    # the core's default changed from the HPO recipe to sampling="uniform" (issue #22): a run
    # without options is the golden uniform run; the wrappers' default stays "local_gp"
    monkeypatch.setattr(fingerprint, "CORE_CASES", {"uniform": {}})
    got = fingerprint.core_fingerprints()
    assert got["core uniform"] == GOLDEN["core uniform"]
    assert got["core uniform posterior"] == GOLDEN["core uniform posterior"]
