"""The report's sections: every number comes from one call of a public calstats function.

Each section is computed per model by the functions that already exist (the clinical
validation of ``calstats.clinical``, the measures and tests of ``calstats.evaluation``);
this module only calls them, takes their numbers as they are and writes the sentence
that goes with each one (:mod:`._words`). A function that refuses the data (or warns)
leaves its reason in the section's notes, so one refusal never hides the other sections.
"""

import io
import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import numpy as np
import pandas as pd

from .. import rng
from .._errors import CalstatsError
from ..clinical.decision import decision_curve
from ..clinical.hierarchy import val_prob_ci
from ..clinical.hoslem import hoslem_test
from ..clinical.multinomial import val_multinomial
from ..clinical.multinomial_pdi import pdi_exact
from ..clinical.pmcal import pmcalibration
from ..evaluation.caltests import cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test
from ..evaluation.corp import corp
from ..evaluation.diagnostics import reliability_diagram
from ..evaluation.metrics import ece
from ..kernels.toplabel import top_label
from ..numerics.reductions import rmean, rsum
from . import _words as words
from ._inputs import Inputs

__all__ = ["Value", "Row", "Detail", "Fig", "Section", "Settings", "build", "SECTIONS"]

#: The sections of each kind of outcome, in order ("data" and "provenance" always come).
SECTIONS = {
    "binary": ("discrimination", "hierarchy", "curve", "corp", "binned", "tests", "decision"),
    "multiclass": ("discrimination", "hierarchy", "corp", "binned", "tests"),
    "survival": ("curve", "decision"),
}
ALL = "*"  # the column of a number that belongs to no one model


@dataclass
class Value:
    """One number as shown: an estimate, its interval, a p-value (a test) and its sentence."""

    estimate: float
    lower: float | None = None
    upper: float | None = None
    p_value: float | None = None
    df: float | None = None
    sentence: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(float(self.estimate)):
            self.sentence = "Not estimable from these data: the function returned a missing value."


@dataclass
class Row:
    """A statistic across the models: ``values`` by column (a model's name, or ``"*"``)."""

    key: str
    label: str
    values: Mapping[str, Value | None]
    digits: int = 3
    style: str = "number"  # "number", "count", "percent" or "test"
    stat: str = ""  # a test statistic's name


@dataclass
class Detail:
    """A table of numbers besides the key statistics (bins, classes, net benefits)."""

    key: str
    title: str
    frame: pd.DataFrame
    digits: int = 3
    model: str | None = None
    open: bool = False


@dataclass
class Fig:
    """One figure as SVG text (``model`` None: a figure of every model)."""

    model: str | None
    caption: str
    svg: str


@dataclass
class Section:
    id: str
    title: str
    intro: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    figures: list[Fig] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sources: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class Settings:
    """Everything a rerun needs besides the data (shown in the provenance section)."""

    bins: Any = 10
    strategy: str = "uniform"
    interval: str = "wilson"
    level: float = 0.95
    band_level: float = 0.90
    n_sim: int = 1000
    n_boot: int = 200
    n_resamples: int = 100
    seed: int = 1
    g: int = 10
    smooth: str = "gam"
    thresholds: Any = None
    figures: bool = True


# --------------------------------------------------------------------------------------
# running the functions


def _first_line(x: Any) -> str:
    return (str(x).strip().splitlines() or [type(x).__name__])[0]


class _Calls:
    """Runs the public functions once each (cached by name and model), collecting their
    warnings and refusals as notes of the section that asked."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, str], Any] = {}
        self.messages: dict[tuple[str, str], list[str]] = {}

    def run(self, key: tuple[str, str], fn: Callable[[], Any]) -> Any:
        if key not in self.cache:
            notes: list[str] = []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    out = fn()
                except (CalstatsError, np.linalg.LinAlgError) as exc:
                    out = None
                    notes.append(f"not computed: {_first_line(exc)}")
            for w in caught:
                text = _first_line(w.message)
                if text not in notes:
                    notes.append(text)
            self.cache[key] = out
            self.messages[key] = notes
        return self.cache[key]

    def notes_for(self, section: "Section", key: tuple[str, str], who: str, refusals_only: bool = False) -> None:
        """The call's messages as the section's notes (``refusals_only``: only "not computed",
        for a section that reads a number the warning is not about)."""
        for text in self.messages.get(key, []):
            if refusals_only and not text.startswith("not computed"):
                continue
            line = f"{who}: {text}" if who else text
            if line not in section.notes:
                section.notes.append(line)


# --------------------------------------------------------------------------------------
# figures


_RC = {"svg.fonttype": "path", "svg.hashsalt": "calstats-report", "font.size": 9.0, "axes.titlesize": 9.5,
       "axes.labelsize": 9.0, "legend.fontsize": 8.0, "xtick.labelsize": 8.0, "ytick.labelsize": 8.0}


def _svg(draw: Callable[[Any], None], size: tuple[float, float]) -> str | None:
    """Draw on a new matplotlib Figure (never pyplot's current one) and return its SVG."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        return None
    with matplotlib.rc_context(cast(Any, _RC)):
        fig = Figure(figsize=size, layout="constrained")
        draw(fig)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    start = text.find("<svg")
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text[start:], flags=re.S)
    return text.strip()


def _add_figure(section: Section, settings: Settings, model: str | None, caption: str,
                draw: Callable[[Any], None], size: tuple[float, float]) -> None:
    if not settings.figures:
        return
    svg = _svg(draw, size)
    if svg is None:
        note = "Figures need matplotlib (pip install 'calstats[plot]'); the tables are complete without them."
        if note not in section.notes:
            section.notes.append(note)
        return
    section.figures.append(Fig(model, caption, svg))


def _one_axes(fig):
    return fig.add_subplot(1, 1, 1)


def _plot_of(result: Any) -> Callable[[Any], None]:
    """Draws ``result.plot(ax=...)`` (the result's own drawing) on one new Axes."""
    def draw(fig):
        result.plot(ax=_one_axes(fig))

    return draw


# --------------------------------------------------------------------------------------
# the sections


def _wmean(v: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return float(rmean(v))
    return float(rsum(w * v) / rsum(w))


def _binning_text(settings: Settings) -> str:
    b = settings.bins
    count = f"{b}" if isinstance(b, (int, np.integer)) else f"{b}-rule"
    kind = "equal-width" if settings.strategy == "uniform" else "equal-mass"
    return f"{count} {kind} bins"


def _data_section(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    sec = Section("data", "The data", "What was assessed: the cases, the outcome and each model's average "
                  "prediction.", names)
    n, w = inp.n, inp.weights
    sec.rows.append(Row("rows", "Rows", {ALL: Value(n, sentence=words.rows(n, inp.kind))}, 0, "count"))
    if w is not None:
        total = float(rsum(w))
        sec.rows.append(Row("weights", "Sum of case weights", {ALL: Value(total, sentence=words.weight_sum(total, n))},
                            3, "number"))
    if inp.kind == "binary":
        k = int(inp.y.sum())
        rate = _wmean(inp.y.astype(np.float64), w)
        sec.rows.append(Row("events", "Events", {ALL: Value(k, sentence=words.events(k, n))}, 0, "count"))
        sec.rows.append(Row("event_rate", "Event rate" + (" (weighted)" if w is not None else ""),
                            {ALL: Value(rate, sentence=words.event_rate(rate, w is not None))}, 1, "percent"))
        means, ext = {}, {}
        for name, p in inp.models.items():
            m = _wmean(p, w)
            means[name] = Value(m, sentence=words.mean_risk(m, rate))
            k01 = int(np.sum((p <= 0) | (p >= 1)))
            ext[name] = Value(k01, sentence=words.extremes(k01, n))
        sec.rows.append(Row("mean_risk", "Mean predicted risk", means, 1, "percent"))
        sec.rows.append(Row("extreme_risks", "Risks of exactly 0 or 1", ext, 0, "count"))
        sec.sources.append(("Rows, events, event rate, mean predicted risk", "counts and (weighted) means of the data",
                            "mean(y), mean(p)"))
    elif inp.kind == "multiclass":
        assert inp.classes is not None
        k = len(inp.classes)
        sec.rows.append(Row("classes", "Classes", {ALL: Value(k, sentence=words.classes(k))}, 0, "count"))
        acc, conf = {}, {}
        table = {"cases": np.bincount(inp.y - 1, minlength=k).astype(np.float64)}
        onehot = np.zeros((n, k))
        onehot[np.arange(n), inp.y - 1] = 1.0
        table["share"] = np.array([_wmean(onehot[:, j], w) for j in range(k)])
        for name, P in inp.models.items():
            r, c = top_label(P, inp.y)
            a, m = _wmean(c.astype(np.float64), w), _wmean(r, w)
            acc[name] = Value(a, sentence=words.accuracy(a, m))
            conf[name] = Value(m, sentence=f"The probability of the most probable class averages {words.pct(m)}.")
            table[f"mean p ({name})"] = np.array([_wmean(P[:, j], w) for j in range(k)])
        sec.rows.append(Row("accuracy", "Accuracy of the most probable class", acc, 1, "percent"))
        sec.rows.append(Row("confidence", "Mean confidence (top-label probability)", conf, 1, "percent"))
        frame = pd.DataFrame(table, index=pd.Index(inp.classes, name="class"))
        sec.details.append(Detail("classes", "Cases per class, observed share and mean predicted probability",
                                  frame, 3, None, open=True))
        sec.sources.append(("Counts, shares, accuracy and confidence of the most probable class",
                            "counts and (weighted) means of the data", "table(y), mean(max.col(p) == y)"))
    else:
        assert inp.times is not None and inp.horizon is not None
        h = inp.horizon
        k = int(inp.y.sum())
        sec.rows.append(Row("events", "Events", {ALL: Value(k, sentence=words.events(k, n))}, 0, "count"))
        cens = n - k
        sec.rows.append(Row("censored", "Censored", {ALL: Value(cens, sentence=words.censored(cens, n))}, 0, "count"))
        sec.rows.append(Row("horizon", "Horizon", {ALL: Value(h, sentence=words.horizon(h))}, 6, "general"))
        far = int(np.sum(inp.times > h))
        sec.rows.append(Row("beyond", "Followed beyond the horizon", {ALL: Value(far, sentence=words.beyond(far, n, h))},
                            0, "count"))
        dc = calls.run(("decision", ALL), lambda: _decision(inp, settings))
        calls.notes_for(sec, ("decision", ALL), "decision_curve")
        km = float("nan") if dc is None else float(dc.prevalence)
        sec.rows.append(Row("km_risk", f"Observed risk by time {h:g} (Kaplan-Meier)",
                            {ALL: Value(km, sentence=words.km_risk(km, h))}, 1, "percent"))
        means = {name: Value(_wmean(p, w), sentence=words.mean_risk(_wmean(p, w), km, "the Kaplan-Meier risk"))
                 for name, p in inp.models.items()}
        sec.rows.append(Row("mean_risk", "Mean predicted risk", means, 1, "percent"))
        sec.notes.append("With censored outcomes the report gives the flexible curve's errors by the horizon and the "
                         "decision curve; the C-statistic, the calibration hierarchy, the CORP and binned diagrams and "
                         "the tests need every outcome known at the horizon and are left out (calstats has no "
                         "concordance index for censored data yet).")
        sec.sources.append(("Counts and mean predicted risk", "counts and (weighted) means of the data",
                            "sum(status), mean(p)"))
        sec.sources.append(("Kaplan-Meier risk by the horizon", "calstats.clinical.decision_curve(...).prevalence",
                            "dcurves::dca(Surv(time, status) ~ ., time = t)$prevalence (survival::survfit)"))
    return sec


def _unweighted_only(sec: Section, inp: Inputs, what: str) -> bool:
    if inp.weights is None:
        return False
    sec.notes.append(f"Left out: {what} takes no case weights, and weighted rows would be counted as equal here.")
    return True


def _discrimination(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    if inp.kind == "multiclass":
        sec = Section("discrimination", "Discrimination",
                      "How well the predictions separate the classes, whatever their calibration: the polytomous "
                      "discrimination index (PDI, Van Calster et al. 2012) extends the C-statistic to several classes.",
                      names)
        if _unweighted_only(sec, inp, "the PDI (calstats.clinical.val_multinomial)"):
            return sec
        assert inp.classes is not None
        k = len(inp.classes)
        pdis: dict[str, Value | None] = {}
        comps = {}
        for name, P in inp.models.items():
            vm = _val_multinomial(inp, calls, name, P, settings)
            if vm is not None:
                pdi, per = vm.pdi, vm.pdi_classes
            else:
                pdi, per = pdi_exact(P, inp.y - 1, inp.classes)
                sec.notes.append(f"{name}: the PDI comes from calstats.clinical.multinomial_pdi.pdi_exact, the "
                                 "function val_multinomial calls, as val_multinomial refused the data (see the "
                                 "calibration section).")
            pdis[name] = Value(float(pdi), sentence=words.pdi(float(pdi), k))
            comps[name] = np.asarray(per, dtype=np.float64)
        sec.rows.append(Row("pdi", "PDI", pdis, 3))
        sec.details.append(Detail("pdi_classes", "PDI by class", pd.DataFrame(comps, index=pd.Index(inp.classes,
                                                                                                       name="class")),
                                  3, None, open=True))
        sec.sources.append(("PDI and its class components", "calstats.clinical.val_multinomial(p, y).pdi",
                            "Van Calster et al. (2012)'s PDI (mcca::pdi; Polcal)"))
        return sec
    sec = Section("discrimination", "Discrimination",
                  "How well the predicted risks separate cases with and without the event, whatever their "
                  "calibration: the C-statistic (area under the ROC curve) with DeLong's interval.", names)
    if _unweighted_only(sec, inp, "the C-statistic (calstats.clinical.val_prob_ci)"):
        return sec
    vals: dict[str, Value | None] = {}
    for name, p in inp.models.items():
        h = _hierarchy_fit(inp, calls, name, p, settings)
        # val_prob_ci's warnings are about its logistic fits; the C-statistic uses every row
        calls.notes_for(sec, ("val_prob_ci", name), name, refusals_only=True)
        if h is None:
            vals[name] = None
            continue
        c, lo, hi = (float(v) for v in h.c)
        vals[name] = Value(c, lo, hi, sentence=words.c_statistic(c, lo, hi))
    sec.rows.append(Row("c_statistic", "C-statistic (AUC)", vals, 3))
    sec.sources.append(("C-statistic, DeLong 95% interval",
                        f"calstats.val_prob_ci(p, y, level={settings.level:g}, c_method='delong')",
                        "CalibrationCurves::val.prob.ci.2; the interval as pROC::ci.auc(method = 'delong')"))
    return sec


def _hierarchy_fit(inp, calls, name, p, settings):
    return calls.run(("val_prob_ci", name), lambda: val_prob_ci(p, inp.y, level=settings.level, pl=False))


def _val_multinomial(inp, calls, name, P, settings):
    # the columns named after the classes, so that val_multinomial's tables name them too
    p = pd.DataFrame(P, columns=inp.classes)
    y = pd.Categorical.from_codes(inp.y - 1, categories=inp.classes)
    return calls.run(("val_multinomial", name), lambda: val_multinomial(p, y, level=settings.level))


def _hierarchy(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    if inp.kind == "multiclass":
        return _hierarchy_multiclass(inp, calls, settings, names)
    sec = Section("hierarchy", "Calibration: the hierarchy",
                  "Van Calster et al. (2016)'s levels of calibration: mean calibration (calibration-in-the-large: "
                  "are risks right on average?), weak calibration (the slope: is their spread right?) and moderate "
                  "calibration (the flexible curve: are risks right at every level?).", names)
    if _unweighted_only(sec, inp, "the calibration hierarchy (calstats.clinical.val_prob_ci)"):
        return sec
    citl: dict[str, Value | None] = {}
    slope: dict[str, Value | None] = {}
    oe: dict[str, Value | None] = {}
    for name, p in inp.models.items():
        h = _hierarchy_fit(inp, calls, name, p, settings)
        calls.notes_for(sec, ("val_prob_ci", name), name)
        if h is None:
            citl[name] = slope[name] = oe[name] = None
            continue
        a, alo, ahi = (float(v) for v in h.intercept)
        b, blo, bhi = (float(v) for v in h.slope)
        citl[name] = Value(a, alo, ahi, sentence=words.citl(a, alo, ahi))
        slope[name] = Value(b, blo, bhi, sentence=words.slope(b, blo, bhi))
        ratio = float(h.stats["O:E"])
        oe[name] = Value(ratio, sentence=words.oe(ratio, float(h.stats["events"])))
        _add_figure(sec, settings, name, f"{name}: flexible calibration curve (loess) with its "
                    f"{100 * settings.level:g}% band", _plot_of(h), (4.6, 4.4))
    sec.rows.append(Row("citl", "Calibration-in-the-large", citl, 3))
    sec.rows.append(Row("slope", "Calibration slope", slope, 3))
    sec.rows.append(Row("oe", "Observed / expected events", oe, 3))
    sec.sources.append(("Calibration-in-the-large, slope (Wald intervals), O:E, the loess curve and band",
                        f"calstats.val_prob_ci(p, y, level={settings.level:g})",
                        "CalibrationCurves::val.prob.ci.2: glm(y ~ offset(logit(p))), glm(y ~ logit(p)), "
                        "confint.default; loess(y ~ p)"))
    return sec


def _hierarchy_multiclass(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    sec = Section("hierarchy", "Calibration of the multinomial model",
                  "Van Hoorde et al. (2014)'s multinomial recalibration: with lp_k = log(p_k / p_ref), calibration "
                  "intercepts (0 is ideal: classes as frequent as predicted), slopes (1 is ideal: log odds neither "
                  "too extreme nor too modest), likelihood-ratio tests of these ideals, and flexible curves.", names)
    if _unweighted_only(sec, inp, "calstats.clinical.val_multinomial"):
        return sec
    fits = {}
    for name, P in inp.models.items():
        fits[name] = _val_multinomial(inp, calls, name, P, settings)
        calls.notes_for(sec, ("val_multinomial", name), name)
    ok = [f for f in fits.values() if f is not None]
    if not ok:
        return sec
    first = ok[0]
    ref = first.ref
    for k in first.intercept_table.index:
        vals: dict[str, Value | None] = {}
        for name, vm in fits.items():
            if vm is None:
                vals[name] = None
                continue
            r = vm.intercept_table.loc[k]
            vals[name] = Value(float(r["estimate"]), float(r["lower"]), float(r["upper"]),
                               sentence=words.mc_intercept(float(r["estimate"]), float(r["lower"]), float(r["upper"]),
                                                           str(k), ref))
        sec.rows.append(Row(f"intercept[{k}]", f"Intercept, {k} vs {ref}", vals, 3))
    for k in first.slope_table.index:
        vals = {}
        for name, vm in fits.items():
            if vm is None:
                vals[name] = None
                continue
            r = vm.slope_table.loc[k]
            vals[name] = Value(float(r["estimate"]), float(r["lower"]), float(r["upper"]),
                               sentence=words.mc_slope(float(r["estimate"]), float(r["lower"]), float(r["upper"]),
                                                       str(k), ref))
        sec.rows.append(Row(f"slope[{k}]", f"Slope, {k} vs {ref}", vals, 3))
    for test in first.tests.index:
        vals = {}
        for name, vm in fits.items():
            if vm is None:
                vals[name] = None
                continue
            r = vm.tests.loc[test]
            vals[name] = Value(float(r["statistic"]), p_value=float(r["p_value"]), df=float(r["df"]),
                               sentence=words.lr_test(str(test), float(r["p_value"])))
        sec.rows.append(Row(f"lr[{test}]", f"LR test: {test}", vals, 2, "test", "X²"))
    sec.rows.append(Row("eci", "ECI", {name: None if vm is None else Value(vm.eci, sentence=words.eci_multiclass(vm.eci))
                                       for name, vm in fits.items()}, 3))
    for name, vm in fits.items():
        if vm is None:
            continue
        kk = len(vm.classes)
        ncol = min(kk, 5)
        nrow = math.ceil(kk / ncol)

        def draw(fig, vm=vm, ncol=ncol, nrow=nrow):
            axes = fig.subplots(nrow, ncol, squeeze=False)
            vm.plot(axes=axes)
            for ax in np.ravel(axes):
                ax.set_xlabel("Predicted", fontsize=7.5)
                ax.set_ylabel("Observed", fontsize=7.5)
                ax.title.set_fontsize(8.5)

        _add_figure(sec, settings, name, f"{name}: flexible calibration of each class", draw,
                    (1.9 * ncol + 0.3, 1.95 * nrow + 0.2))
    sec.sources.append(("Intercepts, slopes (Wald intervals), likelihood-ratio tests, ECI, flexible curves",
                        f"calstats.clinical.val_multinomial(p, y, level={settings.level:g})",
                        "VGAM::vglm(y ~ ..., multinomial(refLevel = 1)) as in Polcal (Van Hoorde et al. 2014)"))
    return sec


_CURVE_ROWS = (("Eavg", "ICI (Eavg)", words.ici), ("E50", "E50", words.e50), ("E90", "E90", words.e90),
               ("Emax", "Emax", words.emax), ("ECI", "ECI", words.eci))


def _pmcal(inp: Inputs, calls: _Calls, settings: Settings, name: str, p: np.ndarray):
    def fit():
        # the run is R's set.seed(seed); pmcalibration(...), and the caller's stream is put back
        with rng._seeded(settings.seed):
            if inp.kind == "survival":
                return pmcalibration(inp.survival, p, smooth=settings.smooth, time=inp.horizon, ci="boot",
                                     n=settings.n_boot, level=settings.level, **knots)
            return pmcalibration(inp.y, p, smooth=settings.smooth, ci="sim", n=settings.n_sim, level=settings.level,
                                 **knots)

    knots = {"nk": 5} if settings.smooth == "rcs" else {}  # pmcalibration's default, said without its message

    return calls.run(("pmcalibration", name), fit)


def _curve(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    surv = inp.kind == "survival"
    how = (f"{settings.n_boot} bootstrap refits" if surv else f"{settings.n_sim} simulated draws of the curve")
    sec = Section("curve", "Calibration curve and its errors (ICI, E50, E90, Emax)",
                  "A smooth calibration curve of the outcome on the predicted risk"
                  + (f" (a Cox model by time {inp.horizon:g})" if surv else "")
                  + "; the calibration error of a case is the distance between its predicted risk and the curve. "
                  f"Intervals: {100 * settings.level:g}% percentiles of {how} (seed {settings.seed})"
                  + ("; the percentiles of an error, which cannot be negative, may lie above a small estimate."
                     if surv else "."), names)
    if _unweighted_only(sec, inp, "calstats.clinical.pmcalibration"):
        return sec
    fits = {}
    for name, p in inp.models.items():
        fits[name] = _pmcal(inp, calls, settings, name, p)
        calls.notes_for(sec, ("pmcalibration", name), name)
    for stat, label, say in _CURVE_ROWS:
        vals: dict[str, Value | None] = {}
        for name, pm in fits.items():
            if pm is None:
                vals[name] = None
                continue
            m = pm.summary().metrics.loc[stat]
            lo = float(m["lower"]) if "lower" in m else None
            hi = float(m["upper"]) if "upper" in m else None
            est = float(m["Estimate"])
            vals[name] = Value(est, lo, hi, sentence=say(est, lo, hi))
        sec.rows.append(Row(stat, label, vals, 4 if stat == "ECI" else 3))
    for name, pm in fits.items():
        if pm is not None:
            _add_figure(sec, settings, name, f"{name}: calibration curve ({settings.smooth}) with its "
                        f"{100 * settings.level:g}% band", _plot_of(pm), (4.6, 4.4))
    nk = ", nk=5" if settings.smooth == "rcs" else ""
    nk_r = ", nk = 5" if settings.smooth == "rcs" else ""
    if surv:
        call = (f"calstats.rng.set_seed({settings.seed}); calstats.clinical.pmcalibration((time, status), p, "
                f"smooth='{settings.smooth}', time={inp.horizon:g}, ci='boot', n={settings.n_boot}{nk})")
        r = (f"set.seed({settings.seed}); pmcalibration::pmcalibration(Surv(time, status), p, "
             f"smooth = '{settings.smooth}', time = {inp.horizon:g}, ci = 'boot', n = {settings.n_boot}{nk_r})")
    else:
        call = (f"calstats.rng.set_seed({settings.seed}); calstats.clinical.pmcalibration(y, p, "
                f"smooth='{settings.smooth}', ci='sim', n={settings.n_sim}{nk})")
        r = (f"set.seed({settings.seed}); pmcalibration::pmcalibration(y, p, smooth = '{settings.smooth}', "
             f"ci = 'sim', n = {settings.n_sim}{nk_r})")
    sec.sources.append(("ICI (Eavg), E50, E90, Emax, ECI with intervals; the curve", call, r))
    return sec


def _corp_fit(inp: Inputs, calls: _Calls, settings: Settings, name: str, p: np.ndarray) -> Any:
    def fit() -> Any:
        kw: dict[str, Any] = dict(level=settings.band_level, band="resampling", n_resamples=settings.n_resamples,
                                  seed=settings.seed, weights=inp.weights)
        if inp.kind == "multiclass":
            kw["type"] = "confidence"
        return corp(p, inp.y, **kw)

    return calls.run(("corp", name), fit)


def _corp(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    mc = inp.kind == "multiclass"
    sec = Section("corp", "CORP reliability diagram and Brier decomposition",
                  "The CORP diagram (Dimitriadis, Gneiting and Jordan 2021) recalibrates the "
                  + ("top-label confidence" if mc else "predicted risks")
                  + " by isotonic regression; its band shows where a calibrated model's curve would lie "
                  f"({100 * settings.band_level:g}% consistency band, {settings.n_resamples} resamples, seed "
                  f"{settings.seed}). The Brier score splits exactly into miscalibration (MCB), discrimination "
                  "(DSC) and uncertainty (UNC): Brier = MCB - DSC + UNC.", names)
    decs = {}
    for name, p in inp.models.items():
        d = _corp_fit(inp, calls, settings, name, p)
        calls.notes_for(sec, ("corp", name), name)
        decs[name] = None if d is None else d.decomposition()
        if d is not None:
            _add_figure(sec, settings, name, f"{name}: CORP reliability diagram"
                        + (" of the top-label confidence" if mc else ""),
                        _plot_of(d), (4.4, 4.5))

    def row(key: str, label: str, get: Callable[[Any], Any], say: Callable[[Any], str]) -> None:
        vals: dict[str, Value | None] = {}
        for name, dec in decs.items():
            vals[name] = None if dec is None else Value(float(get(dec)), sentence=say(dec))
        sec.rows.append(Row(key, label, vals, 4))

    row("brier", "Brier score", lambda d: d.mean_score,
        lambda d: words.brier(float(d.mean_score), float(d.uncertainty), mc))
    row("mcb", "Miscalibration (MCB)", lambda d: d.miscalibration,
        lambda d: words.mcb(float(d.miscalibration), float(d.mean_score), mc))
    row("dsc", "Discrimination (DSC)", lambda d: d.discrimination,
        lambda d: words.dsc(float(d.discrimination), float(d.uncertainty), mc))
    row("unc", "Uncertainty (UNC)", lambda d: d.uncertainty, lambda d: words.unc(float(d.uncertainty), mc))
    kind = ", type='confidence'" if mc else ""
    sec.sources.append(("CORP diagram, band, Brier decomposition",
                        f"calstats.corp(p, y, level={settings.band_level:g}, band='resampling', "
                        f"n_resamples={settings.n_resamples}, seed={settings.seed}{kind}).decomposition()",
                        f"set.seed({settings.seed}); reliabilitydiag::reliabilitydiag(p, y = y, region.level = "
                        f"{settings.band_level:g}, region.method = 'resampling', n.boot = {settings.n_resamples}); "
                        "summary()"))
    return sec


#: the binomial intervals of the binned diagram, by their authors' names
_INTERVAL_NAMES = {"wilson": "Wilson", "clopper-pearson": "Clopper-Pearson", "jeffreys": "Jeffreys"}


def _binned(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    mc = inp.kind == "multiclass"
    binning = _binning_text(settings)
    sec = Section("binned", "Binned reliability diagram and ECE",
                  f"The cases are grouped in {binning} of "
                  + ("top-label confidence" if mc else "predicted risk")
                  + "; in each bin the observed frequency is set against the mean prediction, with a "
                  f"{100 * settings.level:g}% {_INTERVAL_NAMES.get(settings.interval, settings.interval)} "
                  "interval (pointwise). The expected calibration error "
                  "(ECE) is the size-weighted mean gap.", names)
    kw: dict[str, Any] = dict(bins=settings.bins, strategy=settings.strategy, weights=inp.weights)
    e_vals: dict[str, Value | None] = {}
    c_vals: dict[str, Value | None] = {}
    for name, p in inp.models.items():
        extra: dict[str, Any] = {"type": "confidence"} if mc else {}
        d = calls.run(("reliability_diagram", name),
                      partial(reliability_diagram, p, inp.y, interval=settings.interval, level=settings.level,
                              **kw, **extra))
        calls.notes_for(sec, ("reliability_diagram", name), name)
        e = calls.run(("ece", name), partial(ece, p, inp.y, **kw, **extra))
        calls.notes_for(sec, ("ece", name), name)
        what = ("the accuracy of the most probable class", "its mean probability") if mc else \
            ("the observed event rate", "the mean predicted risk")
        e_vals[name] = None if e is None else Value(float(e), sentence=words.ece(float(e), binning, *what))
        if mc:
            ec = calls.run(("ece_classwise", name), partial(ece, p, inp.y, type="classwise", **kw))
            calls.notes_for(sec, ("ece_classwise", name), name)
            c_vals[name] = None if ec is None else Value(float(ec), sentence=words.ece_classwise(float(ec), binning))
        if d is not None:
            frame = d.as_frame().set_index("bin")
            sec.details.append(Detail(f"bins[{name}]", f"{name}: bins", frame, 4, name))
            _add_figure(sec, settings, name, f"{name}: binned reliability diagram"
                        + (" (top-label confidence)" if mc else ""),
                        _plot_of(d), (4.6, 4.4))
    sec.rows.append(Row("ece", "ECE" + (" (top-label confidence)" if mc else ""), e_vals, 4))
    if mc:
        sec.rows.append(Row("ece_classwise", "ECE (classwise)", c_vals, 4))
    b = settings.bins if isinstance(settings.bins, (int, np.integer)) else f"'{settings.bins}'"
    t = ", type='confidence'" if mc else ""
    sec.sources.append(("ECE", f"calstats.ece(p, y, bins={b}, strategy='{settings.strategy}'{t})",
                        f"probcal::ece(p, y, bins = {b})" + (" (equal-width bins)" if settings.strategy == "uniform"
                                                             else "; quantile bins are not in probcal")))
    sec.sources.append(("Bins and their intervals",
                        f"calstats.reliability_diagram(p, y, bins={b}, interval='{settings.interval}', "
                        f"level={settings.level:g}{t})",
                        "probcal::reliability_diagram's data; the intervals as "
                        + {"wilson": "Hmisc::binconf(method = 'wilson')",
                           "clopper-pearson": "binom.test()$conf.int",
                           "jeffreys": "qbeta(c(a/2, 1-a/2), x + 0.5, n - x + 0.5)"}[settings.interval]))
    return sec


def _tests(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    mc = inp.kind == "multiclass"
    sec = Section("tests", "Calibration tests",
                  "Tests of the hypothesis that the "
                  + ("top-label confidences" if mc else "predicted risks")
                  + " are calibrated: Kolmogorov-Smirnov and Kuiper on the cumulative differences between outcomes "
                  "and predictions (Arrieta-Ibarra et al. 2022; Tygert 2022), Spiegelhalter's z of the Brier score"
                  + ("" if mc else ", and Hosmer-Lemeshow's chi-squared over groups of risk")
                  + ". A small p-value is evidence of miscalibration; a large one is not proof of calibration.",
                  names)
    specs: list[tuple[str, str, str, Callable[..., Any]]] = [
             ("ks", "Kolmogorov-Smirnov", "G", cal_ks_test), ("kuiper", "Kuiper", "H", cal_kuiper_test),
             ("spiegelhalter", "Spiegelhalter", "Z", cal_spiegelhalter_test)]
    for key, label, stat, fn in specs:
        vals: dict[str, Value | None] = {}
        for name, p in inp.models.items():
            t = calls.run((key, name), partial(fn, p, inp.y, weights=inp.weights))
            calls.notes_for(sec, (key, name), name)
            if t is None:
                vals[name] = None
                continue
            s, pv = float(t.statistic[stat]), float(t.p_value)
            say = words.spiegelhalter(s, pv) if key == "spiegelhalter" else (words.ks(pv) if key == "ks"
                                                                               else words.kuiper(pv))
            vals[name] = Value(s, p_value=pv, sentence=say)
        sec.rows.append(Row(key, label, vals, 3, "test", stat))
    sec.sources.append(("Kolmogorov-Smirnov, Kuiper, Spiegelhalter", "calstats.cal_ks_test(p, y), cal_kuiper_test, "
                        "cal_spiegelhalter_test" + (" (type='confidence')" if mc else ""),
                        "MAPIE's calibration tests (documented formulas); Spiegelhalter's z as rms::val.prob's "
                        "S:z and S:p"))
    if not mc:
        if inp.weights is not None:
            sec.notes.append("Hosmer-Lemeshow left out: calstats.hoslem_test takes no case weights.")
            return sec
        vals = {}
        for name, p in inp.models.items():
            t = calls.run(("hoslem", name), partial(hoslem_test, inp.y, p, g=settings.g, data_name=f"y, {name}"))
            calls.notes_for(sec, ("hoslem", name), name)
            if t is None:
                vals[name] = None
                continue
            s, pv, df = float(t.statistic["X-squared"]), float(t.p_value), float(t.parameter["df"])
            vals[name] = Value(s, p_value=pv, df=df, sentence=words.hosmer(settings.g, df, pv))
        sec.rows.append(Row("hosmer_lemeshow", "Hosmer-Lemeshow", vals, 2, "test", "X²"))
        sec.sources.append(("Hosmer-Lemeshow", f"calstats.hoslem_test(y, p, g={settings.g})",
                            f"ResourceSelection::hoslem.test(y, p, g = {settings.g}) (df = g - 2, R's; for external "
                            "validation Hosmer and Lemeshow use g)"))
    return sec


def _decision(inp: Inputs, settings: Settings):
    kw: dict[str, Any] = {"weights": inp.weights}
    if settings.thresholds is not None:
        kw["thresholds"] = settings.thresholds
    if inp.kind == "survival":
        return decision_curve(dict(inp.models), inp.survival, time=inp.horizon, **kw)
    return decision_curve(dict(inp.models), inp.y, **kw)


def _shown_thresholds(t: np.ndarray) -> list[int]:
    """Positions of the thresholds shown in the table: 5%, 10%, 20%, 30%, 50% when the
    thresholds hold them, else up to five spread over the given ones."""
    want = [0.05, 0.10, 0.20, 0.30, 0.50]
    pos = [int(np.flatnonzero(np.abs(t - v) < 1e-9)[0]) for v in want if (np.abs(t - v) < 1e-9).any()]
    if len(pos) >= 3:
        return pos
    return sorted(set(np.linspace(0, t.size - 1, min(5, t.size)).round().astype(int).tolist()))


def _decision_section(inp: Inputs, calls: _Calls, settings: Settings, names: list[str]) -> Section:
    surv = inp.kind == "survival"
    cols = ["Treat all"] + names
    sec = Section("decision", "Clinical utility: the decision curve",
                  "Net benefit (Vickers and Elkin 2006) of treating the cases whose predicted risk is at least a "
                  "threshold, in true events found per case after charging each unnecessary treatment at the odds "
                  "of the threshold; against treating everyone and no one (net benefit 0)"
                  + (f", with the risk of the event by time {inp.horizon:g} from Kaplan-Meier curves" if surv else "")
                  + ".", cols)
    dc = calls.run(("decision", ALL), lambda: _decision(inp, settings))
    calls.notes_for(sec, ("decision", ALL), "decision_curve")
    if dc is None:
        return sec
    wide = dc.net_benefit_table()
    t = np.asarray(wide.index, dtype=np.float64)
    for i in _shown_thresholds(t):
        ti = float(t[i])
        nb_all = float(wide["Treat All"].iloc[i])
        vals: dict[str, Value | None] = {"Treat all": Value(nb_all, sentence=words.net_benefit_all(nb_all, ti))}
        for name in names:
            nb = float(wide[name].iloc[i])
            vals[name] = Value(nb, sentence=words.net_benefit(nb, ti, nb_all))
        sec.rows.append(Row(f"net_benefit[{ti:g}]", f"Net benefit at {words.pct(ti, 0)}", vals, 4))
    best: dict[str, Value | None] = {}
    for name in names:
        nb = wide[name].to_numpy(dtype=np.float64)
        top = np.maximum(wide["Treat All"].to_numpy(dtype=np.float64), wide["Treat None"].to_numpy(dtype=np.float64))
        wins = np.flatnonzero(nb > top)
        k = int(wins.size)
        lo = float(t[wins].min()) if k else None
        hi = float(t[wins].max()) if k else None
        best[name] = Value(k, sentence=words.best_range(lo, hi, k, t.size))
    sec.rows.append(Row("best_thresholds", "Thresholds where the model is best", best, 0, "count"))
    sec.details.append(Detail("net_benefit", "Net benefit at every threshold", wide.rename_axis("threshold"), 4))

    def draw(fig):
        ax = _one_axes(fig)
        dc.plot(ax=ax)
        ax.grid(True, color="0.92", linewidth=0.8)
        ax.set_axisbelow(True)

    _add_figure(sec, settings, None, "Decision curves: net benefit against the threshold probability", draw,
                (6.4, 4.0))
    th = "" if settings.thresholds is None else ", thresholds=..."
    if surv:
        sec.sources.append(("Net benefit", f"calstats.clinical.decision_curve(p, (time, status), time={inp.horizon:g}"
                            f"{th})", f"dcurves::dca(Surv(time, status) ~ ..., time = {inp.horizon:g})"))
    else:
        sec.sources.append(("Net benefit", f"calstats.clinical.decision_curve(p, y{th})", "dcurves::dca(y ~ ...)"))
    return sec


_BUILDERS: dict[str, Callable[..., Section]] = {
    "discrimination": _discrimination, "hierarchy": _hierarchy, "curve": _curve, "corp": _corp,
    "binned": _binned, "tests": _tests, "decision": _decision_section,
}


def build(inp: Inputs, settings: Settings, sections: list[str]) -> tuple[list[Section], dict[str, Any]]:
    """The sections (data first) and the result objects they came from."""
    calls = _Calls()
    names = list(inp.models)
    out = [_data_section(inp, calls, settings, names)]
    for name in sections:
        out.append(_BUILDERS[name](inp, calls, settings, names))
    results: dict[str, Any] = {}
    for (fn, model), obj in calls.cache.items():
        if obj is not None:
            results.setdefault(fn, {})[model] = obj
    return out, results
