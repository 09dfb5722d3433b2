"""calstats.report's page reads right: the settings reach every sentence and label, each
call in the provenance is the call that ran (evaluating it gives the page's result), flags
stand beside the numbers that rows left out or one extreme case drive, every abbreviation
is explained, the time-to-event report exports, and a progress bar runs by section."""

import html
import re

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats.reporting import report
from calstats.reporting._words import GLOSSARY


@pytest.fixture(scope="module")
def data():
    rs = np.random.default_rng(41)
    n = 300
    s = rs.normal(size=n) * 1.4
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    return {"A": 1 / (1 + np.exp(-s)), "B": 1 / (1 + np.exp(-1.7 * s + 0.2))}, y


@pytest.fixture(scope="module")
def settings_report(data):
    models, y = data
    return report(models, y, level=0.9, band_level=0.8, seed=3, bins=7, n_sim=60, n_resamples=30, g=8)


def _visible(page):
    """The page's text without its figures, styles and code."""
    text = re.sub(r"<svg.*?</svg>|<style>.*?</style>|<code>.*?</code>|<pre.*?</pre>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def test_level_band_level_seed_and_bins_reach_every_sentence_and_label(settings_report):
    rep = settings_report
    text = _visible(rep.to_html())
    for old in ("95%", "seed 1", "10 equal-width", "90% consistency"):
        assert old not in text, old
    for new in ("90% CI", "80% consistency band", "7 equal-width bins", "seed 3", "the exact AUC with DeLong's 90% interval",
                "90% percentiles of 60 simulated draws", "In 8 groups of predicted risk"):
        assert new in text, new
    assert "with its 90% band" in " ".join(f.caption for s in rep.sections for f in s.figures)
    sentences = " ".join(rep.as_frame()["sentence"])
    assert "95%" not in sentences and "90% CI" in sentences


def test_every_provenance_call_gives_the_pages_result(settings_report, data):
    """The calls listed are the calls that ran: evaluating each gives the result the page read."""
    rep = settings_report
    models, y = data
    checked = 0
    for sec in rep.sections:
        for src in sec.sources:
            if not src.call.startswith("calstats."):
                continue  # counts and means of the data
            ns = {"calstats": calstats, "y": y, "models": models, "p": models["A"]}
            got = eval(src.call, ns)  # noqa: S307 - the page's own calls
            fn = src.call.split("(")[0].rsplit(".", 1)[1]
            key = {"cal_ks_test": "ks", "cal_kuiper_test": "kuiper", "cal_spiegelhalter_test": "spiegelhalter",
                   "hoslem_test": "hoslem", "decision_curve": "decision"}.get(fn, fn)
            if fn == "ece" and "classwise" in src.what:
                key = "ece_classwise"
            model = "*" if key == "decision" else "A"
            want = rep.results[key][model]
            if isinstance(want, float):
                assert got == want, src
            else:
                pd.testing.assert_frame_equal(got.as_frame(), want.as_frame())
            checked += 1
    assert checked == 11  # val_prob_ci (two sections), pmcalibration, corp, diagram, ece, 3 tests, hoslem, dca
    calls = " ".join(s.call for sec in rep.sections for s in sec.sources)
    assert "level=0.9" in calls and "level=0.8" in calls and "seed=3" in calls and "bins=7" in calls
    r = " ".join(s.r for sec in rep.sections for s in sec.sources)
    assert "set.seed(3)" in r and "region.level = 0.8" in r and "g = 8" in r and "cl.level = 0.9" in r


@pytest.fixture(scope="module")
def extreme():
    rs = np.random.default_rng(5)
    n = 400
    s = rs.normal(size=n) * 1.5
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    p = 1 / (1 + np.exp(-s))
    top = int(np.argmax(p))
    p[top], y[top] = 0.9999974, 0  # one case at an extreme risk, without the event
    zero = np.flatnonzero(y == 0)[:6]
    p[zero] = 0.0  # six risks of exactly 0
    return p, y


def test_rows_left_out_and_an_extreme_case_are_flagged_beside_the_numbers(extreme):
    p, y = extreme
    rep = report({"m": p}, y, sections=["hierarchy", "curve"], n_sim=100, figures=False)
    left = "6 of 400 rows left out (risk exactly 0 or 1)"
    for stat in ("citl", "slope"):
        assert rep.section("hierarchy").row(stat).values["m"].flags == [left]
    emax = rep.section("curve").row("Emax").values["m"]
    assert emax.flags == [left, "set by the highest case (risk 0.9999974, outcome 0)"]
    assert rep.section("hierarchy").row("oe").values["m"].flags == []
    page = rep.to_html()
    glance = page.split('class="stats glance"')[1].split("</table>")[0]
    assert glance.count(left) == 3  # beside the intercept, the slope and the ICI
    assert "\u26a0" in glance
    md = rep.to_markdown()
    assert f"[{left}]" in md
    frame = rep.as_frame().set_index(["section", "statistic"])
    assert frame.loc[("curve", "Emax"), "flags"] == "; ".join(emax.flags)


def test_no_flag_without_cause(data):
    models, y = data
    rep = report(models, y, sections=["hierarchy", "curve"], n_sim=60, figures=False)
    assert (rep.as_frame()["flags"] == "").all()


def _multiclass_report():
    rs = np.random.default_rng(12)
    P = rs.dirichlet([2, 2, 2], 240)
    codes = np.array([rs.choice(3, p=r) for r in P]) + 1
    return report({"m": P}, pd.Categorical.from_codes(codes - 1, list("abc")), n_resamples=20)


def _survival_report():
    rs = np.random.default_rng(13)
    lp = rs.normal(size=200)
    t, c = rs.exponential(1 / np.exp(lp - 1)), rs.exponential(3, 200)
    return report({"m": 1 - np.exp(-np.exp(lp - 1))}, (np.minimum(t, c), (t <= c).astype(int)), time=1.0, n_boot=20)


def _survival_times_report():
    rs = np.random.default_rng(13)
    lp = rs.normal(size=200)
    t, c = rs.exponential(1 / np.exp(lp - 1)), rs.exponential(3, 200)
    times = [0.5, 1.0]
    p = np.column_stack([1 - np.exp(-np.exp(lp - 1) * g) for g in times])
    return report({"m": p}, (np.minimum(t, c), (t <= c).astype(int)), time=times, n_boot=20)


def _competing_report():
    rs = np.random.default_rng(13)
    x = rs.normal(size=200)
    t1, t2, c = rs.exponential(1 / np.exp(x - 1)), rs.exponential(2, 200), rs.exponential(3, 200)
    event = np.select([t1 <= np.minimum(t2, c), t2 <= np.minimum(t1, c)], [1, 2], 0)
    return report({"m": 1 - np.exp(-np.exp(x - 1))}, (np.minimum.reduce([t1, t2, c]), event), time=1.0, cause=1)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "survival", "survival_times", "competing"])
def test_every_abbreviation_is_explained_once(settings_report, kind):
    rep = {"binary": lambda: settings_report, "multiclass": _multiclass_report, "survival": _survival_report,
           "survival_times": _survival_times_report, "competing": _competing_report}[kind]()
    page = rep.to_html()
    text = _visible(page)
    terms = page.split('class="terms"')[1].split("</p>")[0]
    shown = [html.unescape(t) for t in re.findall(r"<b>(.*?)</b>", terms)]
    explained = {t for key in shown for t in key.split(", ")}
    explained |= {t for key in shown for t in re.findall(r"\(([A-Z]{2,})\)", GLOSSARY[key])}  # ROC in AUC's
    tokens = set(re.findall(r"\b(?:O:E|[A-Z][A-Z0-9]+|E50|E90|Emax|X²)(?![a-z])", text))
    unexplained = {t for t in tokens - explained if t not in ("NA",)}
    assert not unexplained, unexplained
    for t in {"binary": ("AUC", "ICI", "ECE", "CORP", "CEP", "MCB", "O:E"), "multiclass": ("PDI", "LR", "ECE", "CORP"),
              "survival": ("ICI", "rcs", "AUC", "IPCW", "IPA"), "survival_times": ("IBS", "IPA", "AUC(t)"),
              "competing": ("AUC(t)", "IPCW", "IPA")}[kind]:
        assert terms.count(f"<b>{t}</b>") == 1, t


def test_a_time_to_event_report_exports_markdown_and_latex():
    rs = np.random.default_rng(13)
    n = 200
    lp = rs.normal(size=n)
    t = rs.exponential(1 / np.exp(lp - 1))
    c = rs.exponential(3, n)
    time, status = np.minimum(t, c), (t <= c).astype(int)
    p = 1 - np.exp(-np.exp(lp - 1))
    rep = report({"m": p}, (time, status), time=1.0, sections=["decision"], figures=False)
    wide = rep.section("decision").details[0].frame
    assert wide.isna().any().any()  # the net benefit at the highest thresholds is not estimable
    md, tex = rep.to_markdown(), rep.to_latex()
    assert "| NA |" in md or "| NA" in md
    assert "NA" in tex and "\\begin{tabular}" in tex
    assert any("not estimable" in note for note in rep.section("decision").notes)


def test_a_progress_bar_by_section(data, capsys):
    models, y = data
    report(models["A"], y, sections=["binned", "tests"], figures=False, progress=True)
    err = capsys.readouterr().err
    assert "calstats.report" in err and "/3" in err and "binned" in err


def test_the_source_is_shown_before_the_rerun_call(data):
    models, y = data
    src = "import calstats\np = ...\n"
    rep = report(models["A"], y, sections=["binned"], figures=False, source=src)
    page = rep.to_html()
    block = html.unescape(page.split('<pre class="rerun"><code>')[1].split("</code>")[0])
    assert block == src + rep.call
    with pytest.raises(calstats.CalstatsError, match="Argument `source` must be a string"):
        report(models["A"], y, sections=["binned"], source=3)


def test_sizes_above_which_a_section_changes_method_are_on_the_page(data, monkeypatch):
    from calstats.reporting.sections import corp, curve

    assert curve.draws(20_000, None) == 1000 and curve.draws(100_000, None) == 200
    assert curve.draws(100_000, 500) == 500 and curve.draws(1_000_000, 1000) == 0
    assert corp.resamples(100_000, None) == 100 and corp.resamples(1_000_000, None) == 50
    assert corp.resamples(1_000_000, 100) == 100
    models, y = data
    # the same rules at a small size: the page says what changed and why
    monkeypatch.setattr(curve, "SIM_FULL_N", 100)
    monkeypatch.setattr(curve, "SIM_BUDGET", 30_000)  # 300 rows: 100 draws
    monkeypatch.setattr(curve, "SIM_MIN_DRAWS", 50)
    monkeypatch.setattr(corp, "RESAMPLES_BUDGET", 9_000)  # 300 rows: 30 resamples
    rep = report(models["A"], y, sections=["curve", "corp"], figures=False)
    notes = " ".join(rep.section("curve").notes + rep.section("corp").notes)
    assert "Above 100 rows the intervals come from 100 simulated draws instead of 1000" in notes
    assert "Above 90 rows the band comes from 30 resamples instead of 100" in notes
    assert "100 simulated draws of the curve" in rep.section("curve").intro
    assert "30 resamples" in rep.section("corp").intro
    calls = " ".join(s.call for sec in rep.sections for s in sec.sources)
    assert "n=100" in calls and "n_resamples=30" in calls
    monkeypatch.setattr(curve, "SIM_MAX_N", 200)
    rep = report(models["A"], y, sections=["curve"], figures=False)
    assert "given without intervals" in " ".join(rep.section("curve").notes)
    assert rep.section("curve").row("Eavg").values["model"].lower is None
    assert "ci='none'" in rep.section("curve").sources[0].call


def test_a_curve_above_one_widens_the_frame_and_labels_are_the_pages():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from calstats.reporting._figures import LABELS, tidy

    ax = Figure().add_subplot()
    x = np.linspace(0, 1, 50)
    ax.plot([0, 1], [0, 1])
    ax.plot(x, 1.25 * x)  # a curve that leaves [0, 1]
    ax.fill_between(x, x - 0.1, x + 0.1)
    ax.set_ylim(-0.15, 1.0)
    ax.set_xlabel("Forecast value")
    tidy(ax, "binary", curve="Calibration curve", band="95% band")
    assert ax.get_ylim()[1] >= 1.25 and ax.get_ylim()[0] == -0.15
    assert (ax.get_xlabel(), ax.get_ylabel()) == LABELS["binary"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Ideal", "Calibration curve", "95% band"]


def test_a_band_through_many_points_is_drawn_as_its_envelope():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from calstats.reporting._figures import BAND_STRIPS, thin_bands

    rs = np.random.default_rng(2)
    x = np.sort(rs.random(50_000))
    lo, hi = x - 0.05 - 0.02 * rs.random(x.size), x + 0.05 + 0.02 * rs.random(x.size)
    ax = Figure().add_subplot()
    coll = ax.fill_between(x, lo, hi)
    thin_bands(ax)
    v = coll.get_paths()[0].vertices
    assert len(v) <= 4 * BAND_STRIPS + 2
    # the envelope covers the band: at every point the new polygon's top is at least its upper value
    top = v[: len(v) // 2]
    at = np.clip(np.searchsorted(top[::2, 0], x, side="right") - 1, 0, len(top) // 2 - 1)
    assert (top[::2, 1][at] >= hi - 1e-12).all()
