"""Benchmarks of TreeUCB (run as ``python -m benchmarks ...``; see benchmarks/README.md).

Every worker process runs single-threaded BLAS, so several benchmark processes do not
oversubscribe the machine and timings are comparable across methods.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
