"""Framework-free TreeUCB: numpy and scikit-learn only (no optuna, ray or tensorflow)."""

from optuna_treeucb.core._index import gp_posterior
from optuna_treeucb.core._index import hoeffding_index
from optuna_treeucb.core._index import normalize_rewards
from optuna_treeucb.core._index import soft_box_features
from optuna_treeucb.core._partition import IncrementalPartition
from optuna_treeucb.core._partition import RefitPartition
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._treeucb import Direction
from optuna_treeucb.core._treeucb import Index
from optuna_treeucb.core._treeucb import Leaves
from optuna_treeucb.core._treeucb import Rule
from optuna_treeucb.core._treeucb import Sampling
from optuna_treeucb.core._treeucb import TreeUCB

__all__ = [
    "Direction",
    "Index",
    "Rule",
    "Sampling",
    "IncrementalPartition",
    "Leaves",
    "ParamSpec",
    "RefitPartition",
    "TreeUCB",
    "UnitCube",
    "gp_posterior",
    "hoeffding_index",
    "normalize_rewards",
    "soft_box_features",
]
