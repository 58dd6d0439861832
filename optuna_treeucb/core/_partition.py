"""Partitions of the unit cube into boxes: the leaves of a regression tree.

:class:`RefitPartition` is the paper's rule, CART refitted (lazily) on all observations;
:class:`IncrementalPartition` is a nested partition grown online under the conditions of the
paper's regret theorem (Theorem 1).  Both depend on the sequence of observations only, not on
how it was delivered to ``update`` (so a resumed study rebuilds the same model).

Notations:
    n: observations; L: leaves; d: dimensions.
    X: shape (n, d), values in [0, 1].  r: rewards, shape (n,).
    rewards_of: ``m -> rewards of the first m observations alone``, shape (m,); ``None``
        takes ``r[:m]``.
    low, high: shape (L, d).  A leaf is the box ``low < x <= high`` per dimension
        (:func:`box_contains`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

import numpy as np

if TYPE_CHECKING:
    from sklearn.tree import DecisionTreeRegressor

# scikit-learn (which imports scipy.stats and pandas when present) is imported at the first
# fit, so that importing the package stays as quick as importing Optuna
# (tests/core_tests/test_imports.py).

# Tuned once by the ablation (ablation.md at 436ff1b, in git history); constants, not options.
CRITERION = "absolute_error"  # split criterion of the refit rule (the paper's)
MIN_IMPURITY_DECREASE = 0.001  # a split must reduce the criterion by this much
REFIT_FRACTION = 0.05  # the refit rule refits once the data grew by this fraction
CAP_GAMMA: float | None = 0.3  # the refit rule's diameter cap sqrt(d) t^(-CAP_GAMMA / d)
GAMMA = 0.5  # the incremental rule's growth exponent of the leaf budget and the cap
MAX_LEAVES_COEF = 4.0  # the incremental rule's data-driven splits stop at c t^GAMMA leaves


class Partition(Protocol):
    """What TreeUCB needs of a tree rule: boxes that tile the cube, and where points fall.

    Attributes:
        low, high: The boxes, shape (L, d), values in [0, 1].
        leaf_of: Box of each observation told to :meth:`update`, shape (n,).
        version: Grows whenever the boxes change (callers cache per version).
    """

    low: np.ndarray
    high: np.ndarray
    leaf_of: np.ndarray
    version: int

    @property
    def n_leaves(self) -> int: ...

    def update(
        self, X: np.ndarray, r: np.ndarray, rewards_of: Callable[[int], np.ndarray] | None = None
    ) -> None:
        """Bring the boxes up to date with all observations ``X`` (rewards ``r``)."""

    def locate(self, X: np.ndarray) -> np.ndarray:
        """Box of each point, shape (n,)."""


def box_contains(low: np.ndarray, high: np.ndarray, x: np.ndarray | float) -> np.ndarray:
    """Whether boxes contain points, per dimension: ``low < x <= high`` (scikit-learn routes
    ``x <= threshold`` left), a bound on the cube's border (0 or 1) being no bound, so leaves
    hold every point exactly once.  ``x`` broadcasts against ``low`` and ``high``."""
    out: np.ndarray = ((low < x) | (low <= 0.0)) & ((x <= high) | (high >= 1.0))
    return out


def tree_boxes(tree: Any, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Leaf boxes ``(low, high)`` of a fitted ``DecisionTreeRegressor().tree_`` on ``d``
    features, and the tree node id of each leaf, shape (L,), in depth-first order."""
    left, right = tree.children_left, tree.children_right
    feature, threshold = tree.feature, tree.threshold
    lows: list[np.ndarray] = []
    highs: list[np.ndarray] = []
    nodes: list[int] = []
    stack = [(0, np.zeros(d), np.ones(d))]
    while stack:
        node, lo, hi = stack.pop()
        if left[node] == -1:
            lows.append(lo)
            highs.append(hi)
            nodes.append(node)
            continue
        f, thr = int(feature[node]), float(threshold[node])
        thr = min(max(thr, lo[f]), hi[f])
        lhi, rlo = hi.copy(), lo.copy()
        lhi[f] = rlo[f] = thr
        stack.append((int(right[node]), rlo, hi))
        stack.append((int(left[node]), lo, lhi))
    return np.array(lows), np.array(highs), np.array(nodes, dtype=np.intp)


def apply_tree(tree: Any, X: np.ndarray) -> np.ndarray:
    """Leaf node id of each point, shape (n,), as ``DecisionTreeRegressor.apply`` gives it
    (features as float32) without its input validation (0.1-0.5 ms a call)."""
    X = np.asarray(X, dtype=np.float32).astype(np.float64)
    left, right = tree.children_left, tree.children_right
    feature, threshold = tree.feature, tree.threshold
    n = X.shape[0]
    if n <= 8:  # a few points: walk each in Python, cheaper than numpy per level
        out = np.zeros(n, dtype=np.intp)
        for i in range(n):
            at = 0
            while left[at] != -1:
                at = left[at] if X[i, feature[at]] <= threshold[at] else right[at]
            out[i] = at
        return out
    nodes = np.zeros(n, dtype=np.intp)
    active = np.flatnonzero(left[nodes] != -1)
    while active.size:
        now = nodes[active]
        go_left = X[active, feature[now]] <= threshold[now]
        nodes[active] = np.where(go_left, left[now], right[now])
        active = active[left[nodes[active]] != -1]
    return nodes


class RefitPartition:
    """The paper's tree rule: CART (:class:`~sklearn.tree.DecisionTreeRegressor`) refitted on
    all observations, lazily; points told since the last fit go to its leaves.

    Args:
        d: Number of dimensions.
        criterion: Split criterion of the tree.
        min_impurity_decrease: Stop splitting below this reduction of the criterion.
        refit_fraction: Refit once the observations have grown by this fraction (at least
            one); ``0`` refits at every new observation.
        cap_gamma: If set, a leaf wider than ``sqrt(d) n^(-cap_gamma / d)`` is cut into a grid
            of cells by halving its longest side, so that diameters shrink as the theorem
            requires; ``None`` keeps the bare CART leaves.
        seed: ``random_state`` of the tree (deterministic ties between features).
    """

    def __init__(
        self,
        d: int,
        *,
        criterion: str = CRITERION,
        min_impurity_decrease: float = MIN_IMPURITY_DECREASE,
        refit_fraction: float = REFIT_FRACTION,
        cap_gamma: float | None = CAP_GAMMA,
        seed: int = 0,
    ) -> None:
        self.d = d
        self.cap_gamma = cap_gamma
        self.criterion = criterion
        self.min_impurity_decrease = min_impurity_decrease
        self.refit_fraction = refit_fraction
        self.seed = seed
        self.low, self.high = np.zeros((1, d)), np.ones((1, d))
        self.leaf_of = np.zeros(0, dtype=np.intp)
        self.parent = np.zeros(1, dtype=np.intp)  # CART leaf of each cell
        self.version = 0
        self._tree: DecisionTreeRegressor | None = None
        self._node_to_leaf = np.zeros(1, dtype=np.intp)
        self._n_fit = 0

    @property
    def n_leaves(self) -> int:
        return int(self.low.shape[0])

    def fit_size(self, n: int) -> int:
        """Observations the tree is fitted on when there are ``n``: the last point not above
        ``n`` of the schedule ``m -> m + max(1, ceil(refit_fraction m))`` from 0."""
        if self.refit_fraction == 0.0:
            return n
        m = self._n_fit if self._n_fit <= n else 0
        while True:
            following = m + max(1, math.ceil(self.refit_fraction * m))
            if following > n:
                return m
            m = following

    def update(
        self, X: np.ndarray, r: np.ndarray, rewards_of: Callable[[int], np.ndarray] | None = None
    ) -> None:
        """Bring the partition up to date with all observations ``X`` (rewards ``r``)."""
        n = X.shape[0]
        m = self.fit_size(n)
        if m >= 2 and m != self._n_fit:
            import sklearn
            from sklearn.tree import DecisionTreeRegressor

            tree = DecisionTreeRegressor(
                criterion=self.criterion,
                min_impurity_decrease=self.min_impurity_decrease,
                random_state=self.seed,
            )
            if m < n:
                r = r[:m] if rewards_of is None else rewards_of(m)
            # the options were checked by the option table; scikit-learn's own check of them
            # (through inspect.signature) costs about 1 ms per fit
            with sklearn.config_context(skip_parameter_validation=True):
                tree.fit(X[:m], r)
            self._tree = tree
            low, high, nodes = tree_boxes(tree.tree_, self.d)
            self._node_to_leaf = np.full(tree.tree_.node_count, -1, dtype=np.intp)
            self._node_to_leaf[nodes] = np.arange(nodes.size)
            self._refine(low, high, m)
            self._n_fit = m
            self.version += 1
            self.leaf_of = self.locate(X)
        elif n > self.leaf_of.size:
            self.leaf_of = np.concatenate((self.leaf_of, self.locate(X[self.leaf_of.size :])))

    def cap(self, t: int) -> float:
        """Largest cell diameter after a fit on ``t`` observations (``inf`` without a cap)."""
        if self.cap_gamma is None:
            return math.inf
        return math.sqrt(self.d) * max(t, 1) ** (-self.cap_gamma / self.d)

    def _refine(self, low: np.ndarray, high: np.ndarray, n: int) -> None:
        """Cut each CART leaf into a grid of ``2^k_j`` cells per dimension within the cap."""
        cap = self.cap(n)
        L, d = low.shape
        halvings = np.zeros((L, d), dtype=np.intp)
        width = high - low
        for b in range(L):
            w = width[b].copy()
            while np.sqrt(np.sum(w * w)) > cap:
                j = int(np.argmax(w))
                w[j] /= 2.0
                halvings[b, j] += 1
        cells = np.left_shift(1, halvings)  # cells per dimension, (L, d)
        n_cells = np.prod(cells, axis=1)
        self._offset = np.concatenate(([0], np.cumsum(n_cells)[:-1])).astype(np.intp)
        # row-major strides of each leaf's grid
        self._stride = np.ones((L, d), dtype=np.intp)
        for j in range(d - 2, -1, -1):
            self._stride[:, j] = self._stride[:, j + 1] * cells[:, j + 1]
        self._cells, self._base_low, self._base_width = cells, low, width
        lows, highs = [], []
        for b in range(L):
            # the cells' multi-indices, row-major: np.indices on the cut axes (at most 64 axes)
            cut = np.flatnonzero(cells[b] > 1)
            idx = np.zeros((int(np.prod(cells[b, cut])), d), dtype=np.intp)
            if cut.size:
                idx[:, cut] = np.indices(tuple(cells[b, cut])).reshape(cut.size, -1).T
            step = width[b] / cells[b]
            lows.append(low[b] + idx * step)
            highs.append(np.where(idx + 1 == cells[b], high[b], low[b] + (idx + 1) * step))
        self.low, self.high = np.vstack(lows), np.vstack(highs)
        self.parent = np.repeat(np.arange(L, dtype=np.intp), n_cells)

    def locate(self, X: np.ndarray) -> np.ndarray:
        """Leaf (cell) index of each point, shape (n,)."""
        if self._tree is None:
            return np.zeros(X.shape[0], dtype=np.intp)
        X = np.atleast_2d(np.asarray(X, dtype=float))
        b = self._node_to_leaf[apply_tree(self._tree.tree_, X)]
        cells = self._cells[b]
        with np.errstate(invalid="ignore", divide="ignore"):
            pos = (X - self._base_low[b]) / self._base_width[b] * cells
        # cells are (low, high] as in the tree; a point on a cell edge goes to the lower cell
        c = np.clip(np.ceil(np.nan_to_num(pos)) - 1, 0, cells - 1).astype(np.intp)
        out: np.ndarray = self._offset[b] + np.sum(c * self._stride[b], axis=1)
        return out


class IncrementalPartition:
    """A nested partition grown online, under the conditions of the regret theorem.

    Leaves are only split; a leaf wider than ``sqrt(d) t^(-gamma / d)`` is halved along its
    longest side; data-driven splits stop at ``c t^gamma`` leaves (so ``|P_t| <= (2 c + 2^d)
    t^gamma``).  One observation costs O(depth + leaf size * d log(leaf size)).

    Args:
        d: Number of dimensions.
        gamma: Growth exponent of the leaf budget, ``0 < gamma < 1``.
        max_leaves_coef: ``c`` in the budget ``c * t^gamma`` of data-driven splits.
        min_impurity_decrease: A data-driven split must reduce the (n-weighted, as in
            scikit-learn) squared error by at least this much.
        min_samples_split: A leaf needs this many observations for a data-driven split.
    """

    def __init__(
        self,
        d: int,
        *,
        gamma: float = GAMMA,
        max_leaves_coef: float = MAX_LEAVES_COEF,
        min_impurity_decrease: float = MIN_IMPURITY_DECREASE,
        min_samples_split: int = 4,
    ) -> None:
        self.d = d
        self.gamma = gamma
        self.max_leaves_coef = max_leaves_coef
        self.min_impurity_decrease = min_impurity_decrease
        self.min_samples_split = min_samples_split
        # tree nodes; a leaf has feature -1
        self._lo: list[np.ndarray] = [np.zeros(d)]
        self._hi: list[np.ndarray] = [np.ones(d)]
        self._feature: list[int] = [-1]
        self._threshold: list[float] = [0.0]
        self._left: list[int] = [-1]
        self._right: list[int] = [-1]
        self._points: dict[int, list[int]] = {0: []}  # leaf node -> observation indices
        self._leaf_nodes: list[int] = [0]  # leaf index -> node
        self._leaf_index: dict[int, int] = {0: 0}
        self._heap: list[tuple[float, int]] = [(-math.sqrt(d), 0)]  # (-diameter, leaf node)
        self.leaf_of = np.zeros(0, dtype=np.intp)
        self.low = np.zeros((1, d))
        self.high = np.ones((1, d))
        self.version = 0
        self._n = 0

    @property
    def n_leaves(self) -> int:
        return len(self._leaf_nodes)

    def cap(self, t: int) -> float:
        """Largest leaf diameter allowed at round ``t``: ``sqrt(d) * t^(-gamma / d)``."""
        return math.sqrt(self.d) * max(t, 1) ** (-self.gamma / self.d)

    def budget(self, t: int) -> float:
        """Leaf budget of data-driven splits at round ``t``: ``c * t^gamma``."""
        return self.max_leaves_coef * max(t, 1) ** self.gamma

    def _route(self, x: np.ndarray) -> int:
        node = 0
        while (f := self._feature[node]) >= 0:
            node = self._left[node] if x[f] <= self._threshold[node] else self._right[node]
        return node

    def locate(self, X: np.ndarray) -> np.ndarray:
        """Leaf index of each point, shape (n,)."""
        X = np.atleast_2d(X)
        return np.array([self._leaf_index[self._route(x)] for x in X], dtype=np.intp)

    def update(
        self, X: np.ndarray, r: np.ndarray, rewards_of: Callable[[int], np.ndarray] | None = None
    ) -> None:
        """Add the observations of ``X`` not seen yet, each with ``rewards_of(i + 1)``."""
        n = X.shape[0]
        changed = False
        if n > self.leaf_of.size:  # one allocation for the new points, filled in order below
            self.leaf_of = np.concatenate((self.leaf_of, np.zeros(n - self.leaf_of.size, np.intp)))
        for i in range(self._n, n):
            node = self._route(X[i])
            self._points[node].append(i)
            self.leaf_of[i] = self._leaf_index[node]
            self._n = i + 1
            ri = r if i + 1 == n or rewards_of is None else rewards_of(i + 1)
            changed |= self._grow(node, X, ri)
        if changed:
            self._refresh()

    def _grow(self, node: int, X: np.ndarray, r: np.ndarray) -> bool:
        t = self._n
        changed = False
        # 1. diameter cap: halve every leaf wider than cap(t) along its longest side
        cap = self.cap(t)
        while self._heap and -self._heap[0][0] > cap:
            _, leaf = heapq.heappop(self._heap)
            if self._feature[leaf] >= 0:
                continue
            width = self._hi[leaf] - self._lo[leaf]
            f = int(np.argmax(width))
            self._split(leaf, f, float(self._lo[leaf][f] + width[f] / 2.0), X)
            changed = True
        # 2. data-driven split of the leaf that received the point, within the budget
        node = self._route(X[t - 1])
        pts = self._points[node]
        if len(pts) >= self.min_samples_split and self.n_leaves < self.budget(t):
            best = self._best_split(np.asarray(pts), X, r, t)
            if best is not None:
                self._split(node, best[0], best[1], X)
                changed = True
        return changed

    def _best_split(
        self, idx: np.ndarray, X: np.ndarray, r: np.ndarray, t: int
    ) -> tuple[int, float] | None:
        y = r[idx]
        m = y.size
        total = float(np.sum((y - y.mean()) ** 2))
        # scikit-learn's rule: (m / t) * (MSE decrease) = SSE decrease / t >= threshold
        best_gain, best = self.min_impurity_decrease * t, None
        for f in range(self.d):
            order = np.argsort(X[idx, f], kind="stable")
            xs, ys = X[idx, f][order], y[order]
            csum, csq = np.cumsum(ys), np.cumsum(ys * ys)
            k = np.arange(1, m)
            valid = xs[1:] > xs[:-1]
            if not valid.any():
                continue
            lsse = csq[:-1] - csum[:-1] ** 2 / k
            rsum, rsq = csum[-1] - csum[:-1], csq[-1] - csq[:-1]
            rsse = rsq - rsum**2 / (m - k)
            gain = np.where(valid, total - lsse - rsse, -np.inf)
            j = int(np.argmax(gain))
            if gain[j] > best_gain:
                best_gain = float(gain[j])
                best = (f, float((xs[j] + xs[j + 1]) / 2.0))
        return best

    def _split(self, node: int, f: int, thr: float, X: np.ndarray) -> None:
        lo, hi = self._lo[node], self._hi[node]
        lhi, rlo = hi.copy(), lo.copy()
        lhi[f] = thr
        rlo[f] = thr
        left, right = len(self._lo), len(self._lo) + 1
        for box_lo, box_hi in ((lo, lhi), (rlo, hi)):
            self._lo.append(box_lo)
            self._hi.append(box_hi)
            self._feature.append(-1)
            self._threshold.append(0.0)
            self._left.append(-1)
            self._right.append(-1)
        self._feature[node], self._threshold[node] = f, thr
        self._left[node], self._right[node] = left, right
        pts = self._points.pop(node)
        self._points[left] = [i for i in pts if X[i, f] <= thr]
        self._points[right] = [i for i in pts if X[i, f] > thr]
        # the parent's leaf index goes to the left child; the right child is appended
        li = self._leaf_index.pop(node)
        self._leaf_nodes[li] = left
        self._leaf_index[left] = li
        self._leaf_index[right] = len(self._leaf_nodes)
        self._leaf_nodes.append(right)
        if self._points[right]:
            self.leaf_of[self._points[right]] = self._leaf_index[right]
        for child in (left, right):
            diam = float(np.linalg.norm(self._hi[child] - self._lo[child]))
            heapq.heappush(self._heap, (-diam, child))

    def _refresh(self) -> None:
        self.low = np.array([self._lo[nd] for nd in self._leaf_nodes])
        self.high = np.array([self._hi[nd] for nd in self._leaf_nodes])
        self.version += 1
