"""Framework-free TreeUCB: numpy, scipy and scikit-learn only (no optuna, ray or tensorflow).

The bandit is :class:`TreeUCB` over the parameters of a :class:`UnitCube`, each a
:class:`ParamSpec`; its options are declared once in :data:`OPTIONS`.  The wrappers
(``TreeUCBSampler``, ``TreeUCBSearch``) use those, plus the face contract: :class:`Face` (their
options, docs and seeds) and :class:`BranchChooser` (the choice of a conditional branch).
"""

from optuna_treeucb.core._branch import BranchChooser
from optuna_treeucb.core._face import Face
from optuna_treeucb.core._index import BoxStats
from optuna_treeucb.core._options import OPTIONS
from optuna_treeucb.core._options import Option
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._treeucb import TreeUCB

__all__ = [
    "BoxStats",
    "BranchChooser",
    "Face",
    "OPTIONS",
    "Option",
    "ParamSpec",
    "TreeUCB",
    "UnitCube",
]
