"""Framework-free TreeUCB: numpy, scipy and scikit-learn only (no optuna, ray or tensorflow)."""

from optuna_treeucb.core._fidelity import PrunedRule
from optuna_treeucb.core._fidelity import bohb_budget
from optuna_treeucb.core._fidelity import budget_contexts
from optuna_treeucb.core._fidelity import budget_rewards
from optuna_treeucb.core._fidelity import full_budget
from optuna_treeucb.core._index import gp_posterior
from optuna_treeucb.core._index import hoeffding_index
from optuna_treeucb.core._index import normalize_rewards
from optuna_treeucb.core._index import soft_box_features
from optuna_treeucb.core._index import soft_gp_index
from optuna_treeucb.core._options import OPTIONS
from optuna_treeucb.core._options import Option
from optuna_treeucb.core._options import options_table
from optuna_treeucb.core._options import validate_options
from optuna_treeucb.core._partition import IncrementalPartition
from optuna_treeucb.core._partition import RefitPartition
from optuna_treeucb.core._partition import box_contains
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._treeucb import Center
from optuna_treeucb.core._treeucb import Direction
from optuna_treeucb.core._treeucb import Discrete
from optuna_treeucb.core._treeucb import Index
from optuna_treeucb.core._treeucb import Leaves
from optuna_treeucb.core._treeucb import Region
from optuna_treeucb.core._treeucb import Rule
from optuna_treeucb.core._treeucb import Sampling
from optuna_treeucb.core._treeucb import TreeUCB

__all__ = [
    "Center",
    "Direction",
    "Discrete",
    "Index",
    "Rule",
    "Region",
    "Sampling",
    "IncrementalPartition",
    "Leaves",
    "PrunedRule",
    "OPTIONS",
    "Option",
    "ParamSpec",
    "RefitPartition",
    "TreeUCB",
    "UnitCube",
    "bohb_budget",
    "budget_contexts",
    "budget_rewards",
    "full_budget",
    "box_contains",
    "gp_posterior",
    "hoeffding_index",
    "normalize_rewards",
    "options_table",
    "soft_box_features",
    "soft_gp_index",
    "validate_options",
]
