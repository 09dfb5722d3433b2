# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Monitoring calibration of production logs with Dask
#
# A deployed classifier writes its predicted probabilities to a log, one Parquet file a day;
# the true classes arrive later and are joined in. The log outgrows one machine's memory
# long before it outgrows calibration. calstats' metrics and tests take **Dask** arrays and
# DataFrames as they take NumPy and pandas: each block of rows is reduced to bin counts and
# sums that merge exactly, so the numbers are the in-memory ones, and nothing is loaded whole.
#
# This vignette simulates a week of logs from a 10-class model that drifts into
# over-confidence, reads them with `dask.dataframe`, and asks: how calibrated is the model
# overall, day by day, and does recalibration on last week's log fix it? (Install the extra
# with `pip install 'calstats[dask]'`.)

# %%
import os
import tempfile
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

import calstats

FULL = os.environ.get("CALSTATS_FULL") == "1"
rows_per_day = 400_000 if FULL else 20_000
K = 10
classes = [f"c{j}" for j in range(K)]

# %% [markdown]
# ## A week of logs
#
# Each day the model's logits are sharpened a little more (temperature falling from 1 to
# 0.55): the ranking stays good, the confidence grows beyond the accuracy.

# %%
logs = Path(tempfile.mkdtemp(prefix="calstats-logs-"))
rng = np.random.default_rng(7)
for day in range(7):
    true_logits = rng.normal(scale=1.6, size=(rows_per_day, K))
    true_p = np.exp(true_logits - true_logits.max(axis=1, keepdims=True))
    true_p /= true_p.sum(axis=1, keepdims=True)
    y = (true_p.cumsum(axis=1) > rng.uniform(size=(rows_per_day, 1))).argmax(axis=1)
    sharp = true_logits / (1.0 - 0.075 * day)
    p = np.exp(sharp - sharp.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    frame = pd.DataFrame(p, columns=classes)
    frame["label"] = pd.Categorical(np.array(classes)[y], categories=classes)
    frame["day"] = day
    frame.to_parquet(logs / f"day-{day}.parquet", index=False)
sorted(f.name for f in logs.iterdir())

# %% [markdown]
# ## A local cluster and the log as a Dask DataFrame
#
# Two workers with one thread each, inside this process (`processes=False`, so the
# vignette also runs as a script; drop it for worker processes). On a real cluster,
# `Client("tcp://scheduler:8786")` instead; nothing else changes.

# %%
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
client = Client(cluster)
log = dd.read_parquet(logs)
print(log.npartitions, "partitions;", len(log.columns), "columns")

# %% [markdown]
# ## The whole week
#
# `p` is the ten probability columns and `y` the label column of the same DataFrame (a
# categorical column is R's factor; its categories are the class levels).

# %%
P, y = log[classes], log["label"]
summary = pd.Series({
    "classwise ECE": calstats.ece(P, y),
    "confidence ECE": calstats.ece(P, y, type="confidence"),
    "top-label ECE": calstats.top_label_ece(P, y),
    "Brier": calstats.brier_score(P, y),
    "log-loss": calstats.log_loss(P, y),
})
summary.round(4)

# %%
print(calstats.cal_spiegelhalter_test(P, y))

# %% [markdown]
# The Kolmogorov-Smirnov test needs the rows in the order of their confidence: Dask sorts
# them in parts (each range of scores on its own), so this too runs beyond memory.

# %%
print(calstats.cal_ks_test(P, y))

# %% [markdown]
# ## Day by day
#
# A filter on the `day` column is another Dask DataFrame; the metrics take it as they are.

# %%
daily = pd.DataFrame(
    [{"day": d,
      "confidence ECE": calstats.ece(P[log["day"] == d], y[log["day"] == d], type="confidence"),
      "Brier": calstats.brier_score(P[log["day"] == d], y[log["day"] == d])}
     for d in range(7)]).set_index("day")
daily.round(4)

# %% [markdown]
# The confidence ECE grows every day: the drift is visible long before the Brier score moves
# much. The reliability diagram of the last day shows where.

# %%
last = log["day"] == 6
diagram = calstats.reliability_diagram(P[last], y[last], type="confidence")
diagram.data.round(3)

# %%
diagram.plot()

# %% [markdown]
# ## The same numbers as in memory
#
# One day fits in memory, so the Dask results can be checked against pandas: the counts are
# exact and every sum is merged without rounding error, so the two agree to the last bit
# (or, in rare ties of rounding, to one unit in the last place).

# %%
day0 = pd.read_parquet(logs / "day-0.parquet")
first = log["day"] == 0
checks = pd.DataFrame({
    "in memory": [calstats.ece(day0[classes], day0["label"]),
                  calstats.cal_spiegelhalter_test(day0[classes], day0["label"]).statistic["Z"]],
    "Dask": [calstats.ece(P[first], y[first]),
             calstats.cal_spiegelhalter_test(P[first], y[first]).statistic["Z"]],
}, index=["classwise ECE", "Spiegelhalter Z"])
checks["equal"] = checks["in memory"] == checks["Dask"]
checks

# %% [markdown]
# ## Recalibrating on last week's log
#
# Temperature scaling is fitted by R's Brent search, each evaluation one pass over the
# blocks (`cal_temperature` takes Dask logits). Fitted on day 5 and applied lazily to day
# 6 (`predict` on a Dask frame returns a Dask frame), it brings the confidence ECE of the
# drifted day back down.

# %%
day5, day6 = log["day"] == 5, log["day"] == 6
logits5 = P[day5].map_partitions(np.log)  # log-probabilities are logits up to a row constant
fit = calstats.cal_temperature(logits5, y[day5])
print(f"T = {fit.temperature:.4f}")
recalibrated = fit.predict(P[day6].map_partitions(np.log))
pd.Series({"before": calstats.ece(P[day6], y[day6], type="confidence"),
           "after": calstats.ece(recalibrated, y[day6], type="confidence")}).round(4)

# %% [markdown]
# ## What needs the rows in memory
#
# Statistics over every pair of rows (MMCE, SKCE's quadratic estimators, the kernel test)
# or resampling (bootstrap intervals) say so instead of loading the log: compute them on a
# sample, or use the linear-time SKCE.

# %%
try:
    calstats.mmce(P, y)
except calstats.CalstatsError as err:
    print("mmce:", err)
print("SKCE (linear-time estimator):", calstats.skce(P, y, estimator="ul"))

# %%
client.close()
cluster.close()
