"""TreeUCB (Wang et al., arXiv:1901.09277) for Optuna."""

from optuna_treeucb._sampler import TreeUCBSampler

__version__ = "0.1.0"
__all__ = ["TreeUCBSampler"]
