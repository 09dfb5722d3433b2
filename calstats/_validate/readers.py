"""The readers at the boundary (:mod:`calstats._inputs`): a binary outcome with its
probability, swapped arguments, columns and levels that disagree, several models.
"""

from typing import NoReturn

from .._errors import fail, warn

# --------------------------------------------------------------------------------------
# the readers at the boundary (calstats._inputs)


def fail_proba_columns(arg, k) -> NoReturn:
    """A matrix of more than two columns where a binary outcome's probability belongs."""
    fail(f"Argument `{arg}` has {k} columns; a binary outcome takes one probability per row (or scikit-learn's "
         "n x 2 `predict_proba` output, whose second column is the event's).")


def fail_proba_rows(arg, row, total) -> NoReturn:
    """An n x 2 matrix read as ``predict_proba`` output whose ``row`` (1-based) does not sum to 1."""
    fail(f"Argument `{arg}` has two columns, read as scikit-learn's `predict_proba` output, but row {row} sums "
         f"to {total:.6g}, not 1; pass the probability of the event (one column).")


def fail_columns_order(x, y, columns, levels, fix) -> NoReturn:
    """Columns and categories that name the same classes in another order."""
    fail(f"The columns of `{x}` ({columns}) and the classes of `{y}` ({levels}) name the same classes in another "
         f"order; the columns are read by position: reorder them, e.g. `{x}[{fix}]`.")


def fail_columns_codes(x, y, columns, fix) -> NoReturn:
    """Columns named by class codes in another order than the codes."""
    fail(f"The columns of `{x}` are named {columns}, but `{y}` holds class codes, which name the columns by "
         f"position (code 1 is the first column); reorder the columns, e.g. `{x}[{fix}]`, or pass `{y}` as a "
         "categorical.")


def check_input_choice(requested):
    """``input=``: how predictions are read."""
    if requested not in ("auto", "probabilities", "logits"):
        fail('Argument `input` must be one of "auto", "probabilities", "logits".')
    return requested


def refuse_input_reading(reading, arg):
    """The library's words for the two readings :func:`calstats._inputs.input_kind` refuses
    (a guessed reading only: given explicitly, the reading is obeyed and each method checks
    its input); returns ``reading.kind``."""
    if reading.problem == "rows" and reading.guessed:
        fail(f"Argument `{arg}` holds values in [0, 1] whose rows do not sum to 1 (row {reading.row + 1} sums to "
             f"{reading.total:.6g}; {reading.count} such row{'s' if reading.count > 1 else ''}): give probabilities "
             "whose rows sum to 1, or `input=\"logits\"` if the columns are scores.")
    if reading.problem == "scores":
        fail(f"Argument `{arg}` has values above 1 (the first: {reading.value:.6g} in row {reading.row + 1}) and "
             "none below 0: neither probabilities nor logits (percentages? counts?); fix it, or pass "
             "`input=\"logits\"` if it really holds scores.")
    return reading.kind


def warn_looks_like_probabilities(arg, fn, rows, how):
    """Probabilities given to a function that takes logits and reads them as logits."""
    warn(f"`{arg}` looks like probabilities (every value in [0, 1]{rows}) but {fn}() takes logits and reads it as "
         f"logits; for probabilities pass {how}.")


def fail_no_predictions() -> NoReturn:
    """Several models, none given."""
    fail("Argument `p` must hold the predictions of at least one model.")


def fail_model_twice(name) -> NoReturn:
    """Two models of one name."""
    fail(f"Every model needs its own name; `{name}` is used twice.")


def fail_models_of_dict() -> NoReturn:
    """``models=`` with a dict of models."""
    fail("Argument `models` names the models of a DataFrame `p`; a dict `p` names its models by its keys.")


def fail_models_type() -> NoReturn:
    """``models=`` that is neither a name nor a list of columns of a DataFrame."""
    fail("Argument `models` must be a model name, or a list of column names of a DataFrame `p`.")


def fail_models_columns(names) -> NoReturn:
    """``models=`` naming columns the DataFrame has not."""
    fail(f"Argument `models` names columns that `p` does not have: {names}.")


def fail_models_form() -> NoReturn:
    """Several models in a form that holds none."""
    fail("Argument `p` must be a 1-d array of risks, or a DataFrame or dict of them (one per model).")
