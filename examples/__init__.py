"""Runnable tuning studies from the TreeUCB paper (arXiv:1901.09277), for Optuna and Ray Tune.

Run them from the repository root as modules, for example ``python -m examples.digits`` or
``python -m examples.mnist --backend ray --samplers treeucb tpe``. Every study accepts
``--help`` and ``--smoke``.
"""
