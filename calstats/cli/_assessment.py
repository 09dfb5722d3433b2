"""The pieces of ``calstats assess`` shared by the in-memory and the Dask reports: the
binning options and the tables made with them."""

import math

import pandas as pd

from ._common import _MMCE_MAX_N

__all__ = ["binning_of", "binning_text", "metric_rows", "interval_table"]


def binning_of(args):
    """The binning arguments of ``assess`` as ece's keywords."""
    return dict(bins=args.bins, strategy=args.strategy, right=bool(args.right))


def binning_text(args):
    """``10 equal-width bins``, ``sqrt-rule quantile bins, right-closed``, ..."""
    count = f"{args.bins}" if isinstance(args.bins, int) else f"{args.bins}-rule"
    kind = "equal-width" if args.strategy == "uniform" else "equal-mass (quantile)"
    return f"{count} {kind} bins" + (", right-closed" if args.right else "")


def metric_rows(p, y, binary, binning, weights=None, mmce=True):
    """ECE, MCE, ACE (and MMCE) of ``assess``, for arrays or Dask collections."""
    import calstats

    rows = {}
    types = [None] if binary else ["classwise", "confidence"]
    for name, fn in (("ECE", calstats.ece), ("MCE", calstats.mce), ("ACE", calstats.ace)):
        rows[name] = [fn(p, y, weights=weights, **binning) if t is None else
                      fn(p, y, type=t, weights=weights, **binning) for t in types]
    n = p.shape[0]
    if mmce and n <= _MMCE_MAX_N:
        mm = calstats.mmce(p, y, weights=weights)
        rows["MMCE"] = [mm] if binary else [math.nan, mm]
    cols = ["value"] if binary else ["classwise", "confidence"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def interval_table(p, y, binary, binning, args, weights=None):
    """The reliability diagram's bins with ``--interval`` intervals (top-label for a matrix)."""
    import calstats

    kw = {} if binary else {"type": "confidence"}
    d = calstats.reliability_diagram(p, y, interval=args.interval, level=args.level, weights=weights, **binning,
                                     **kw)
    frame = d.as_frame().set_index("bin")
    what = "" if binary else " (top-label confidence)"
    head = f"Reliability diagram bins{what}, {args.interval} {100 * d.level:g}% intervals (pointwise)"
    return head + "\n" + frame.to_string(float_format=lambda v: f"{v:.4f}", na_rep="")
