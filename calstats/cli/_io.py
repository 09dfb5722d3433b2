"""Reading and writing the command line's tables and plots (see :mod:`._safety`)."""

import sys
from pathlib import Path

import pandas as pd

from .. import _validate as v
from ._common import _PARQUET


def read_table(path):
    """Read a CSV or Parquet file into a DataFrame, with one-line errors."""
    p = Path(path)
    if not p.exists():
        v.fail_cli_no_file(path)
    if p.is_dir():
        v.fail_cli_directory(path)
    if p.suffix.lower() in _PARQUET:
        try:
            return _restore_categoricals(pd.read_parquet(p), p)
        except ImportError:
            v.fail_cli_read_parquet_needs_pyarrow(path)
        except Exception as exc:  # pyarrow's own errors
            v.fail_cli_unreadable(path, exc, "Parquet")
    try:
        frame = pd.read_csv(p)
    except pd.errors.EmptyDataError:
        v.fail_cli_empty_file(path)
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        v.fail_cli_unreadable(path, exc, "CSV")
    if frame.shape[0] == 0:
        v.fail_cli_no_rows(path)
    return frame


def _restore_categoricals(frame, path):
    """Categorical columns whose categories are numbers come back from Parquet as plain
    numbers (pyarrow keeps only string dictionaries); pandas' own metadata in the file says
    which columns were categorical, so they are made categorical again."""
    import json

    import pyarrow.parquet as pq

    try:
        meta = json.loads(pq.read_schema(path).metadata[b"pandas"])
    except (KeyError, TypeError, ValueError, OSError):
        return frame
    for col in meta.get("columns", []):
        name = col.get("name")
        if col.get("pandas_type") == "categorical" and name in frame.columns \
                and not isinstance(frame[name].dtype, pd.CategoricalDtype):
            ordered = bool((col.get("metadata") or {}).get("ordered", False))
            frame[name] = pd.Categorical(frame[name], ordered=ordered)
    return frame


def write_table(frame, path):
    """Write ``frame`` as CSV (or Parquet for a .parquet/.pq name) atomically; ``-`` is stdout.

    The target was checked before the work (:func:`calstats.cli._safety.check_output`); the
    file appears whole or not at all (written beside it, then renamed).
    """
    from ._safety import atomic_write

    if path in (None, "-"):
        frame.to_csv(sys.stdout, index=False, lineterminator="\n")
        return "standard output"
    p = Path(path)

    def write(tmp):
        if p.suffix.lower() in _PARQUET:
            frame.to_parquet(tmp, index=False)
        else:  # compression from the real name (.csv.gz), not from the temporary one
            frame.to_csv(tmp, index=False, lineterminator="\n", compression=_csv_compression(p))

    try:
        return atomic_write(p, write)
    except ImportError:
        v.fail_cli_write_parquet_needs_pyarrow(path)
    except OSError as exc:
        v.fail_cli_cannot_write(path, exc)


def _csv_compression(p):
    return {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}.get(p.suffix.lower())


def _check_output(path, inputs, force, kind):
    from ._safety import check_output

    return check_output(path, inputs, force, kind)
