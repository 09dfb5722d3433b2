"""Report text that more than one command prints: kept here, below both the in-memory
commands and the Dask path, so that the two print the same words."""


def scores_text(binary, accuracy, confidence, brier, log_loss):
    """The ``Scores:`` line of ``calstats assess`` (in memory and on Dask).

    Parameters
    ----------
    binary : bool
        One prediction column (the event rate and mean probability are shown) or several
        (the top-label accuracy and mean confidence).
    accuracy, confidence, brier, log_loss : float
        The scores, printed with four decimals.
    """
    what = "event rate" if binary else "accuracy (top label)"
    conf = "mean probability" if binary else "mean confidence"
    return f"Scores: {what} {accuracy:.4f}, {conf} {confidence:.4f}, Brier {brier:.4f}, log-loss {log_loss:.4f}"
