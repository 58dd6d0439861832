"""Framework-free TreeUCB: numpy, scipy and scikit-learn only (no optuna, ray or tensorflow).

The parts live in private modules, each tested through its own interface:
``_observations`` (what was told and asked), ``_partition`` (the tree rules), ``_index``
(which box to play), ``_inbox`` (where the point goes in it), ``_localgp`` (the local GP's
numerics), ``_fidelity`` (observations stopped early) and ``_treeucb`` (the facade).
"""

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
