"""Benchmark tests write their tables to a temporary folder, never to the committed results."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._harness import RESULTS_ENV


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path``, made the default ``--out`` of every benchmark command."""
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    return tmp_path
