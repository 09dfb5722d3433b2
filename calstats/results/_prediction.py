"""The frame that ``predict(newdata, se_fit=True)`` or ``predict(newdata, interval="confidence")``
returns, for every likelihood calibrator (one layout, binary and multiclass)."""

import numpy as np
import pandas as pd

from ..kernels.delta import link_interval

__all__ = ["prediction_frame"]


def prediction_frame(prob, eta, se, *, se_fit, interval, level, levels=None, index=None):
    """Calibrated probabilities with their delta-method uncertainty.

    ``prob``, ``eta`` and ``se`` are ``(n,)`` for a binary map (``eta`` the linear predictor,
    ``se`` its standard error) or ``(n, k)`` for a multiclass map (``eta`` the logit of each
    class's probability, ``se`` its standard error). Columns: ``fit`` (the probability), and
    with ``se_fit`` ``link`` and ``se_link`` (R's ``predict.glm(type = "link", se.fit =
    TRUE)``), with ``interval="confidence"`` ``lower`` and ``upper`` (the Wald interval on
    the link scale mapped through the inverse logit). A multiclass frame has two column
    levels: quantity, then class.
    """
    parts = {"fit": prob}
    if se_fit:
        parts["link"] = eta
        parts["se_link"] = se
    if interval is not None:
        parts["lower"], parts["upper"] = link_interval(eta, se, level)
    if np.ndim(prob) == 1:
        return pd.DataFrame(parts, index=index)
    cols = pd.MultiIndex.from_product([list(parts), list(levels)], names=["quantity", "class"])
    return pd.DataFrame(np.hstack([np.asarray(a, dtype=np.float64) for a in parts.values()]), columns=cols,
                        index=index)
