"""reliabilitydiag's own man-page examples, replayed with ``calstats.corp``.

The references are ``tests/fixtures/reliabilitydiag_examples.json``, written by
``tools/r-reference/make_reliabilitydiag_examples.R`` (reliabilitydiag 0.2.1.9000, tibble
3.1.8, pillar 1.8.1): every example of ``?reliabilitydiag``, ``?c.reliabilitydiag``,
``?plot.reliabilitydiag``, ``?"[.reliabilitydiag"`` and ``?summary.reliabilitydiag`` that
calstats has a function for (one forecast per ``corp`` call; ``summary`` is
``decomposition``; the plots and discrimination diagrams are not compared). Resampling
bands run after the ``set.seed`` the generator records. Numbers agree to 1e-10 (to the bit
on the exact platform); printed summaries line by line.
"""

import math

import numpy as np
import pandas as pd
import pytest

from _rcases import EXACT_PLATFORM, load_fixture
from calstats import rng
from calstats._errors import CalstatsError
from calstats.evaluation.corp import CorpDecomposition, corp
from calstats.numerics.pillar import format_dbl_column, format_tibble, signif

FIX = load_fixture("reliabilitydiag_examples")
EX = FIX["examples"]
TOL = 1e-10
FORECASTS = ("Logistic", "EMOS", "ENS", "EPC")


def A(v):
    return np.array([{"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(x, x) for x in v],
                    dtype=np.float64)


DATA = {k: A(v) for k, v in FIX["data"].items()}
Y = DATA["obs"].astype(np.int64)


def close(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.all(np.abs(got[ok] - want[ok]) <= TOL)
    if EXACT_PLATFORM:
        assert np.array_equal(got, want, equal_nan=True)


def text(lines):
    return "\n".join(lines) + "\n"


def check_band(d, want):
    close(d.band["x"], A(want["x"]))
    close(d.band["lower"], A(want["lower"]))
    close(d.band["upper"], A(want["upper"]))
    assert d.regions["method"].iloc[0] == want["method"]
    assert d.regions["level"].iloc[0] == want["level"]
    assert d.regions["position"].iloc[0] == want["position"]


def check_summary(dec, want, row=0):
    forecasts = want["forecast"] if isinstance(want["forecast"], list) else [want["forecast"]]
    assert dec.forecast == forecasts[row]
    for field in ("mean_score", "miscalibration", "discrimination", "uncertainty"):
        close([getattr(dec, field)], A(want[field])[row:row + 1])


def several(decs):
    """The decomposition of several forecasts in one table (R's summary of a combined
    reliabilitydiag)."""
    names = [d.forecast for d in decs]
    cols = {f: pd.Series([getattr(d, f) for d in decs], index=names)
            for f in ("mean_score", "miscalibration", "discrimination", "uncertainty")}
    return CorpDecomposition(forecast=names, score=decs[0].score, **cols)


# --------------------------------------------------------------------------------------
# ?reliabilitydiag


def test_reliabilitydiag_default_band_and_print():
    e = EX["rd_emos"]
    d = corp(DATA["EMOS"], Y, name="EMOS", seed=e["seed"])
    check_band(d, e["band"])
    check_summary(d.decomposition(), e["summary"])
    assert d.decomposition().print_text() == text(e["print"])
    assert d.print_text().endswith(text(e["print"]))


def test_reliabilitydiag_without_band():
    e = EX["rd_x"]
    d = corp(DATA["EMOS"], Y, band=None, name="X")
    assert d.band is None and len(d.regions) == e["regions_rows"] == 0
    assert d.decomposition().print_text() == text(e["print"])


def test_reliabilitydiag_observations_from_an_existing_diagram():
    # reliabilitydiag(X2 = ENS, r = r) takes only the observations from r
    e = EX["rd_x2"]
    d = corp(DATA["ENS"], Y, band=None, name="X2")
    check_summary(d.decomposition(), e["summary"])
    assert d.decomposition().print_text() == text(e["print"])


# --------------------------------------------------------------------------------------
# ?c.reliabilitydiag and ?summary.reliabilitydiag


@pytest.mark.parametrize("key, names", [("summary", ["EMOS", "ENS", "EPC"]),
                                        ("summary_all", ["EMOS", "ENS", "EPC", "Logistic"])])
def test_combined_diagrams(key, names):
    e = EX["c_combined"]
    decs = [corp(DATA[f], Y, band=None, name=f).decomposition() for f in names]
    for i, dec in enumerate(decs):
        check_summary(dec, e[key], i)
    assert several(decs).print_text() == text(e["print" if key == "summary" else "print_all"])


def test_summary_brier_and_user_score():
    e = EX["summary"]
    brier = [corp(DATA[f], Y, band=None, name=f).decomposition() for f in FORECASTS]
    user = [corp(DATA[f], Y, band=None, name=f).decomposition(lambda y, x: (x - y) ** 2) for f in FORECASTS]
    for i in range(4):
        check_summary(brier[i], e["brier"], i)
        check_summary(user[i], e["user"], i)
    assert several(brier).print_text() == text(e["print"])
    # R deparses the function for the heading; the table is the same
    got = several(user).print_text().split("\n", 1)
    assert got[0] == "'<lambda>' score decomposition (see also ?summary.reliabilitydiag)"
    assert got[1] == text(e["print_user"][1:])


# --------------------------------------------------------------------------------------
# ?plot.reliabilitydiag and ?"[.reliabilitydiag"


def test_plot_example_band_and_bins():
    e = EX["plot_rr"]
    d = corp(DATA["EMOS"], Y, level=0.9, name="EMOS", seed=e["seed"])
    check_band(d, e["band"])
    assert d.decomposition().print_text() == text(e["print"])
    for b in EX["plot_bins"]:
        dd = corp(DATA[b["forecast"]], Y, band=None, name=b["forecast"])
        close(dd.bins["n"], A(b["n"]))
        close(dd.bins["x_min"], A(b["x_min"]))
        close(dd.bins["x_max"], A(b["x_max"]))
        close(dd.bins["CEP_pav"], A(b["CEP_pav"]))
        assert dd.xinfo["type"] == b["xtype"]


def test_subsetting_example_draws_from_one_stream():
    # reliabilitydiag(precip[c("Logistic", "EMOS")]) draws Logistic's band, then EMOS's
    e = EX["sub"]
    with rng._seeded(e["seed"]):
        lo = corp(DATA["Logistic"], Y, name="Logistic")
        em = corp(DATA["EMOS"], Y, name="EMOS")
    check_band(lo, e["logistic_band"])
    check_band(em, e["emos_band"])
    assert lo.decomposition().print_text() == text(e["print_1"])
    assert em.decomposition().print_text() == text(e["print_emos"])


# --------------------------------------------------------------------------------------
# the name argument


def test_name_defaults_and_errors():
    x, y = DATA["EMOS"], Y
    assert corp(x, y, band=None).forecast == "p"
    assert corp(x, y, band=None, name="EMOS").forecast == "EMOS"
    P = np.column_stack([x, 1 - x])
    assert corp(P, y + 1, type="confidence", band=None).forecast == "confidence"
    assert corp(P, y + 1, type="confidence", band=None, name="top").forecast == "top"
    for bad in ("", 3, ["a"]):
        with pytest.raises(CalstatsError) as err:
            corp(x, y, band=None, name=bad)
        assert str(err.value) == "Argument `name` must be `None` or a single non-empty string."
    with pytest.raises(CalstatsError) as err:
        corp(P, y + 1, band=None, name="EMOS")
    assert str(err.value) == ("Argument `name` names one forecast; a classwise diagram names its forecasts by "
                              "the class labels.")


# --------------------------------------------------------------------------------------
# pillar's numbers


def _values(v):
    out = []
    for x in v:
        if x == "NA":
            out.append(None)
        else:
            out.append({"NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(x, x))
    return out


@pytest.mark.parametrize("i", range(len(FIX["pillar_cases"])))
def test_pillar_prints_numbers_as_r(i):
    case = FIX["pillar_cases"][i]
    vals = _values(case["values"])  # None is R's NA
    got = format_tibble([("forecast", "chr", [f"f{j + 1}" for j in range(len(vals))]), ("value", "dbl", vals)])
    assert got == text(case["print"])


def test_signif_is_r_fprec():
    assert signif(0.0171234, 3) == 0.0171
    assert signif(123456.0, 3) == 123000.0
    assert signif(-2.5e-17, 1) == -2e-17  # half to even, as R's nearbyint
    assert signif(0.0, 3) == 0.0 and math.isinf(signif(math.inf, 3))
    assert format_dbl_column([]) == []
