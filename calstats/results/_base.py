"""The protocol of every result object, the ``Calibrator`` base class and its summary.

Every result of calstats -- a fitted calibrator, a test, an interval, a diagram, a
comparison, a clinical validation -- is a :class:`Result`: it knows its R class vector
(``obj.r_class``, ``obj.inherits(name)``), prints R's text (``print(obj)``, ``str(obj)``),
converts to a DataFrame (``obj.as_frame()``) and renders in a notebook
(``obj._repr_html_()``), like scipy.stats' result classes. Results with R fields are built
in one constructor call with every field (probcal's ``new_calibrator``).

A result that has a summary fills the lines and tables of its own summary
(``_header_items``, ``_summary_items``, ``_summary_tables``, and ``coef_table`` for a
likelihood fit) and hands them to the generic :class:`CalibratorSummary`, as statsmodels'
``DiscreteResults.summary`` fills its header and hands it to ``Summary``.
"""

import functools
import html as _html
import inspect
from typing import Any

import numpy as np
import pandas as pd

from .._errors import CalstatsError
from .._robject import RObject
from .._typing import Labels, Scores
from .._validate import fail_no_coef_table, fail_training_data_needed, refuse_prediction_uncertainty
from ._tables import table_html, table_latex, table_markdown, table_text
from ._text import h1, h2, wrap_item

__all__ = ["Result", "Calibrator", "CalibratorSummary", "predict", "summary", "latex_table", "table_markdown"]


# --------------------------------------------------------------------------------------
# the protocol


class PandasSpelling:
    """The ``to_*`` spelling (pandas', the report's) of the ``as_*`` exports: the same
    methods under both names."""

    def to_frame(self) -> pd.DataFrame:
        """:meth:`as_frame` (pandas' spelling)."""
        return self.as_frame()  # type: ignore[attr-defined]

    def to_html(self) -> str:
        """:meth:`as_html` (pandas' spelling)."""
        return self.as_html()  # type: ignore[attr-defined]

    def to_latex(self) -> str:
        """:meth:`as_latex` (pandas' spelling)."""
        return self.as_latex()  # type: ignore[attr-defined]

    def to_markdown(self) -> str:
        """:meth:`as_markdown` (pandas' spelling; no ``tabulate`` needed)."""
        return self.as_markdown()  # type: ignore[attr-defined]


class Result(PandasSpelling, RObject):
    """The protocol of every calstats result.

    ``r_class`` is R's class vector of the object R returns (``inherits`` tests it);
    ``print_text()`` is R's printed text with its final newline (``str`` and ``repr`` show
    it without); ``as_frame()`` is the result as a DataFrame; ``_repr_html_()`` renders it in
    a notebook (by default a heading and the ``as_frame()`` table). Results with R fields
    have ``obj["name"]`` and ``obj.names()`` (:class:`~calstats._robject.RObject`).

    Exports, one family with two spellings: ``as_frame()``, ``as_html()``, ``as_latex()``
    and ``as_markdown()`` (statsmodels' spelling, the summaries'), and the same methods as
    ``to_frame()``, ``to_html()``, ``to_latex()``, ``to_markdown()`` (pandas' spelling, the
    report's). A result overrides the ``as_*`` method; its ``to_*`` name follows. Markdown
    needs no extra package (a GitHub pipe table, :func:`table_markdown`).
    """

    r_class: tuple[str, ...] = ()

    def inherits(self, name: str) -> bool:
        """R ``inherits(obj, name)``."""
        return name in self.r_class

    def print_text(self) -> str:  # pragma: no cover - every result defines it
        """R's printed text, with its final newline."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.print_text()[:-1]

    def __repr__(self) -> str:
        return self.__str__()

    def as_frame(self) -> pd.DataFrame:  # pragma: no cover - every result defines it
        """The result as a DataFrame."""
        raise NotImplementedError

    def _html_title(self) -> str:
        return str(getattr(self, "method", type(self).__name__))

    def _repr_html_(self) -> str:
        return f"<h4>{_html.escape(self._html_title())}</h4>\n" + table_html(self.as_frame())

    # -- exports: the as_* family; to_* is the same method under pandas' name ---------
    def as_html(self) -> str:
        """HTML: what a notebook shows (a heading and the :meth:`as_frame` table, unless the
        result renders itself otherwise)."""
        return self._repr_html_()

    def as_latex(self) -> str:
        """A LaTeX ``tabular`` (booktabs rules) of :meth:`as_frame`, after a comment line naming it."""
        return latex_table(self.as_frame(), caption=self._html_title())

    def as_markdown(self) -> str:
        """A Markdown (GitHub pipe) table of :meth:`as_frame`, under a bold title line."""
        return f"**{self._html_title()}**\n\n" + table_markdown(self.as_frame())


# --------------------------------------------------------------------------------------
# Calibrator


def _formula_aware(predict):
    """``predict`` of a fit made by the formula interface: the formula's columns of a
    DataFrame (by default the fitting data) go in; a binary fit's probabilities come out as
    a Series named after the positive level."""

    takes = inspect.signature(predict).parameters
    has_se, has_interval = "se_fit" in takes, "interval" in takes

    @functools.wraps(predict)
    def wrapper(self, *args, **kwargs):
        # R's methods swallow `...`; calstats' own se_fit/interval must not vanish silently
        if not (has_se and has_interval):
            refuse_prediction_uncertainty(False if has_se else kwargs.get("se_fit", False),
                                          None if has_interval else kwargs.get("interval"), self.method)
        spec = self.__dict__.get("parsed")
        if spec is None:
            return predict(self, *args, **kwargs)
        newdata = args[0] if args else kwargs.pop("newdata", None)
        X = spec.design(self.__dict__.get("_formula_data") if newdata is None else newdata)
        return spec.output(predict(self, X, *args[1:], **kwargs), X, self.label_levels)

    return wrapper


#: The R classes of probcal's calibrators: their ``print()`` is R's text, word for word.
PROBCAL_CALIBRATORS = frozenset({"cal_platt", "cal_beta", "cal_temperature", "cal_isotonic", "cal_histogram",
                                 "cal_vector_scaling", "cal_dirichlet", "cal_ovr", "cal_cv"})


class Calibrator(Result):
    """Base class of every calibrator returned by a ``cal_*`` function.

    Attributes common to all: ``method``, ``n``, ``input``, ``call`` (a dict recording the
    function and the arguments the caller supplied), ``r_class`` (R's class vector).
    Multiclass calibrators also have ``k`` and ``levels``. A fit made by the formula
    interface (:mod:`calstats.formula.api`) also remembers its ``formula`` (the string),
    ``parsed`` (the parsed formula) and ``label_levels`` (a binary label's two levels), and
    its ``predict`` takes a DataFrame holding the formula's columns (by default the fitting
    data).
    """

    r_class: tuple[str, ...] = ("calibrator",)
    _extras: tuple[str, ...] = ("formula", "parsed", "label_levels", "_formula_data")
    # fields every calibrator sets (multiclass ones also k and levels)
    method: str
    n: int
    input: str
    call: dict[str, Any] | None
    k: int
    levels: list[str]
    # the formula interface's record (None for a fit of arrays)
    formula: str | None = None
    parsed: Any = None
    label_levels: list[str] | None = None
    #: A summary whose text ends with its tables (the research calibrators, not R's).
    _summary_details = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "predict" in cls.__dict__:
            cls.predict = _formula_aware(cls.__dict__["predict"])  # type: ignore[method-assign]

    def predict(self, newdata: Scores, **kwargs: Any) -> Any:  # pragma: no cover - abstract
        """Calibrated probabilities for ``newdata`` (R ``predict(fit, newdata)``)."""
        raise NotImplementedError

    @property
    def coef(self):
        """The fitted parameters (R ``coef(fit)`` where R has it; see each class)."""
        if "coefficients" in self._r_fields:
            return self.coefficients
        return None

    # -- printing ---------------------------------------------------------------------
    def _header_items(self):
        items = [f"Method: {self.method}", f"Observations: {self.n}", f"Input: {self.input}"]
        if "k" in self._r_fields:
            items.append(f"Classes: {self.k}")
        return items

    def _parameter_items(self):
        """``(label, value text)`` pairs of R's ``summary()`` parameters section; each class
        writes its own."""
        return []

    def _summary_items(self):
        """R's summary lines, and one more when an optimiser other than R's BFGS ran."""
        items = list(self._parameter_items())
        optimizer = getattr(self, "optimizer", None)
        if optimizer is not None and not optimizer.startswith("BFGS"):
            items.append(("Optimizer", f"{optimizer}, gradient norm {self.grad_norm:.2g}"))
        return items

    def _parameter_tables(self):
        """The class's parameter tables for reports (DataFrames; not in R's text)."""
        return {}

    def _summary_tables(self):
        tables = dict(self._parameter_tables())
        if getattr(self, "optimizer", None) is not None:
            tables["optimizer"] = _optimizer_table(self)
        return tables

    def _summary_notes(self):
        return []

    def print_text(self) -> str:
        """``print(fit)``: for probcal's calibrators R's text, word for word (its header
        lines); for calstats' own a "calstats calibrator" header with the header lines and
        the fitted parameters. With its final newline (and the formula of a formula fit)."""
        probcal = self.r_class[0] in PROBCAL_CALIBRATORS
        lines = ["", h1("probcal calibrator" if probcal else "calstats calibrator")]
        for item in self._header_items():
            lines.extend(wrap_item(item))
        if not probcal:
            lines.extend(self._parameter_lines())
        text = "\n".join(lines) + "\n"
        if self.formula is not None:
            text += f"Formula: {self.formula}\n"
        return text

    def _parameter_lines(self):
        lines = []
        for label, value in self._summary_items():
            lines.extend(wrap_item(f"{label}: {value}"))
        return lines

    def __repr__(self) -> str:
        """What the interpreter shows: ``print(fit)`` and, for probcal's calibrators (whose
        print is R's header only), the fitted parameters of R's ``summary()`` too."""
        text = str(self)
        if self.r_class[0] in PROBCAL_CALIBRATORS:
            extra = self._parameter_lines()
            if extra:
                text += "\n" + "\n".join(extra)
        return text

    def _repr_html_(self):
        return self.summary().as_html()

    def summary(self, coef: bool = False) -> "CalibratorSummary":
        """R ``summary(fit)``: a :class:`CalibratorSummary` (prints R's text; ``coef=True``
        appends the coefficient table with standard errors, z values and p-values)."""
        return CalibratorSummary(self, coef=coef)

    def as_frame(self) -> pd.DataFrame:
        """The main parameter table (``summary().as_frame()``)."""
        return self.summary().as_frame()

    def as_latex(self) -> str:
        """The summary's tables as LaTeX (``summary().as_latex()``)."""
        return self.summary().as_latex()

    def as_markdown(self) -> str:
        """The summary as Markdown (``summary().as_markdown()``)."""
        return self.summary().as_markdown()

    # -- the coefficient table (likelihood fits) ---------------------------------------
    def _has_coef_table(self):
        """Whether :meth:`coef_table` works without the training data."""
        return False

    def _coef_table(self, x, y):
        fail_no_coef_table(self.r_class[0])

    def _coef_table_ready(self):
        """Whether :meth:`coef_table` needs no argument: the fit has a coefficient table and
        keeps its data, or it was made by the formula interface, which keeps the data."""
        return self._has_coef_table() or self.parsed is not None

    def _coef_frame(self):
        if not self._coef_table_ready():
            fail_no_coef_table(self.r_class[0], likelihood_parameters=False)
        cache = self.__dict__.get("_coef_cache")
        if cache is None:
            cache = self.coef_table()
            object.__setattr__(self, "_coef_cache", cache)
        return cache

    @property
    def params(self):
        """Estimates of the coefficient table (statsmodels' ``params``), a Series."""
        return self._coef_frame()["Estimate"].copy()

    @property
    def bse(self):
        """Standard errors (statsmodels' ``bse``), a Series; see :meth:`coef_table`."""
        return self._coef_frame()["Std. Error"].copy()

    @property
    def zvalues(self):
        """z values against each parameter's value under the identity map (``coef_table``'s note)."""
        return self._coef_frame()["z value"].copy()

    tvalues = zvalues  # statsmodels' name for the Wald statistics

    @property
    def pvalues(self):
        """Two-sided p-values of the z values (statsmodels' ``pvalues``), a Series."""
        return self._coef_frame()["Pr(>|z|)"].copy()

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Wald confidence intervals ``estimate -/+ z_(1-alpha/2) * se`` (statsmodels'
        ``conf_int``): a DataFrame with columns ``lower`` and ``upper``."""
        from scipy.stats import norm

        from .._validate import check_interval

        a = check_interval(alpha, "alpha")
        table = self._coef_frame()
        q = norm.ppf(1.0 - a / 2.0)
        est, se = table["Estimate"], table["Std. Error"]
        return pd.DataFrame({"lower": est - q * se, "upper": est + q * se}, index=table.index)

    def coef_table(self, x: "Scores | None" = None, y: "Labels | None" = None) -> pd.DataFrame:
        """Estimates, standard errors, z values and p-values (not in R's probcal).

        Likelihood fits only: Platt and beta calibration (R's ``coef(summary(glm))``,
        dispersion 1), temperature, vector, Dirichlet and matrix scaling (standard errors
        from the observed information, the Hessian of the summed negative log-likelihood;
        z tests each parameter against the identity map). ``table.attrs["note"]`` says how
        the table was computed.

        Parameters
        ----------
        x, y : array_like, optional
            The training data. Needed only by fits that do not keep it (a fit on Dask
            inputs); the in-memory fits keep a reference, and a formula fit its data.

        Returns
        -------
        pandas.DataFrame
            Index ``parameter``; columns ``Estimate``, ``Std. Error``, ``z value``,
            ``Pr(>|z|)``.

        Raises
        ------
        CalstatsError
            For a calibrator without a likelihood (isotonic, histogram, one-vs-rest) or
            when the training data is needed and not given.
        """
        if x is None and not self._has_coef_table() and self._coef_table_ready():
            x, y = self.parsed.design(self.__dict__.get("_formula_data"), need_label=True)
        return self._coef_table(x, y)

    def _training_data(self, x, y, prepare):
        """``(features, labels)`` the fit was computed on: kept at fit time, or ``prepare(x, y)``."""
        if x is None:
            data = self.__dict__.get("_coef_data")
            if data is None:
                fail_training_data_needed()
            return data
        return prepare(x, y)

    def _training_weights(self, x):
        """The case weights of the kept training data (None for given ``x`` or an unweighted fit)."""
        return self.__dict__.get("_fit_weights") if x is None else None


def _optimizer_table(obj):
    """Which optimiser ran and where it stopped, for the report renderings."""
    frame = pd.DataFrame(
        {"value": [obj.optimizer, str(int(obj.iterations)), f"{float(obj.value):.10g}", f"{float(obj.grad_norm):.3g}",
                   str(int(obj.convergence))]},
        index=pd.Index(["optimizer", "iterations", "objective", "gradient norm", "convergence"], name="item"),
    )
    frame.attrs["note"] = ("R's BFGS stops on a small relative decrease of the objective, not a small gradient; "
                           "optimizer='newton' minimises the same objective to a gradient norm below 1e-9.")
    return frame


# --------------------------------------------------------------------------------------
# the summary


class CalibratorSummary(PandasSpelling):
    """The summary of a result, in the spirit of statsmodels' ``Summary``.

    ``as_text()`` is R's ``summary()`` output to the byte: the result's printed text, then
    its parameter lines. With ``coef=True`` (``fit.summary(coef=True)``) the coefficient
    table (estimate, standard error, z, p-value) and a note saying what ``z`` tests follow,
    as R's ``summary.glm`` prints them; R's probcal has no such table, so R's own text stays
    the default, and the standard errors (which need a Hessian) are computed only when
    asked for. Results that are not R's (the research calibrators, the calibration
    hierarchy) end their text with their tables under a "Details" heading.
    ``as_html()``, ``as_latex()`` and ``as_frames()`` give everything for reports (header,
    parameter lines, parameter tables such as Dirichlet's weight matrix, the coefficient
    table with ``coef=True``, the optimiser); ``as_frame()`` the main table as one
    DataFrame. Tables are rendered with statsmodels' ``SimpleTable``.
    """

    def __init__(self, fit: Any, coef: bool = False) -> None:
        self.fit = fit
        self.coef = bool(coef)
        self.header = list(fit._header_items())
        self.items = list(fit._summary_items())
        self.notes = list(fit._summary_notes())
        self.details = bool(getattr(fit, "_summary_details", False))
        self._tables: dict[str, pd.DataFrame] | None = None

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Parameter tables for the report renderings, computed on first use (and the
        coefficient table with ``coef=True``)."""
        if self._tables is None:
            tables = dict(self.fit._summary_tables())
            if self.coef:
                table = _coef_table_or_none(self.fit)
                if table is not None:
                    tables["coef_table"] = table
            self._tables = tables
        return self._tables

    def as_text(self) -> str:
        """R's summary text, with its final newline (plus the coefficient table with ``coef=True``)."""
        text = self.fit.print_text() + "\n" + h2("Parameters") + "\n\n"
        for label, value in self.items:
            for line in wrap_item(f"{label}: {value}"):
                text += line + "\n"
        if self.details:
            text += "\n" + h2("Details") + "\n"
            for name, frame in self.tables.items():
                text += f"\n{name}:\n{frame.to_string()}\n"
            for note in self.notes:
                text += f"\nNote: {note}\n"
        elif self.coef:
            text += self._coef_text()
        return text

    def _coef_text(self):
        table = self.tables.get("coef_table")
        if table is None:
            return "\n" + h2("Coefficients") + "\n\nNo coefficient table: this calibrator is not a likelihood fit.\n"
        text = "\n" + h2("Coefficients") + "\n\n" + table_text(table) + "\n"
        if table.attrs.get("note"):
            text += "\n" + "\n".join(wrap_item(f"Note: {table.attrs['note']}")) + "\n"
        return text

    def __str__(self) -> str:
        return self.as_text()[:-1]

    __repr__ = __str__

    def as_frames(self) -> dict[str, pd.DataFrame]:
        """The summary as pandas objects: ``{"info": DataFrame, "parameters": DataFrame, <tables>}``."""
        info = pd.DataFrame(
            [item.split(": ", 1) for item in self.header], columns=["item", "value"]
        ).set_index("item")
        params = pd.DataFrame(self.items, columns=["parameter", "value"]).set_index("parameter")
        out = {"info": info, "parameters": params}
        out.update(self.tables)
        return out

    def as_frame(self) -> pd.DataFrame:
        """The main table as one DataFrame: the coefficient table (estimate, SE, z, p) of a
        likelihood fit summarised with ``coef=True``, else the parameter table, else the
        parameter lines. :meth:`as_frames` has every table."""
        frames = self.as_frames()
        if "coef_table" in frames:
            return frames["coef_table"]
        for name, frame in frames.items():
            if name not in ("info", "parameters", "optimizer"):
                return frame
        return frames["parameters"]

    def as_html(self) -> str:
        """HTML: the header, the parameter lines and each table (statsmodels ``SimpleTable``)."""
        parts = [f"<h4>{_html.escape(str(self.fit.method))}</h4>"]
        for name, frame in self.as_frames().items():
            parts.append(f"<h5>{_html.escape(str(name))}</h5>")
            parts.append(table_html(frame))
            if frame.attrs.get("note"):
                parts.append(f"<p><small>{_html.escape(str(frame.attrs['note']))}</small></p>")
        return "\n".join(parts)

    _repr_html_ = as_html

    def as_latex(self) -> str:
        """LaTeX ``tabular`` blocks (statsmodels ``SimpleTable``; booktabs rules)."""
        blocks = []
        for name, frame in self.as_frames().items():
            block = latex_table(frame, caption=str(name))
            if frame.attrs.get("note"):
                block += "\n% Note: " + str(frame.attrs["note"])
            blocks.append(block)
        return "\n\n".join(blocks)

    def as_markdown(self) -> str:
        """Markdown: a heading, then each table (GitHub pipe tables, no ``tabulate`` needed)
        with its note."""
        parts = [f"### {self.fit.method}"]
        for name, frame in self.as_frames().items():
            parts.append(f"**{name}**\n\n" + table_markdown(frame))
            if frame.attrs.get("note"):
                parts.append(f"*Note:* {frame.attrs['note']}")
        return "\n\n".join(parts) + "\n"


def _coef_table_or_none(fit):
    """The coefficient table of a fit that has one (None when it has none or when it cannot
    be computed, e.g. a singular information matrix)."""
    if not isinstance(fit, Calibrator) or not fit._coef_table_ready():
        return None
    try:
        return fit.coef_table()
    except (CalstatsError, np.linalg.LinAlgError):
        return None


def latex_table(frame: pd.DataFrame, caption: str) -> str:
    """A captioned LaTeX table (a comment line, then statsmodels' ``tabular``)."""
    return f"% {caption}\n" + table_latex(frame)


def predict(fit: "Calibrator", newdata: Any, **kwargs: Any) -> Any:
    """R ``predict(fit, newdata, ...)``: calibrated probabilities for ``newdata``.

    Extra keyword arguments are ignored, as R's methods swallow ``...``.
    """
    return fit.predict(newdata, **kwargs)


def summary(fit: Any, **kwargs: Any) -> Any:
    """R ``summary(fit)``: a :class:`CalibratorSummary` whose text is R's (``coef=True``
    appends the coefficient table, see :class:`CalibratorSummary`)."""
    return fit.summary(**kwargs)
