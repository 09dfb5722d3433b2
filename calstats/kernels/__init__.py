"""Statistical kernels: the computations every front end shares, in memory and on Dask.

Probabilities and losses (:mod:`.probs`), equal-width bins and the metrics they give
(:mod:`.bins`), the top label (:mod:`.toplabel`), the choices of the arguments
(:mod:`.choices`), the cumulative-difference path and the Brownian distributions of the KS
and Kuiper tests (:mod:`.cumdiff`), Spiegelhalter's sums (:mod:`.spiegelhalter`),
correctly rounded sums (:mod:`.fsum`), the pairwise kernel sums of SKCE and MMCE
(:mod:`.pairwise`) and the temperature search (:mod:`.temperature`).

A kernel takes arrays and returns numbers; it builds no result object and knows nothing of
Dask. They are internal: the public API is :mod:`calstats`.
"""
