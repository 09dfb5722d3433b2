"""A first calibration: the naive Bayes digit probabilities bundled with calstats.

Run with ``python examples/quickstart.py`` after installing calstats. Gaussian naive Bayes
is badly over-confident (most of its probabilities are 0 or 1); Dirichlet calibration,
fitted on one half of the out-of-fold predictions, repairs it on the other half.
"""

import numpy as np

import calstats
from calstats.datasets import load_digits_probs

digits = load_digits_probs()                      # 1797 rows: p0..p9 and the label
P = digits.drop(columns="label").to_numpy()
y = digits["label"]                               # a Categorical whose levels name the columns
rs = np.random.default_rng(0)
idx = rs.permutation(len(y))
cal, test = idx[: len(y) // 2], idx[len(y) // 2:]

fit = calstats.cal_dirichlet(P[cal], y.iloc[cal])  # lambda chosen by probcal's 3-fold search
print(fit.summary())                              # R's summary text
print()

calibrated = fit.predict(P[test])
print("calibrated probabilities of the first test rows:")
print(calibrated.head().round(3))
print()
for name, probs in [("uncalibrated", P[test]), ("calibrated", calibrated)]:
    print(f"{name:>13}: confidence ECE {calstats.ece(probs, y.iloc[test], type='confidence'):.4f}, "
          f"log-loss {calstats.log_loss(probs, y.iloc[test]):.4f}")
