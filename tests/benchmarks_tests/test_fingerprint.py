"""The fingerprint tool hashes reproducible runs, and tells apart runs that differ."""

from __future__ import annotations

from benchmarks import fingerprint


def test_fingerprints_are_reproducible_and_tell_runs_apart() -> None:
    first = {
        **fingerprint.core_fingerprints(n_asks=16),
        **fingerprint.optuna_fingerprints(n_trials=12),
        **fingerprint.ray_fingerprints(n_trials=12),
    }
    assert len(first) == 12
    again = {
        **fingerprint.core_fingerprints(n_asks=16),
        **fingerprint.optuna_fingerprints(n_trials=12),
        **fingerprint.ray_fingerprints(n_trials=12),
    }
    assert again == first
    longer = fingerprint.core_fingerprints(n_asks=17)
    assert all(longer[k] != first[k] for k in longer if not k.endswith("posterior"))
    assert len(set(first.values())) == len(first)
