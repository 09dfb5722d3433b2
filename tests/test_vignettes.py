"""Every vignette in vignettes/ (and example in examples/) runs: the documented analyses keep working.

Vignettes are jupytext "percent" scripts (``vignettes/*.py``). They run with small
settings by default; ``CALSTATS_FULL=1`` selects the full-size settings. Render one to
HTML with its outputs and figures:
``jupytext --to ipynb --execute vignettes/NAME.py && jupyter nbconvert --to html vignettes/NAME.ipynb``.
"""

import os
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.skipif(not VIGNETTES, reason="no vignettes yet")
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs(path, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # figures a vignette saves land in a scratch folder
    monkeypatch.setenv("CALSTATS_FULL", os.environ.get("CALSTATS_FULL", "0"))
    runpy.run_path(str(path), run_name="__main__")
    import matplotlib.pyplot as plt

    plt.close("all")
