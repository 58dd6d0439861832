"""apply_tree routes points as scikit-learn's DecisionTreeRegressor.apply does."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from optuna_treeucb.core._partition import apply_tree


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 3, 8, 9, 500])  # both the per-point and the batched walk
def test_same_leaves_as_scikit_learn(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.random((600, 3))
    y = np.sin(X @ np.arange(1.0, 4.0)) + 0.1 * rng.standard_normal(600)
    tree = DecisionTreeRegressor(criterion="absolute_error", random_state=0).fit(X, y)
    split = tree.tree_.feature >= 0
    feature, threshold = tree.tree_.feature[split], tree.tree_.threshold[split]
    on = rng.random((feature.size, 3))
    on[np.arange(feature.size), feature] = threshold  # exactly on a threshold: goes left
    above = on.copy()
    above[np.arange(feature.size), feature] = np.nextafter(threshold, 2.0)
    corners = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    for points in (rng.random((n, 3)), on[:n], above[:n], corners):
        expected = tree.apply(points.astype(np.float32))
        np.testing.assert_array_equal(apply_tree(tree.tree_, points), expected)
