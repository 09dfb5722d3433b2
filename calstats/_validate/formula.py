"""The formula interface (:mod:`calstats.formula`).
"""

from typing import NoReturn

from .._errors import fail, warn

# --------------------------------------------------------------------------------------
# the formula interface (calstats.formula)


def fail_formula_data() -> NoReturn:
    """``data=`` that is not a DataFrame or a dict of columns."""
    fail("Argument `data` must be a pandas DataFrame (or a dict of columns).")


def fail_formula_type() -> NoReturn:
    """``formula=`` that is not a string."""
    fail("Argument `formula` must be a string such as \"y ~ p1 + p2\".")


def fail_formula_parse(formula, exc) -> NoReturn:
    """A formula that cannot be parsed."""
    fail(f"Cannot parse the formula {formula!r}: {exc}")


def fail_formula_lhs(formula) -> NoReturn:
    """A left-hand side that is not one label column."""
    fail(f"The left-hand side of {formula!r} must be a single label column.")


def fail_formula_interaction(term) -> NoReturn:
    """An interaction among the score columns."""
    fail(f"Interaction terms ({term}) are not allowed: the right-hand side lists score columns.")


def fail_formula_no_scores(formula) -> NoReturn:
    """A formula without score columns."""
    fail(f"The right-hand side of {formula!r} names no score columns.")


def fail_formula_column(column, formula) -> NoReturn:
    """A column of the formula that ``data`` does not have."""
    fail(f"Column `{column}` of the formula {formula!r} is not in `data`.")


def fail_formula_duplicate(column) -> NoReturn:
    """A column name that ``data`` has twice."""
    fail(f"Column name `{column}` is not unique in `data`.")


def fail_formula_term(expr, formula, exc) -> NoReturn:
    """A term of the formula that cannot be evaluated."""
    fail(f"Cannot evaluate `{expr}` of the formula {formula!r}: {exc}")


def fail_formula_term_columns(expr, formula, count) -> NoReturn:
    """A term that gives more than one column."""
    fail(f"Term `{expr}` of the formula {formula!r} must give one numeric column (it gives {count}).")


def fail_formula_numeric(expr, formula, dtype) -> NoReturn:
    """A score column that is not numeric."""
    fail(f"Column `{expr}` of the formula {formula!r} must be numeric (it has dtype {dtype}).")


def fail_formula_classes(k, columns, label, levels_text=None, max_code=None) -> NoReturn:
    """A label whose classes do not match the score columns (its levels, or its class codes)."""
    has = f"class codes up to {max_code}" if max_code is not None else levels_text
    fail(f"The formula has {k} score columns ({columns}) but the label `{label}` has {has}.")


def fail_formula_binary_levels(label, count, levels) -> NoReturn:
    """A binary formula whose label has another number of levels than two."""
    fail(f"A formula with one score column is binary, but the label `{label}` has {count} levels ({levels}).")


def fail_formula_label_missing(label) -> NoReturn:
    """A label with missing values."""
    fail(f"The label `{label}` must not contain missing values.")


def refuse_formula_positive(label=None, levels=None, positive=None):
    """``positive=`` for a 0/1 label (``levels`` None), or not one of its ``levels``, or for a
    multiclass formula (``label`` None)."""
    if label is None:
        fail("`positive` applies to binary formulas (one score column).")
    if levels is None:
        fail(f"`positive` names a level of a label with two levels; the label `{label}` is already 0/1.")
    fail(f"`positive` must be one of the levels of `{label}` ({levels}), not {positive!r}.")


def warn_formula_positive(column, carried, label, positive):
    """A score column named for one level of the label, read for the other (``positive=``)."""
    warn(f"The score column `{column}` names level {carried!r} of `{label}`, but positive={positive!r} makes "
         f"{positive!r} the positive class: the scores are read as P({label} = {positive!r}).")


def warn_formula_second_level(label, levels, positive, column, first):
    """A binary label of two levels without ``positive=``: the second level is the event."""
    warn(f"The label `{label}` has levels {levels}; {positive!r} (the second, as R's glm codes a factor) is the "
         f"positive class, so `{column}` is read as P({label} = {positive!r}). Pass positive='{first}' if the "
         f"scores are for {first!r}.")


def fail_formula_no_label(formula) -> NoReturn:
    """A formula without a label."""
    fail(f"The formula {formula!r} has no label: write it as \"label ~ scores\".")


def fail_formula_one_column(what) -> NoReturn:
    """A function of one probability column given several."""
    fail(f"{what} takes one probability column (\"y ~ p\").")


def refuse_formula_survival(what):
    """A binary-outcome function given ``Surv(time, status)``."""
    fail(f"{what} takes a binary outcome, not Surv(time, status).")


def fail_formula_needs_survival(what) -> NoReturn:
    """A time-to-event function given another outcome."""
    fail(f"{what} takes a time-to-event outcome: write the formula as \"Surv(time, status) ~ risk\" or "
         "\"Event(time, event) ~ risk\".")


def fail_formula_cuminc() -> NoReturn:
    """cuminc's formula with groups."""
    fail("cuminc takes \"Event(time, event) ~ 1\" (groups are not ported).")


def fail_formula_multinomial() -> NoReturn:
    """val_multinomial's formula with fewer than three columns."""
    fail("val_multinomial takes three or more probability columns (\"y ~ p_a + p_b + p_c\").")


def check_dataset_model(model, models):
    """The model of a bundled data set (a ``ValueError``, as before: :class:`CalstatsError` is one)."""
    if model not in models:
        fail(f"model must be one of {', '.join(map(repr, models))}, not {model!r}")
    return model


def fail_model_fit(exc):
    """A model given as an estimator or a callable that cannot be fitted to the data (its own
    error, first line)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    fail(f"The model could not be fitted to `X` and `y` ({type(exc).__name__}: {first}).")
