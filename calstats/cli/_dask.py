"""``calstats assess --dask``: the assessment of data beyond memory, on a Dask cluster.

The table is read with ``dask.dataframe`` (a Parquet file, a directory of Parquet files,
CSV files or a glob of them) and never loaded whole. Prediction columns and labels are
read as the in-memory command reads them (the same column rules and label matching); the
metrics, Brier score, log-loss and Spiegelhalter's test come from one pass
(:func:`calstats.dask._assess.assess_pass`), the KS and Kuiper tests from a distributed
sort. Statistics that need every pair of rows or resampling (MMCE, the bootstrap interval,
the clinical report) are left out, each with the reason.
"""

from __future__ import annotations

import glob
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _validate as v
from ._common import _PARQUET
from ._common import first_line as _first_line
from ._common import shortlist as _shortlist


def add_options(parser):
    parser.add_argument("--dask", action="store_true",
                        help="compute with Dask, never loading the data whole: FILE may then also be a directory "
                             "of Parquet files or a glob of CSV/Parquet files (a directory implies --dask)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="--dask: worker processes of the local cluster (default: 2)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="--dask: connect to this running dask.distributed scheduler instead of starting a "
                             "local cluster")


def wanted(args):
    """True when ``assess`` should run on Dask (``--dask``, or a directory as input)."""
    return bool(getattr(args, "dask", False)) or (args.data is not None and Path(args.data).is_dir())


def _import_dask():
    try:
        import dask.dataframe as dd
        import distributed
    except ImportError:
        v.fail_cli_needs_dask()
    return dd, distributed


def _files(path):
    p = Path(path)
    if p.is_dir():
        names = sorted(str(f) for f in p.iterdir() if f.suffix.lower() in _PARQUET)
        if not names:
            v.fail_cli_no_parquet_files(path)
        return names, True
    names = sorted(glob.glob(path)) if any(c in path for c in "*?[") else ([path] if p.exists() else [])
    if not names:
        v.fail_cli_no_file(path)
    parquet = {Path(n).suffix.lower() in _PARQUET for n in names}
    if len(parquet) > 1:
        v.fail_cli_mixed_files(path)
    return names, parquet.pop()


def read_frame(path):
    """A Dask DataFrame of the file(s), with one-line errors."""
    dd, _ = _import_dask()
    names, parquet = _files(path)
    try:
        if parquet:
            return dd.read_parquet(names)
        # gzip cannot be split: one partition per compressed file
        return dd.read_csv(names, blocksize=None if names[0].endswith((".gz", ".bz2", ".xz")) else "64MB")
    except ImportError:
        v.fail_cli_read_parquet_needs_pyarrow(path)
    except Exception as exc:
        v.fail_cli_unreadable(path, exc)


def _labels(frame, label, cols, positive, path):
    """The label Series for Dask, matched to the columns as the in-memory command does."""
    from ._problem import _class_name_candidates, _label_strings

    raw = frame[label]
    meta = frame._meta[label]
    import dask

    missing, uniques = dask.compute(raw.isna().sum(), raw.dropna().unique())
    if missing:
        v.fail_cli_label_missing(label, int(missing))
    values = pd.Series(np.asarray(uniques))
    if len(cols) == 1:
        if pd.api.types.is_bool_dtype(meta) or (pd.api.types.is_numeric_dtype(meta) and positive is None):
            return raw.astype(np.int64) if pd.api.types.is_bool_dtype(meta) else raw
        levels = sorted(set(_label_strings(values)))
        if positive is None:
            if set(levels) <= {"0", "1"}:
                return raw.map_partitions(lambda s: _label_strings(s).astype(np.int64), meta=(label, np.int64))
            from ..formula.api import _carried_level

            positive = _carried_level(cols[0], levels) if len(levels) == 2 else None
            if positive is None:
                v.fail_cli_labels_not_binary(label, levels)
        if positive not in levels:
            v.fail_cli_positive_absent(positive, label)
        return raw.map_partitions(lambda s: _label_strings(s).eq(positive).astype(np.int64), meta=(label, np.int64))
    strings = set(_label_strings(values))
    for names in _class_name_candidates(cols):
        if strings <= set(names):
            dtype = pd.CategoricalDtype(names)
            return raw.map_partitions(lambda s: pd.Series(pd.Categorical(_label_strings(s), categories=names),
                                                          index=s.index, name=label),
                                      meta=pd.Series(pd.Categorical([], dtype=dtype), name=label))
    if pd.api.types.is_numeric_dtype(meta):
        return raw  # R's 1-based class codes; calstats checks them
    unknown = sorted(strings - set(_class_name_candidates(cols)[0]))
    v.fail_cli_labels_unmatched(label, unknown[0], _shortlist(cols))


def _problem(args):
    from ._problem import _prediction_columns

    if args.data is None:
        v.fail_cli_dask_needs_data()
    if args.label is None:
        v.fail_cli_data_needs_label()
    if args.weights is not None:
        v.fail_cli_dask_weights()
    if args.bootstrap:
        v.fail_cli_dask_bootstrap()
    frame = read_frame(args.data)
    frame = frame.rename(columns={c: str(c) for c in frame.columns})
    names = list(frame.columns)
    if args.label not in names:
        v.fail_cli_column_not_found("label", args.label, args.data, _shortlist(names))
    _meta, cols = _prediction_columns(frame._meta, args.label, args.columns, args.data)
    y = _labels(frame, args.label, cols, args.positive, args.data)
    x = frame[cols[0]].astype(np.float64) if len(cols) == 1 else frame[cols].astype(np.float64)
    return x, y, cols


def _client(args):
    _, distributed = _import_dask()
    if args.scheduler:
        try:
            return distributed.Client(args.scheduler, timeout="10s"), f"scheduler {args.scheduler}"
        except Exception as exc:
            v.fail_cli_scheduler(args.scheduler, exc)
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=":0",
                                       processes=True)
    return distributed.Client(cluster), f"local cluster of {args.workers} worker process{'es' if args.workers > 1 else ''}"


def _test_text(name, run):
    try:
        return str(run())
    except Exception as exc:
        return f"{name}: not computed: {_first_line(exc)}"


def assess(args):
    """``calstats assess`` on Dask: the same report, one pass for the sums."""
    if args.workers < 1:
        v.fail_cli_at_least("workers", 1)
    with warnings.catch_warnings():
        # Dask's own deprecation notices about pandas are not the user's business
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _assess(args)


def _assess(args):
    import calstats

    from .._errors import CalstatsError
    from ..dask._assess import assess_pass
    from ..evaluation.caltests import _spiegelhalter_htest
    from ..kernels.bins import ace_of, ece_of, max_of, mce_of
    from ..numerics.reductions import rmean
    from ._assessment import binning_of, binning_text, interval_table, metric_rows
    from ._text import scores_text

    x, y, cols = _problem(args)
    client, where = _client(args)
    try:
        from ._common import _Progress

        with _Progress(f"assessing '{args.data}' on Dask ({where})"):
            st = assess_pass(x, y, args.bins if isinstance(args.bins, int) else 10)
        if st.n < 2:
            v.fail_cli_too_few_rows(f"'{args.data}'", st.n)
        if st.classes_present < 2:
            v.fail_cli_one_class(f"'{args.data}'")
        kind = "binary" if st.binary else f"{len(cols)} classes"
        parts = f"{x.npartitions} partition{'s' if x.npartitions != 1 else ''}"
        print(f"Data: '{args.data}'; {st.n} rows, {kind} (Dask: {where}, {parts})")
        print()
        forms = ["vector"] if st.binary else ["classwise", "confidence"]
        binning = binning_of(args)
        if binning == dict(bins=args.bins, strategy="uniform", right=False) and isinstance(args.bins, int):
            rows = {}
            for name, of, agg in (("ECE", ece_of, rmean), ("MCE", mce_of, max_of), ("ACE", ace_of, rmean)):
                vals = []
                for f in forms:
                    per = [of(s) for s in st.binned[f]]
                    vals.append(per[0] if len(per) == 1 else agg(per))
                rows[name] = vals
            table = pd.DataFrame.from_dict(rows, orient="index", columns=["value"] if st.binary else forms)
        else:  # bins from the data (quantiles, a rule) or right-closed: one more pass per metric
            table = metric_rows(x, y, st.binary, binning, mmce=False)
        print(f"Calibration metrics ({binning_text(args)}; MMCE left out: it needs every pair of rows)")
        print(table.to_string(float_format=lambda v: f"{v:.4f}", na_rep=""))
        if args.interval:
            print()
            print(interval_table(x, y, st.binary, binning, args))
        print()
        print(scores_text(st.binary, st.accuracy, st.mean_confidence, st.brier, st.log_loss))
        print()
        print("Calibration tests" + ("" if st.binary else " (top-label confidence)"))
        spieg = st.spiegelhalter
        if not isinstance(spieg, Exception):
            try:
                spieg = _spiegelhalter_htest(*spieg)
            except CalstatsError as exc:
                spieg = exc
        print(str(spieg).rstrip("\n") if not isinstance(spieg, Exception)
              else f"cal_spiegelhalter_test: not computed: {_first_line(spieg)}")
        kw = {} if st.binary else {"type": "confidence"}
        for name in ("cal_ks_test", "cal_kuiper_test"):
            print(_test_text(name, lambda: getattr(calstats, name)(x, y, **kw)).rstrip("\n"))
        if st.binary:
            print()
            print("Clinical validation (val.prob, Hosmer-Lemeshow): left out with --dask (they rank and group the "
                  "rows in memory)")
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and not args.scheduler:
            cluster.close()
    return 0


__all__ = ["add_options", "wanted", "assess", "read_frame"]
