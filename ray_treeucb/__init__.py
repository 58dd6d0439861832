"""TreeUCB (Wang et al., arXiv:1901.09277) as a Ray Tune searcher."""

from ray_treeucb._search import TreeUCBSearch

__all__ = ["TreeUCBSearch"]
