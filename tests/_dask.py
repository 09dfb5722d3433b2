"""Shared pieces of the Dask tests: a two-worker LocalCluster and a miscalibrated problem."""

import numpy as np
import pytest


def local_client(processes=True):
    """Yield a Client of a 2-worker LocalCluster (for a module-scoped fixture); threads
    in this process with ``processes=False``, where a test patches module attributes."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                  processes=processes) as cluster, distributed.Client(cluster) as c:
        yield c


def miscalibrated_problem(n, k=4, seed=0):
    """``(P, y)``: Dirichlet probabilities, labels drawn from them (1-based), the first third
    of the labels redrawn uniformly."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.6), size=n)
    y = np.array([rng.choice(k, p=row) for row in P]) + 1
    y[: n // 3] = rng.integers(1, k + 1, n // 3)  # a miscalibrated third
    return P, y
