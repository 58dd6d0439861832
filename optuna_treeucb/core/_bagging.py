"""Bagged box means (``bagging``): lower-variance means for the index on noisy data.

The paper's index ranks the boxes by the mean reward of their observations.  Under noise a
box's mean over few observations is mostly noise, and an almost greedy index (small ``C``)
plays the box whose few observations were the luckiest.  Bagging (Breiman, "Bagging
predictors", Machine Learning 1996) averages regression trees fitted on bootstrap replicates
of the data; its prediction pools the observations of many overlapping leaves, so it varies
less than one tree's leaf mean.

:class:`BaggedTrees` keeps ``B`` such trees beside the partition; TreeUCB keeps the partition
(one deterministic tree: the boxes that are played) and replaces only the mean of a box in its
index by the trees' mean prediction at the box's centre (:meth:`BaggedTrees.box_means`).

* **Bootstrap as Poisson weights** (online bagging, Oza and Russell, AISTATS 2001): tree ``k``
  gives observation ``i`` the weight ``w_ki ~ Poisson(1)``, the limit of a bootstrap
  replicate's multiplicity.  The weights are drawn from a stream per tree seeded by the
  core's seed, in the order of the observations, so they are a function of the seed and the
  observations only: a model rebuilt from the same data (a resumed study) gets the same trees.
* **Trees** are scikit-learn's :class:`~sklearn.tree.DecisionTreeRegressor` with the
  partition's criterion and ``min_impurity_decrease`` (all features at every split, as
  ``BaggingRegressor`` of trees), fitted with ``sample_weight`` on the partition's schedule
  (the data grew by ``refit_fraction``), on the same rewards as the partition.
* **Leaf values from today's rewards**: a leaf's value is the ``w``-weighted mean of the
  *current* rewards of the observations in it, recomputed at every ask (O(B n)), so the
  estimate follows the rewards (ranks change with every observation) and counts the points
  told since the last fit, which draw their weights as they arrive.
* **At the box's centre, as 2 observations**: :meth:`BaggedTrees.box_means` is the trees'
  mean prediction at a box's centre, and TreeUCB shrinks the box's own mean toward it,
  ``(n m + 2 b) / (n + 2)`` (``BAGGING_PSEUDO_COUNT`` in :mod:`optuna_treeucb.core._treeucb`),
  so a box of one or two lucky observations is pulled toward its neighbourhood while a box
  of many keeps its own mean.  The bagged value alone, in the index, lost clearly to the
  plain mean in the paired benchmarks, even under strong noise (it blurs the box that holds
  the incumbent); shrunk, it loses less.  Among bagged values, the one at the centre ranked
  the boxes closer to their true mean than the mean of the predictions at the box's
  observations or of their out-of-bag predictions (``benchmarks/results/bagging.md``).

With one tree and every weight 1 the prediction at a box's centre is its CART leaf's mean, so
the bagged box means equal the plain ones when the boxes are the tree's leaves
(``cap_gamma=None``).

Notations:
    n: observations; B: trees; d: dimensions.
    X: shape (n, d), values in [0, 1].  r: rewards, shape (n,), values in [0, 1].
    W: Poisson weights, shape (B, n).  leaf: leaf node of each observation per tree, (B, n).
    low, high: box bounds, shape (L, d).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sklearn
from sklearn.tree import DecisionTreeRegressor

from optuna_treeucb.core._partition import apply_tree
from optuna_treeucb.core._partition import refit_size

_STREAM = 0xBA66  # keeps the trees' weight streams apart from any other use of the seed


class BaggedTrees:
    """``B`` regression trees on Poisson-bootstrap replicates of the observations.

    Args:
        d: Number of columns of the observations.
        n_trees: Number of trees ``B``, >= 1.
        criterion: Split criterion of :class:`~sklearn.tree.DecisionTreeRegressor`.
        min_impurity_decrease: Stop splitting below this reduction of the criterion.
        refit_fraction: Refit once the observations have grown by this fraction (at least
            one) since the last fit; ``0`` refits at every new observation.
        entropy: Seed of the weight streams (e.g. ``np.random.SeedSequence(seed).entropy``).
        bootstrap: ``False`` gives every observation the weight 1 in every tree (for tests:
            one such tree is the partition's CART).
    """

    def __init__(
        self,
        d: int,
        n_trees: int,
        *,
        criterion: str,
        min_impurity_decrease: float,
        refit_fraction: float,
        entropy: int,
        bootstrap: bool = True,
    ) -> None:
        self.d = d
        self.n_trees = n_trees
        self.criterion = criterion
        self.min_impurity_decrease = min_impurity_decrease
        self.refit_fraction = refit_fraction
        self.bootstrap = bootstrap
        seeds = np.random.SeedSequence([_STREAM, entropy]).spawn(n_trees)
        self._streams = [np.random.default_rng(s) for s in seeds]
        self._W = np.zeros((n_trees, 0))
        self._leaf = np.zeros((n_trees, 0), dtype=np.intp)
        self._trees: list[DecisionTreeRegressor] = []
        self._kept = np.zeros(0, dtype=np.intp)  # the tree index k of each fitted tree
        self._n_fit = 0
        self._centres: np.ndarray | None = None  # box centres of the cached leaves below
        self._centre_leaf = np.zeros((n_trees, 0), dtype=np.intp)

    @property
    def n_fit(self) -> int:
        """Observations the trees were last fitted on (0: not fitted)."""
        return self._n_fit

    def fit_size(self, n: int) -> int:
        """Observations the trees are fitted on when there are ``n``: the last point not above
        ``n`` of the schedule ``m -> m + max(1, ceil(refit_fraction * m))`` from 0 (the
        partition's, :meth:`~optuna_treeucb.core.RefitPartition.fit_size`)."""
        return refit_size(n, self._n_fit, self.refit_fraction)

    def weights(self, n: int) -> np.ndarray:
        """The Poisson weights of the first ``n`` observations, shape (B, n)."""
        have = self._W.shape[1]
        if n > have:
            if self.bootstrap:
                new = np.array([s.poisson(1.0, n - have) for s in self._streams], dtype=float)
            else:
                new = np.ones((self.n_trees, n - have))
            self._W = np.hstack((self._W, new.reshape(self.n_trees, n - have)))
        return self._W[:, :n]

    def update(
        self,
        X: np.ndarray,
        r: np.ndarray,
        rewards_of: Callable[[int], np.ndarray] | None = None,
    ) -> None:
        """Bring the trees up to date with all observations ``X`` (rewards ``r``).

        ``rewards_of(m)``: the rewards the first ``m`` observations had on their own, used
        for a fit on fewer than all observations (``None``: ``r[:m]``).
        """
        n = X.shape[0]
        W = self.weights(n)
        m = self.fit_size(n)
        if m >= 2 and m != self._n_fit:
            rm = r[:m] if m == n or rewards_of is None else rewards_of(m)
            trees, kept = [], []
            for k in range(self.n_trees):
                rows = np.flatnonzero(W[k, :m] > 0)
                tree = DecisionTreeRegressor(
                    criterion=self.criterion,
                    min_impurity_decrease=self.min_impurity_decrease,
                    random_state=k,
                )
                if rows.size:
                    # the options were checked by the option table (as in RefitPartition)
                    with sklearn.config_context(skip_parameter_validation=True):
                        tree.fit(X[rows], rm[rows], sample_weight=W[k, rows])
                    trees.append(tree)
                    kept.append(k)
            self._trees = trees
            self._kept = np.array(kept, dtype=np.intp)
            self._centres = None
            self._n_fit = m
            self._leaf = np.zeros((len(trees), 0), dtype=np.intp)
        if self._trees and n > self._leaf.shape[1]:
            new = X[self._leaf.shape[1] :]
            self._leaf = np.hstack(
                (self._leaf, np.array([apply_tree(t.tree_, new) for t in self._trees]))
            )

    def box_means(self, low: np.ndarray, high: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Bagged prediction of the reward at the centre of every box, shape (L,).

        Leaf values are the weight-weighted means of the current rewards ``r`` of the
        observations (see the module docstring); the prediction is their mean over the trees
        at the box's centre.  Before the first fit every box gets the mean of ``r``.

        Args:
            low, high: Box bounds, shape (L, d), values in [0, 1].
            r: Current rewards of the observations that :meth:`update` saw, shape (n,).
        """
        n = r.shape[0]
        if not self._trees:
            return np.full(low.shape[0], float(np.mean(r)) if n else 1.0)
        assert self._leaf.shape[1] == n, "update() locates every observation first"
        centres = 0.5 * (low + high)
        if self._centres is None or not np.array_equal(self._centres, centres):
            self._centres = centres  # the partition changes at its refits only
            self._centre_leaf = np.array([apply_tree(t.tree_, centres) for t in self._trees])
        W = self.weights(n)[self._kept]  # a tree with no weight at its fit was not fitted
        out = np.zeros(low.shape[0])
        for k, tree in enumerate(self._trees):
            size = tree.tree_.node_count
            num = np.bincount(self._leaf[k], weights=W[k] * r, minlength=size)
            den = np.bincount(self._leaf[k], weights=W[k], minlength=size)
            # every leaf holds in-bag training points, so den > 0 at every leaf
            out += num[self._centre_leaf[k]] / den[self._centre_leaf[k]]
        return out / len(self._trees)
