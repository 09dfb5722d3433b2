"""A first calibration: Dirichlet calibration of a miscalibrated 3-class model.

Run with ``python examples/quickstart.py`` after installing calstats.
"""

import numpy as np

import calstats
from calstats import rng

# The R help page's example, with R's own random numbers: set.seed(23); runif(600).
rng.set_seed(23)
prob = rng.runif(200 * 3).reshape(3, 200).T
prob = prob / prob.sum(axis=1, keepdims=True)
labels = prob.argmax(axis=1) + 1

fit = calstats.cal_dirichlet(prob, labels)
print(calstats.summary(fit))
print()
print(fit.predict(prob).head())
