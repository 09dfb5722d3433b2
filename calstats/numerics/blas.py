"""OpenBLAS threads sized to the problem.

NumPy and SciPy call OpenBLAS, which splits a product or a factorisation over every core.
On small and medium problems (a QR of a 2000 x 10 weighted design, a 10 x 10 solve) the
threads' start-up and, on a machine whose cores are busy with other work, their waiting
for each other cost far more than the arithmetic: on 2 contended cores ``numpy.linalg.qr``
of a tall thin matrix runs 80-190 times slower on two threads than on one. Call sites wrap
such work in :func:`limit` (or :func:`for_size`), which runs it on one thread and restores
the previous setting on exit; large problems keep every core.

One :class:`threadpoolctl.ThreadpoolController` is made on first use and reused
(``threadpoolctl.threadpool_limits()`` scans the loaded libraries on every call: 2.7 ms
measured on 2 loaded cores; entering and leaving a limit of the kept controller: 22 us).
threadpoolctl is imported lazily, on that first use; without it the limits do nothing.

Bits. On small problems (a 20 000 x 10 QR, product or solve) one thread gives the same bits
as two. On larger ones OpenBLAS splits sums between threads (``ddot`` and ``A'b`` over long
vectors, a QR of 100 000 x 10 or 20 000 x 36, square products of a few hundred), and the
last bits (1e-16 to 1e-12 relative) then depend on the number of threads, i.e. on the
machine. One thread is the reproducible path; R-parity sums do not come from BLAS at all
(they use :mod:`.reductions`).
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

__all__ = ["limit", "for_size", "SMALL_WORK"]

# below this many multiply-adds a call runs single-threaded. Measured on 2 cores loaded by
# other work: a QR/lstsq/product of 2 000 x 10 to 100 000 x 36 (1e5 to 1.3e8 flops) runs 1.2 to
# 7 times faster on one thread; the square 1 000 x 1 000 case (1e9) was still 9 times faster
# there, but keeps both cores, which it uses on an idle machine.
SMALL_WORK = 5.0e8

_controller: Any = None
_unavailable = False


def _get_controller():
    global _controller, _unavailable
    if _controller is None and not _unavailable:
        try:
            import scipy.linalg  # noqa: F401 - load SciPy's OpenBLAS before the scan
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            _unavailable = True
            return None
        _controller = ThreadpoolController()
    return _controller


def limit(threads: int = 1):
    """A context manager that runs BLAS calls inside it on ``threads`` threads.

    The previous thread counts are restored on exit; nested limits are fine.
    """
    ctl = _get_controller()
    if ctl is None:  # pragma: no cover
        return nullcontext()
    return ctl.limit(limits=threads, user_api="blas")


def for_size(work: float):
    """:func:`limit` to one thread when ``work`` (about the number of multiply-adds of the
    wrapped calls) is below :data:`SMALL_WORK`, else a no-op."""
    if work < SMALL_WORK:
        return limit(1)
    return nullcontext()
