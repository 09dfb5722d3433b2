"""``calstats.report``: its sources, columns and settings.
"""

import math
from typing import NoReturn

from .._errors import fail
from .vectors import scalar_number

# --------------------------------------------------------------------------------------
# calstats.report


def fail_report_missing(arg, row, label) -> NoReturn:
    """A missing value of the report's inputs, in ``row`` (1-based; ``label`` its index, if any)."""
    fail(f"Argument `{arg}` has a missing value in row {row}{label}; a calibration report needs complete rows: "
         "drop or impute that row first.")


def refuse_report_reserved():
    """A model named as a reference strategy of the decision curve."""
    fail("A model cannot be named 'all' or 'none' (the decision curve's reference strategies).")


def fail_report_length(name, n_p, n_y) -> NoReturn:
    """A model with another number of rows than the outcome."""
    fail(f"Every model and `y` must have the same number of rows; `{name}` has {n_p}, `y` has {n_y}.")


def fail_report_shape(name, first) -> NoReturn:
    """Models of different forms (vectors and matrices, or matrices of different widths)."""
    fail("The models must all be vectors (binary or time-to-event outcome) or all probability matrices with the "
         f"same number of columns (multiclass); `{name}` is not like `{first}`.")


def fail_report_time_needed() -> NoReturn:
    """A time-to-event outcome without its horizon."""
    fail("A time-to-event outcome `y = (time, status)` needs the horizon `time=`: the predictions are risks of the "
         "event by that time.")


def refuse_report_time(time):
    """A horizon given with an outcome that has no time."""
    if time is not None:
        fail("Argument `time` (the horizon) applies only to a time-to-event outcome `y = (time, status)`.")


def fail_report_time_value() -> NoReturn:
    """A horizon that is not one positive finite number or increasing ones."""
    fail("Argument `time` must be a single positive finite number, or increasing positive finite times (the "
         "models then give a column of risks per time).")


def fail_report_time_columns(k, name, cols) -> NoReturn:
    """A model whose risk matrix has not one column per horizon."""
    fail(f"With {k} times in `time`, every model gives its risks by each time: an n x {k} matrix, one column per "
         f"time in the order of `time`; `{name}` has {cols}.")


def refuse_report_time_beyond(h, last):
    """A horizon beyond the last follow-up time."""
    if h > last:
        fail(f"Argument `time` ({h:g}) is beyond the last follow-up time ({last:g}): no one is followed that long, "
             "so no risk by it can be checked; choose a horizon within follow-up.")


def check_seed(seed):
    """A seed of R's ``set.seed``: a single whole number in R's integer range; returns int."""
    s = scalar_number(seed)
    if s is None or not math.isfinite(s) or s != math.floor(s) or abs(s) >= 2**31:
        fail("Argument `seed` must be a single whole number (R's set.seed).")
    return int(s)


def fail_report_sections(names) -> NoReturn:
    """Sections that are not the report's."""
    fail(f"Argument `sections` must be a list of section names among {names}.")


def fail_report_section_kind(name, kind, names) -> NoReturn:
    """A section of another kind of outcome."""
    fail(f"Section `{name}` does not apply to a {kind} outcome; its sections are {names}.")


def check_report_source(source):
    """``source=``: None or the code that made the inputs."""
    if source is not None and not isinstance(source, str):
        fail("Argument `source` must be a string: the code that made `p` and `y`.")
