"""A partition with known boxes, for tests of the parts that read a Partition."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class TwoBoxes:
    """The cube [0, 1]^d cut at x0 = 0.5: box 0 is ``x0 <= 0.5``, box 1 the rest."""

    def __init__(self, d: int) -> None:
        self.low = np.zeros((2, d))
        self.high = np.ones((2, d))
        self.high[0, 0] = self.low[1, 0] = 0.5
        self.leaf_of = np.zeros(0, dtype=np.intp)
        self.version = 1

    @property
    def n_leaves(self) -> int:
        return 2

    def update(
        self, X: np.ndarray, r: np.ndarray, rewards_of: Callable[[int], np.ndarray] | None = None
    ) -> None:
        self.leaf_of = self.locate(X)

    def locate(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X)[:, 0] > 0.5).astype(np.intp)
