"""OptunaHub entry of TreeUCB: re-exports the sampler of the ``optuna-treeucb`` package."""

from optuna_treeucb import TreeUCBSampler

__all__ = ["TreeUCBSampler"]
