"""matplotlib is an optional extra: without it, every plot says so in one line (it was a raw
"No module named 'matplotlib'" from most results)."""

import sys

import numpy as np
import pytest

import calstats
from calstats.clinical import decision_curve, pmcalibration, val_prob_ci


@pytest.fixture
def no_matplotlib(monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)


def _data():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 300)
    y = (rng.uniform(size=300) < p).astype(int)
    return p, y


def test_every_plot_names_the_missing_extra(no_matplotlib):
    p, y = _data()
    results = {
        "CorpDiagram.plot()": calstats.corp(p, y),
        "CorpClasswise.plot()": calstats.corp(np.column_stack([1 - p, p]), y + 1),
        "ReliabilityDiagram.plot()": calstats.reliability_diagram(p, y),
        "DecisionCurve.plot()": decision_curve(p, y),
        "PMCalibration.plot()": pmcalibration(y, p, smooth="rcs", ci="none"),
        "CalibrationHierarchy.plot()": val_prob_ci(p, y, pl=False),
    }
    for what, res in results.items():
        with pytest.raises(ImportError) as err:
            res.plot()
        assert str(err.value) == f"{what} needs matplotlib: pip install 'calstats[plot]' (or pip install matplotlib)"
