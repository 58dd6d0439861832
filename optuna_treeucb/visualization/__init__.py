"""Plots of what TreeUCB learned (matplotlib, imported lazily: ``pip install matplotlib``)."""

from optuna_treeucb.visualization._partition import PartitionSlice
from optuna_treeucb.visualization._partition import get_partition_slice
from optuna_treeucb.visualization._partition import plot_bandit_partition
from optuna_treeucb.visualization._partition import plot_partition

__all__ = [
    "PartitionSlice",
    "get_partition_slice",
    "plot_bandit_partition",
    "plot_partition",
]
