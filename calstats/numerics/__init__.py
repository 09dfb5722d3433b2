"""How calstats gets R's numbers: R 4.2.2's floating-point results, to the last bit.

Each module here reproduces one piece of R's floating-point behaviour:

* :mod:`.libm` -- ``exp``/``log``/``log1p`` as the C library computes them (R calls libm;
  NumPy's SIMD kernels differ from it by one ulp on a few percent of inputs).
* :mod:`.reductions` -- R's sums, means, row and column sums (long-double accumulators) and
  reference-BLAS matrix products (fixed summation order).
* :mod:`.vmmin` -- R's ``optim(method = "BFGS")``.

They are internal: the public API is the ``cal_*`` functions.
"""
