"""Framework-free TreeUCB: numpy, scipy and scikit-learn only (no optuna, ray or tensorflow)."""

from optuna_treeucb.core._index import BoxStats
from optuna_treeucb.core._options import OPTIONS
from optuna_treeucb.core._options import Option
from optuna_treeucb.core._options import validate_options
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._treeucb import TreeUCB

__all__ = [
    "BoxStats",
    "OPTIONS",
    "Option",
    "ParamSpec",
    "TreeUCB",
    "UnitCube",
    "validate_options",
]
