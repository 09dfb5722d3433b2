"""One export spelling for every result: the ``as_*`` family (statsmodels', the summaries')
and the same methods under pandas' ``to_*`` names (the report's); Markdown without tabulate."""

import builtins

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats.results._base import CalibratorSummary, Result, table_markdown

FAMILY = ("frame", "html", "latex", "markdown")


@pytest.fixture(scope="module")
def results():
    rs = np.random.default_rng(3)
    p = rs.uniform(0.02, 0.98, 300)
    y = (rs.random(300) < p).astype(int)
    P = rs.dirichlet([2, 2, 2], 300)
    codes = np.array([rs.choice(3, p=r) for r in P]) + 1
    calstats.rng.set_seed(1)
    return {
        "htest": calstats.cal_spiegelhalter_test(p, y),
        "diagram": calstats.reliability_diagram(p, y),
        "calibrator": calstats.cal_platt(p, y),
        "multiclass calibrator": calstats.cal_temperature(np.log(P), codes),
        "compare": calstats.cal_compare(p, y, methods=["platt", "isotonic"], progress=False),
        "hierarchy": calstats.val_prob_ci(p, y, pl=False),
        "pmcalibration": calstats.clinical.pmcalibration(y, p, ci="none"),
        "corp": calstats.corp(p, y, band=None),
        "decision": calstats.clinical.decision_curve(p, y),
        "interval": calstats.cal_ci(p, y, n_boot=20, seed=1),
        "report": calstats.report(p, y, sections=["binned"], figures=False),
    }


@pytest.mark.parametrize("name", ["htest", "diagram", "calibrator", "multiclass calibrator", "compare", "hierarchy",
                                  "pmcalibration", "corp", "decision", "interval", "report"])
def test_both_spellings_give_the_same(results, name):
    r = results[name]
    assert isinstance(r, Result)
    pd.testing.assert_frame_equal(r.to_frame(), r.as_frame())
    assert r.to_html() == r.as_html() and "<" in r.as_html()
    assert r.to_latex() == r.as_latex() and "\\begin{tabular}" in r.as_latex()
    md = r.to_markdown()
    assert md == r.as_markdown()
    table = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len(table) >= 3 and table[1].startswith("| --- |")


def test_summaries_have_both_spellings(results):
    s = results["calibrator"].summary(coef=True)
    assert isinstance(s, CalibratorSummary)
    pd.testing.assert_frame_equal(s.to_frame(), s.as_frame())
    assert s.to_html() == s.as_html() and s.to_latex() == s.as_latex() and s.to_markdown() == s.as_markdown()
    md = s.as_markdown()
    assert "**coef_table**" in md and "| (Intercept) |" in md


def test_markdown_needs_no_tabulate(results, monkeypatch):
    real = builtins.__import__

    def no_tabulate(name, *a, **k):
        if name == "tabulate":
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_tabulate)
    for r in results.values():
        assert r.to_markdown().count("|") > 4


def test_no_result_overrides_one_spelling_without_the_other():
    import importlib
    import pkgutil

    for mod in pkgutil.walk_packages(calstats.__path__, "calstats."):
        if any(part in mod.name for part in ("dask", "sklearn", "__main__")):
            continue
        try:
            importlib.import_module(mod.name)
        except ImportError:
            continue

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    for cls in subclasses(Result):
        for x in FAMILY:
            if f"to_{x}" in vars(cls):
                assert f"as_{x}" in vars(cls) or x == "frame", (cls, x)


def test_markdown_table_escapes_and_shows_missing_values():
    f = pd.DataFrame({"a|b": [1.0, np.nan], "c": ["x|y", "z"]}, index=pd.Index(["r1", "r2"], name="i"))
    assert table_markdown(f).splitlines() == ["| i | a\\|b | c |", "| --- | ---: | ---: |", "| r1 | 1 | x\\|y |",
                                              "| r2 | NaN | z |"]
