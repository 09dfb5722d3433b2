"""How calstats gets R's numbers: R 4.2.2's floating-point arithmetic, to the last bit.

Each module here reproduces one piece of R's arithmetic, not a model:

* :mod:`.libm` -- ``exp``/``log``/``log1p`` as the C library computes them (R calls libm;
  NumPy's SIMD kernels differ from it by one ulp on a few percent of inputs).
* :mod:`.reductions` -- R's sums, means, row and column sums (long-double accumulators) and
  reference-BLAS matrix products (fixed summation order); :mod:`.passes` and :mod:`.fast`
  are their compiled passes.
* :mod:`.vmmin` -- R's ``optim(method = "BFGS")``; :mod:`.brent` -- ``optimize``.
* :mod:`.interp` -- ``approx``, ``findInterval``, ``quantile``; :mod:`.nmath` -- the
  logistic, normal and chi-squared tails; :mod:`.lapack` -- the LAPACK calls R makes.
* :mod:`.rformat` -- R's ``format``/``formatC``/``signif``.

R's model functions built from them (glm, coxph, gam, ...) are in :mod:`calstats.ports`.
They are internal: the public API is the ``cal_*`` functions.
"""
