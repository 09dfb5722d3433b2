"""``report()`` and its result, :class:`CalibrationReport`."""

import datetime
import math
import platform
import time as _time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._progress import check_progress
from .._validate import (
    check_bins,
    check_bins_or_rule,
    check_interval,
    check_report_source,
    check_seed,
    fail_report_section_kind,
    fail_report_sections,
    match_arg,
)
from ..kernels.choices import BIN_INTERVALS, BIN_RULES, BIN_STRATEGIES
from ..results._base import Result
from . import _render
from ._inputs import read_inputs
from ._page import Section, Settings
from .sections import SECTIONS, build

__all__ = ["report", "CalibrationReport"]

_KIND_WORDS = {"binary": "binary", "multiclass": "multiclass", "survival": "time-to-event",
               "competing": "competing-risk"}
_SMOOTHS = ("gam", "none", "ns", "bs", "rcs", "lowess", "loess")
_GLANCE = [("discrimination", "c_statistic"), ("discrimination", "pdi"), ("discrimination", "harrell"),
           ("discrimination", "uno"), ("discrimination", "auc_t"), ("hierarchy", "citl"), ("hierarchy", "slope"),
           ("hierarchy", "cox_slope"), ("curve", "Eavg"), ("binned", "ece"), ("corp", "brier"),
           ("accuracy", "brier_t"), ("accuracy", "ipa"), ("hierarchy", "eci")]


class CalibrationReport(Result):
    """A calibration report of one or more models: made by :func:`report`.

    ``to_html(path)`` writes one self-contained page (figures inlined as SVG; no script,
    no network), ``_repr_html_()`` shows it in a notebook, ``to_markdown()`` and
    ``to_latex()`` give its tables, ``as_frame()`` every key number, ``print(rep)`` the
    headline numbers. Every export has both spellings, as every calstats result:
    ``as_html``/``to_html``, ``as_markdown``/``to_markdown``, ``as_latex``/``to_latex``,
    ``as_frame``/``to_frame``.

    Attributes
    ----------
    title : str
    kind : {"binary", "multiclass", "survival", "competing"}
    models : list of str
        The models' names, in the order given.
    n : int
        Rows.
    sections : list
        The sections in order (``id``, ``title``, ``rows`` of key numbers with their
        sentences, ``details`` tables, ``figures``, ``notes``, ``sources``).
    results : dict
        The result objects every number was read from: ``results[function][model]``, e.g.
        ``results["val_prob_ci"]["A"]`` (a :class:`~calstats.clinical.CalibrationHierarchy`),
        ``results["pmcalibration"]``, ``results["corp"]``, ``results["reliability_diagram"]``,
        ``results["ece"]``, ``results["ks"]``, ``results["kuiper"]``,
        ``results["spiegelhalter"]``, ``results["hoslem"]``, ``results["val_multinomial"]``,
        ``results["decision"]["*"]``; for a time-to-event outcome ``results["concordance"]``
        (Harrell's C), ``results["concordance_uno"]``, ``results["time_auc"]``,
        ``results["time_brier"]``, ``results["integrated_brier"]`` (risks by several
        times), ``results["cox_calibration_slope"]``; with competing risks
        ``results["cuminc"]["*"]`` and ``results["cr_calibration"]``.
    settings : Settings
        Binning, interval levels, resampling sizes and the seed.
    call : str
        The call that reproduces the report.
    source : str or None
        The code that made ``p`` and ``y`` (shown before ``call`` on the page), when given.
    timings : dict
        Seconds each section took.
    horizon : float or None
        The horizon of a time-to-event outcome (the last of ``times``).
    times : list of float or None
        The times the models' risks are for (one, the horizon, for vectors of risks).
    cause : str or None
        The cause of interest of a competing-risk outcome (its code or level).
    version : str
        The calstats version; ``environment`` the versions of Python and its libraries.
    """

    r_class: tuple[str, ...] = ()
    _extras = ("title", "kind", "models", "n", "sections", "results", "settings", "call", "version",
               "environment", "created", "seconds", "classes", "horizon", "weighted", "source", "timings",
               "times", "cause")
    title: str
    kind: str
    models: list[str]
    n: int
    sections: list[Section]
    results: dict[str, Any]
    settings: Settings
    call: str
    version: str
    environment: dict[str, str]
    created: str
    seconds: float
    classes: list[str] | None
    horizon: float | None
    weighted: bool
    source: str | None
    timings: dict[str, float]
    times: list[float] | None
    cause: str | None

    # -- what it is ---------------------------------------------------------------------
    def description(self) -> str:
        """One line: the outcome, the rows, the models."""
        what = _KIND_WORDS[self.kind] + " outcome"
        if self.kind == "multiclass" and self.classes is not None:
            what += f" ({len(self.classes)} classes)"
        if self.kind in ("survival", "competing"):
            times = self.times or ([] if self.horizon is None else [self.horizon])
            by = ", ".join(f"{t:g}" for t in times)
            of = f" of cause {self.cause}" if self.kind == "competing" else ""
            what += f" (risks{of} by time{'s' if len(times) > 1 else ''} {by})"
        models = ", ".join(self.models)
        w = "; case weights" if self.weighted else ""
        return (f"{what[0].upper()}{what[1:]}; {self.n} rows{w}; {len(self.models)} model"
                f"{'s' if len(self.models) > 1 else ''}: {models}; calstats {self.version}")

    def section(self, name: str) -> Section:
        """The section ``name`` (``"data"``, ``"discrimination"``, ``"hierarchy"``, ...)."""
        for s in self.sections:
            if s.id == name:
                return s
        raise KeyError(name)

    def glance(self) -> list[tuple[Section, Any]]:
        """The headline statistics: ``(section, row)`` pairs."""
        out: list[tuple[Section, Any]] = []
        for sec_id, key in _GLANCE:
            sec = next((s for s in self.sections if s.id == sec_id), None)
            if sec is None:
                continue
            row = next((r for r in sec.rows if r.key == key), None)
            if row is not None and any(v is not None for v in row.values.values()):
                out.append((sec, row))
        return out

    # -- renderings: the as_* family, and the same under pandas' to_* names -------------
    def as_html(self) -> str:
        """The page as one self-contained HTML document (inline SVG figures; no script, no
        network). :meth:`to_html` also writes it to a file."""
        return _render.page(self)

    def to_html(self, path: "str | Path | None" = None) -> str:
        """The page as one self-contained HTML document (:meth:`as_html`), or written to a file.

        Parameters
        ----------
        path : str or path-like, optional
            Write the page there (UTF-8; an existing file is replaced). None: return the
            text only.

        Returns
        -------
        str
            The HTML text (``path`` None) or the path written.
        """
        text = self.as_html()
        if path is None:
            return text
        Path(path).write_text(text, encoding="utf-8")
        return str(path)

    def _repr_html_(self) -> str:
        return _render.fragment(self)

    def as_markdown(self, details: bool = True) -> str:
        """The tables as Markdown (GitHub pipe tables, no ``tabulate`` needed): each
        section's key numbers, with ``details`` also the bins, classes and net benefits."""
        return _render.markdown(self, details)

    def to_markdown(self, details: bool = True) -> str:
        """:meth:`as_markdown` (pandas' spelling)."""
        return self.as_markdown(details)

    def as_latex(self, details: bool = True) -> str:
        """The tables as LaTeX ``tabular`` blocks (booktabs rules, statsmodels' writer),
        each after a comment line naming it."""
        return _render.latex(self, details)

    def to_latex(self, details: bool = True) -> str:
        """:meth:`as_latex` (pandas' spelling)."""
        return self.as_latex(details)

    def as_frame(self) -> pd.DataFrame:
        """Every key number in one long table.

        Returns
        -------
        pandas.DataFrame
            Columns ``section``, ``statistic`` (the row's key, e.g. ``c_statistic``),
            ``label``, ``model`` (``"*"`` for a number of the data as a whole),
            ``estimate``, ``lower``, ``upper``, ``df``, ``p_value`` (NaN where they do not
            apply), ``sentence``, ``flags`` (the warnings shown beside the number, ``"; "``
            between them; empty when none). Numbers a function did not compute are left out.
        """
        recs = []
        for sec in self.sections:
            for row in sec.rows:
                for col, v in row.values.items():
                    if v is None:
                        continue
                    recs.append({"section": sec.id, "statistic": row.key, "label": row.label, "model": col,
                                 "estimate": float(v.estimate), "lower": _nan(v.lower), "upper": _nan(v.upper),
                                 "df": _nan(v.df), "p_value": _nan(v.p_value), "sentence": v.sentence,
                                 "flags": "; ".join(v.flags)})
        return pd.DataFrame(recs, columns=["section", "statistic", "label", "model", "estimate", "lower", "upper",
                                           "df", "p_value", "sentence", "flags"])

    def print_text(self) -> str:
        return _render.text(self)


def _nan(v: Any) -> float:
    return math.nan if v is None else float(v)


def _sections(sections: Any, kind: str) -> list[str]:
    allowed = SECTIONS[kind]
    if sections is None:
        return list(allowed)
    every = sorted({s for names in SECTIONS.values() for s in names})
    if isinstance(sections, str):
        sections = [sections]
    try:
        names = [str(s) for s in sections]
    except TypeError:
        fail_report_sections(", ".join(every))
    for s in names:
        if s not in every:
            fail_report_sections(", ".join(every))
        if s not in allowed:
            fail_report_section_kind(s, _KIND_WORDS[kind], ", ".join(allowed))
    return [s for s in allowed if s in names]


def _environment() -> dict[str, str]:
    env = {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__}
    try:
        import matplotlib

        env["matplotlib"] = matplotlib.__version__
    except ImportError:
        pass
    return env


def _call_text(inp, models_arg, settings: Settings, defaults: Settings, sections, title) -> str:
    args = ["p", "y"]
    if isinstance(models_arg, str) or (models_arg is not None and not isinstance(models_arg, dict)):
        args.append(f"models={models_arg!r}" if isinstance(models_arg, str) else f"models={list(models_arg)!r}")
    if inp.weights is not None:
        args.append("weights=w")
    if inp.horizons is not None:
        hs = [f"{t:g}" for t in inp.horizons]
        args.append(f"time={hs[0]}" if len(hs) == 1 else f"time=[{', '.join(hs)}]")
    if inp.kind == "competing":
        args.append(f"cause={inp.cause!r}")
    if title is not None:
        args.append(f"title={title!r}")
    if sections is not None:
        args.append(f"sections={list(sections) if not isinstance(sections, str) else [sections]!r}")
    for key in ("bins", "strategy", "interval", "level", "band_level", "n_sim", "n_boot", "n_resamples", "g",
                "smooth", "figures"):
        v = getattr(settings, key)
        if v != getattr(defaults, key):
            args.append(f"{key}={v!r}")
    if settings.thresholds is not None:
        args.append("thresholds=...")
    args.append(f"seed={settings.seed!r}")
    return "calstats.report(" + ", ".join(args) + ")"


def report(p: Any, y: Any, *, models: Any = None, weights: Any = None, title: str | None = None,
           sections: Any = None, time: Any = None, cause: Any = None, bins: int | str = 10, strategy: str = "uniform",
           interval: str = "wilson", level: float = 0.95, band_level: float = 0.90, n_sim: int | None = None,
           n_boot: int = 200, n_resamples: int | None = None, seed: int = 1, g: int = 10, smooth: str | None = None,
           thresholds: Any = None, figures: bool = True, progress: bool | None = None,
           source: str | None = None) -> CalibrationReport:
    """A calibration report of one or more models: discrimination, calibration, clinical
    utility, and how each number was computed, as one page to hand on.

    Every number is returned by a public calstats function (listed with its R equivalent in
    the page's last section) and comes with one sentence saying what it means for these
    data. Several models appear side by side, column by column.

    Parameters
    ----------
    p : array_like, DataFrame or dict
        The predictions of one model: risks (1-D) for a binary or time-to-event outcome, an
        n x K probability matrix (rows summing to 1; a DataFrame or 2-D array) for a
        multiclass outcome. Several models: a dict ``{name: predictions}``, or a DataFrame
        whose columns ``models`` names (one binary or time-to-event model per column).
    y : array_like or (array_like, array_like)
        The outcome: 0/1 (binary); 1-based class codes or a pandas ``Categorical`` whose
        categories are the columns in order (multiclass); ``(time, status)`` as
        :func:`calstats.clinical.pmcalibration` takes it, or a two-column array or frame,
        for a time-to-event outcome (``status`` 1 = event, 0 = censored; event codes 0, 1,
        2, ... of a competing-risk outcome with ``cause``), or a ``calstats.Surv`` object.
    models : str or list of str, optional
        A name for a single model (default ``"model"``, or a named Series' name); or the
        columns of a DataFrame ``p`` that are models. Not with a dict ``p``.
    weights : array_like, optional
        Case weights. The ECE and bins, the CORP diagram, the tests and the decision curve
        are weighted; the functions that take no weights (the C-statistic and hierarchy of
        ``val_prob_ci``, ``pmcalibration``, ``hoslem_test``, ``val_multinomial``) are left
        out, each section saying so.
    title : str, optional
        The page's title (default ``"Calibration report: <models>"``).
    sections : list of str, optional
        The sections to compute, among ``"discrimination"``, ``"hierarchy"``, ``"curve"``,
        ``"corp"``, ``"binned"``, ``"tests"``, ``"decision"`` (default: every section that
        applies to the outcome; binary: all; multiclass: discrimination, hierarchy, corp,
        binned, tests; time-to-event: discrimination, accuracy, hierarchy, curve, decision;
        competing risks: discrimination, accuracy, binned, decision). The data and how the
        numbers were computed always come.
    time : float or list of float, optional
        The horizon of a time-to-event outcome: ``p`` are risks of the event by ``time``
        (required for such an outcome, refused otherwise). Or increasing times: each model
        is then an n x k matrix (an array or DataFrame; several models in a dict) of its
        risks by each time, and the Brier score, the index of prediction accuracy and the
        integrated Brier score are given at every time; the last time is the horizon of the
        calibration and the decision curve. With one horizon the Brier score is given at
        the horizon only: risks by the horizon are no risks by an earlier time.
    cause : optional
        The cause of interest of a competing-risk outcome ``y = (time, event)`` (event codes
        0 censored, 1, 2, ... the causes, or a categorical whose first level is censoring):
        ``p`` are the risks of this cause by the horizon. A categorical status with more
        than two levels is read as competing risks without it (its first cause, as
        riskRegression and dcurves do); event codes of several causes need it.
    bins : int or {"sqrt", "sturges", "cube_root"}, default 10
        Bins of the binned diagram and the ECE (:func:`calstats.ece`).
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width (R's probcal) or equal-mass bins.
    interval : {"wilson", "clopper-pearson", "jeffreys"}, default "wilson"
        The binomial interval of each bin (:func:`calstats.reliability_diagram`).
    level : float, default 0.95
        Level of every confidence interval (hierarchy, curve indices, bins).
    band_level : float, default 0.90
        Level of the CORP consistency band (reliabilitydiag's default).
    n_sim : int, optional
        Simulated draws of the flexible curve for the intervals of ICI, E50, E90, Emax
        (binary outcome; pmcalibration's ``ci = "sim"``). Every draw is evaluated at every
        row, so by default: 1000 draws up to 20 000 rows, above that as many as keep rows x
        draws at 2e7 (at least 200; 200 at 10^5 rows); given, the number is kept. Above
        200 000 rows the errors come without intervals (``ci = "none"``). The page says
        which applied.
    n_boot : int, default 200
        Bootstrap refits for those intervals with a time-to-event outcome (pmcalibration's
        ``ci = "boot"``; simulation is not available there).
    n_resamples : int, optional
        Resamples of the CORP band: by default 100, fewer above 500 000 rows (rows x
        resamples kept at 5e7, at least 20: 50 at 10^6 rows; the page says so); given, the
        number is kept.
    seed : int, default 1
        R's ``set.seed(seed)`` before each resampling computation (pmcalibration, CORP);
        calstats' R stream is restored afterwards.
    g : int, default 10
        Groups of the Hosmer-Lemeshow test (and the risk groups of the competing-risk
        calibration, :func:`calstats.clinical.cr_calibration`'s ``q``).
    smooth : str, optional
        The flexible curve of :func:`calstats.clinical.pmcalibration` (``"gam"``,
        ``"rcs"``, ``"ns"``, ``"bs"``, ``"none"``; binary also ``"lowess"``, ``"loess"``).
        Default: ``"gam"`` (pmcalibration's) for a binary outcome; ``"rcs"`` for a
        time-to-event one, the Cox model on a restricted cubic spline of ``cloglog(p)`` of
        Austin, Harrell and van Klaveren (2020) (mgcv's Cox smooth refitted ``n_boot``
        times takes about twenty times as long).
    thresholds : array_like, optional
        Threshold probabilities of the decision curve (default dcurves' 1% to 99%).
    figures : bool, default True
        Draw the figures (needs matplotlib; without it the tables come alone, with a note).
    progress : bool, optional
        A progress bar by section: ``None`` shows one in a terminal or notebook once the
        report has run for two seconds, ``True`` always, ``False`` never.
    source : str, optional
        The Python code (or command) that made ``p`` and ``y``, shown on the page before the
        call that reruns the report, so that a reader can rerun it from the start.

    Returns
    -------
    CalibrationReport

    Notes
    -----
    Sections and the functions behind them (R equivalents in the page):
    the C-statistic with DeLong's interval and the calibration hierarchy
    (:func:`calstats.val_prob_ci`); ICI/E50/E90/Emax/ECI with intervals
    (:func:`calstats.clinical.pmcalibration`); the CORP diagram, band and Brier
    decomposition (:func:`calstats.corp`); the binned diagram with per-bin intervals and
    the ECE (:func:`calstats.reliability_diagram`, :func:`calstats.ece`); the
    Kolmogorov-Smirnov, Kuiper and Spiegelhalter tests and Hosmer-Lemeshow
    (:func:`calstats.cal_ks_test`, ...,
    :func:`calstats.hoslem_test`); the decision curve
    (:func:`calstats.clinical.decision_curve`). For a time-to-event outcome: Harrell's and
    Uno's C (:func:`calstats.clinical.concordance`), the time-dependent AUC and Brier score
    beside the Kaplan-Meier null model with the index of prediction accuracy
    (:func:`calstats.clinical.time_auc`, :func:`calstats.clinical.time_brier`), the
    integrated Brier score (:func:`calstats.clinical.integrated_brier`), van Houwelingen's
    calibration slope (:func:`calstats.clinical.cox_calibration_slope`), the flexible
    curve's errors by the horizon and the decision curve; with competing risks the
    Aalen-Johansen cumulative incidence (:func:`calstats.clinical.cuminc`), the AUC and
    Brier score of the cause, the calibration in risk groups
    (:func:`calstats.clinical.cr_calibration`) and the competing-risk decision curve. For a
    multiclass outcome the PDI,
    calibration intercepts and slopes (:func:`calstats.clinical.val_multinomial`) and the
    top-label CORP and binned diagrams. A function that refuses the data, or warns, puts
    its message in the section's notes; the other sections are unaffected.

    No R package writes such a report; the numbers are those of the R functions named.

    Raises
    ------
    CalstatsError
        A missing value (naming the first row that has one), models of different lengths
        or shapes, a time-to-event outcome without ``time``, a section that does not apply,
        invalid settings, and the checks of the probabilities and labels.
    """
    t0 = _time.perf_counter()
    check_progress(progress)
    check_report_source(source)
    defaults = Settings()
    settings = Settings(
        bins=check_bins_or_rule(bins, BIN_RULES), strategy=match_arg(strategy, BIN_STRATEGIES),
        interval=match_arg(interval, BIN_INTERVALS), level=check_interval(level, "level"),
        band_level=check_interval(band_level, "band_level"),
        n_sim=None if n_sim is None else check_bins(n_sim, "n_sim"),
        n_boot=check_bins(n_boot, "n_boot"),
        n_resamples=None if n_resamples is None else check_bins(n_resamples, "n_resamples"),
        seed=check_seed(seed), g=check_bins(g, "g"), smooth="" if smooth is None else match_arg(smooth, _SMOOTHS),
        thresholds=None if thresholds is None else _thresholds(thresholds), figures=bool(figures))
    inp = read_inputs(p, y, models, weights, time, cause)
    if not settings.smooth:
        settings.smooth = "rcs" if inp.kind in ("survival", "competing") else "gam"
    names = _sections(sections, inp.kind)
    built, results, timings = build(inp, settings, names, progress)
    model_names = list(inp.models)
    return CalibrationReport(
        title=title if title is not None else "Calibration report: " + " vs ".join(model_names),
        kind=inp.kind, models=model_names, n=inp.n, sections=built, results=results, settings=settings,
        call=_call_text(inp, None if isinstance(p, dict) else models, settings, defaults, sections, title),
        version=_version(), environment=_environment(),
        created=datetime.datetime.now().isoformat(timespec="seconds"), seconds=_time.perf_counter() - t0,
        classes=inp.classes, horizon=inp.horizon, weighted=inp.weights is not None, source=source,
        timings=timings, times=None if inp.horizons is None else [float(t) for t in inp.horizons],
        cause=None if inp.kind != "competing" else inp.cause_label)


def _thresholds(thresholds: Any) -> np.ndarray:
    from ..clinical.decision import check_thresholds

    return check_thresholds(thresholds)


def _version() -> str:
    """calstats' version, from the installed distribution (the package's ``__version__``
    lives in a higher layer)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("calstats")
    except PackageNotFoundError:
        return "unknown"
