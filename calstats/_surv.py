"""One reader of a time-to-event outcome, in the spirit of R's ``Surv()``.

Every function that takes a time-to-event outcome reads it here, so that the same forms are
accepted everywhere and a wrong input gets the same message, naming the argument:

* a pair ``(time, status)`` or a list ``[time, status]`` of two vectors;
* an n x 2 array (times in the first column) or a two-column DataFrame;
* a :class:`Surv` object (``calstats.Surv(time, event)``), or anything with ``time`` and
  ``event`` (or ``status``) attributes, or a structured array with a time field and a
  boolean event field (scikit-survival's ``Surv.from_arrays``);
* for functions that take them as two arguments (``concordance(time, status, risk)``),
  the two vectors, named after those arguments.

The status is read as ``survival::Surv`` reads an event: 0/1, booleans, R's 1/2 coding
(1 censored, 2 event) when every value is 1 or 2, or a two-level categorical whose first
level is censoring. A competing-risk outcome (functions with ``cause=``) is an event code:
0 censored and whole numbers 1, 2, ... the causes, or a categorical whose first level is
censoring and the other levels the causes (as ``Surv(time, factor)`` and dcurves read it).

The messages are the validators of :mod:`calstats._validate`.
"""

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._frames import native
from ._validate import (
    check_cause,
    check_surv_lengths,
    check_surv_status,
    check_surv_time,
    fail_surv_form,
)

__all__ = ["Surv", "SurvOutcome", "is_surv", "is_multistate", "surv_parts", "read_surv", "read_surv_args"]


class Surv:
    """A right-censored (or competing-risk) time-to-event outcome, as R's ``Surv(time, event)``.

    Parameters
    ----------
    time : array_like
        Follow-up times (numbers; a missing time is allowed here and refused, or dropped,
        by the function that reads the outcome).
    event : array_like
        The event: 0 (censored) / 1 (event) or booleans, R's 1 (censored) / 2 (event)
        coding, or for competing risks an event code (0 censored, 1, 2, ... the causes), or
        a categorical whose first level is censoring.

    Attributes
    ----------
    time : numpy.ndarray
        The times (float64, a copy).
    event : numpy.ndarray or pandas.Categorical
        The event as given (a copy).

    Notes
    -----
    R: ``survival::Surv(time, event)`` (right-censored) and ``Surv(time, factor(event))``
    (the multi-state form a competing-risk outcome takes). A ``Surv`` object can be passed
    wherever calstats takes a time-to-event ``y``; its ``repr`` is R's print (``5+`` for a
    time censored at 5, ``3:2`` for cause 2 at time 3 in a competing-risk outcome).
    """

    def __init__(self, time: Any, event: Any) -> None:
        t = check_surv_time(time, "time", allow_missing=True)
        status, _ = check_surv_status(event, "event", competing=True, allow_missing=True)
        check_surv_lengths("y", t.size, status.size, names=("time", "event"))
        self.time = t
        if isinstance(event, (pd.Series, pd.Index)) and isinstance(event.dtype, pd.CategoricalDtype):
            event = pd.Categorical(event)
        self.event = event.copy() if isinstance(event, pd.Categorical) else np.array(event).reshape(-1)

    def __len__(self) -> int:
        return int(self.time.size)

    @property
    def type(self) -> str:
        """``"right"`` (censored/event) or ``"mstate"`` (several causes), as R's ``attr(, "type")``."""
        status, levels = check_surv_status(self.event, "event", competing=True, allow_missing=True)
        if levels is not None:
            return "right" if len(levels) <= 1 else "mstate"
        codes = set(np.asarray(status, dtype=np.float64)[~np.isnan(np.asarray(status, dtype=np.float64))].tolist())
        return "right" if codes <= {0.0, 1.0} or codes <= {1.0, 2.0} else "mstate"

    def to_frame(self) -> pd.DataFrame:
        """The outcome as a two-column frame ``time``, ``event``."""
        return pd.DataFrame({"time": self.time, "event": self.event})

    def __repr__(self) -> str:
        from .numerics.rformat import format_real

        t = self.time
        shown = [s.strip() for s in format_real([float(v) for v in t if not np.isnan(v)], 7)] if t.size else []
        cells, k = [], 0
        mstate = self.type == "mstate"
        status, levels = check_surv_status(self.event, "event", competing=True, allow_missing=True)
        st = np.asarray(status, dtype=np.float64)
        if not mstate and not np.isnan(st).all() and levels is None and np.nanmax(st) == 2 and np.nanmin(st) >= 1:
            st = st - 1.0
        for v, s in zip(t, st):
            if np.isnan(v):
                cells.append("NA")
                continue
            text = shown[k]
            k += 1
            if np.isnan(s):
                cells.append(text + "?")
            elif s == 0:
                cells.append(text + "+")
            elif mstate:
                label = levels[int(s) - 1] if levels is not None else str(int(s))
                cells.append(f"{text}:{label}")
            else:
                cells.append(text)
        return "Surv(" + " ".join(cells) + ")"


class SurvOutcome(NamedTuple):
    """A checked time-to-event outcome.

    ``time`` (float64; NaN for a missing time where the caller allows it), ``status``
    (int64 0/1, or the event codes of a competing-risk outcome: 0 censored, the cause codes
    otherwise; float64 with NaN when a missing value is allowed and present), ``causes``
    (competing risks: the causes, as the codes present, sorted, or the categorical's
    levels; else ``(1,)``), ``names`` (how the messages name the two parts) and ``arg``.
    """

    time: np.ndarray
    status: np.ndarray
    causes: tuple
    names: tuple[str, str]
    arg: str

    @property
    def n(self) -> int:
        return int(self.time.size)

    def cause_code(self, cause: Any, arg: str = "cause") -> int:
        """The status code of ``cause`` (a code or a level name; ``None``: the first cause,
        riskRegression's and dcurves' default)."""
        if cause is None:
            if not self.causes:
                check_cause(None, (), arg)
            k = 0
        else:
            k = check_cause(cause, self.causes, arg)
        c = self.causes[k]
        return int(c) if isinstance(c, (int, np.integer)) else k + 1

    def cause_label(self, code: int) -> str:
        """The name of a cause code."""
        for k, c in enumerate(self.causes):
            if (isinstance(c, (int, np.integer)) and int(c) == code) or (not isinstance(c, (int, np.integer))
                                                                         and k + 1 == code):
                return str(c)
        return str(code)


def _is_vector(v: Any) -> bool:
    try:
        return bool(np.ndim(v) == 1) and not isinstance(v, (str, bytes))
    except Exception:
        return False


def _structured_fields(y: Any) -> tuple[str, str] | None:
    """(time field, event field) of a two-field structured array with one boolean field."""
    names = getattr(getattr(y, "dtype", None), "names", None)
    if not isinstance(y, np.ndarray) or names is None or len(names) != 2:
        return None
    kinds = [y.dtype[n].kind for n in names]
    if kinds.count("b") != 1:
        return None
    event = names[kinds.index("b")]
    return (names[1 - kinds.index("b")], event)


def _attribute_parts(y: Any) -> tuple[str, str] | None:
    if isinstance(y, (pd.DataFrame, pd.Series, np.ndarray, tuple, list, dict)):
        return None
    if hasattr(y, "time"):
        for name in ("event", "status"):
            if hasattr(y, name):
                return ("time", name)
    return None


def is_surv(y: Any) -> bool:
    """Whether ``y`` has the shape of a time-to-event outcome (see the module notes); its
    values are not checked."""
    y = native(y)  # polars, pyarrow, torch, ...: as pandas or NumPy
    if isinstance(y, Surv) or _attribute_parts(y) is not None or _structured_fields(y) is not None:
        return True
    if isinstance(y, pd.DataFrame):
        return y.shape[1] == 2
    if isinstance(y, (tuple, list)):
        return len(y) == 2 and all(_is_vector(v) for v in y)
    if isinstance(y, np.ndarray):
        return y.ndim == 2 and y.shape[1] == 2
    return False


def is_multistate(y: Any) -> bool:
    """Whether a time-to-event outcome is a competing-risk one by its form alone (as R's
    ``Surv(time, factor)``): a :class:`Surv` with several causes, or a status that is a
    categorical with more than two levels."""
    if isinstance(y, Surv):
        return y.type == "mstate"
    if not is_surv(y):
        return False
    status = surv_parts(y)[1]
    dtype = getattr(status, "dtype", None)
    if isinstance(status, pd.Categorical) or isinstance(dtype, pd.CategoricalDtype):
        return len(pd.Categorical(status).categories) > 2
    return False


def surv_parts(y: Any, arg: str = "y") -> tuple[Any, Any, tuple[str, str]]:
    """``(time, status, names)``: the two parts of a time-to-event outcome as given (not
    checked; for callers that look at missing values first) and how messages name them.
    Anything else: the message of :func:`calstats._validate.fail_surv_form`."""
    y = native(y, arg)
    if isinstance(y, Surv):
        return y.time, y.event, (f"{arg}.time", f"{arg}.event")
    attrs = _attribute_parts(y)
    if attrs is not None:
        return getattr(y, attrs[0]), getattr(y, attrs[1]), (f"{arg}.{attrs[0]}", f"{arg}.{attrs[1]}")
    fields = _structured_fields(y)
    if fields is not None:
        return y[fields[0]], y[fields[1]], (f'{arg}["{fields[0]}"]', f'{arg}["{fields[1]}"]')
    if not is_surv(y):
        fail_surv_form(arg)
    if isinstance(y, pd.DataFrame):
        c0, c1 = y.columns[0], y.columns[1]
        return y.iloc[:, 0], y.iloc[:, 1], (f'{arg}["{c0}"]', f'{arg}["{c1}"]')
    if isinstance(y, (tuple, list)):
        return y[0], y[1], (f"{arg}[0]", f"{arg}[1]")
    return y[:, 0], y[:, 1], (f"{arg}[:, 0]", f"{arg}[:, 1]")


def _length(v: Any) -> int:
    return int(np.shape(v)[0]) if np.ndim(v) else 1


def _read(t: Any, s: Any, names: tuple[str, str], arg: str, pair: bool, competing: bool,
          allow_missing: bool) -> SurvOutcome:
    t, s = native(t, names[0]), native(s, names[1])
    check_surv_lengths(arg, _length(t), _length(s), names=None if pair else names)
    time = check_surv_time(t, names[0], allow_missing=allow_missing)
    status, levels = check_surv_status(s, names[1], competing=competing, allow_missing=allow_missing)
    if not competing:
        causes: tuple = (1,)
    elif levels is not None:
        causes = tuple(levels)
    else:
        st = np.asarray(status, dtype=np.float64)
        causes = tuple(int(c) for c in np.unique(st[~np.isnan(st)]) if c > 0)
    return SurvOutcome(time, status, causes, names, arg)


def read_surv(y: Any, arg: str = "y", *, competing: bool = False, allow_missing: bool = False) -> SurvOutcome:
    """Read and check a time-to-event outcome given as one argument (any form of the module
    notes).

    Parameters
    ----------
    y : tuple, list, array, DataFrame or Surv
        The outcome.
    arg : str
        The argument's name in messages.
    competing : bool
        Read the status as an event code (0 censored, 1..k causes).
    allow_missing : bool
        Keep missing values as NaN (for callers that drop such rows with R's message);
        otherwise they are refused.

    Returns
    -------
    SurvOutcome
    """
    t, s, names = surv_parts(y, arg)
    return _read(t, s, names, arg, True, competing, allow_missing)


def read_surv_args(time: Any, status: Any, names: tuple[str, str] = ("time", "status"), *,
                   competing: bool = False, allow_missing: bool = False) -> SurvOutcome:
    """Read and check a time-to-event outcome given as two arguments (``time``, ``status``);
    ``time`` may also be a whole outcome (a :class:`Surv` object or any form of
    :func:`read_surv`) with ``status=None``."""
    if status is None and is_surv(time):
        return read_surv(time, names[0], competing=competing, allow_missing=allow_missing)
    return _read(time, status, names, names[0], False, competing, allow_missing)
