"""Result objects: the ``Calibrator`` base class, its summary, and ``predict``/``summary``.

Every ``cal_*`` function returns a :class:`Calibrator` subclass. Like R's S3 object it
holds its fields under R's names in R's order (``obj["lambda"]``, ``obj.names()``), knows
its R class vector (``obj.r_class``), prints R's lines, and predicts. Like a statsmodels
result it also has ``coef``, ``convergence`` where R has them, and a ``summary()`` whose
``as_text()`` is R's summary and which renders to HTML, LaTeX and pandas for reports.
"""

import html as _html
import re
from typing import Any

import pandas as pd

from .._options import get_option
from .._typing import Labels, Scores
from .._robject import RObject

__all__ = ["Calibrator", "CalibratorSummary", "DetailsSummary", "predict", "summary"]


# --------------------------------------------------------------------------------------
# cli-style text (docs/spec/r-interface.md §8.2-8.3)


def _rule_chars():
    if get_option("unicode") is True:
        return "\u2500\u2500", "\u2500"
    return "--", "-"


def _width():
    return int(get_option("width"))


def _h1(title):
    lead, fill = _rule_chars()
    emoji = "\u2696 " if get_option("emoji") is True else ""
    s = f"{lead} {emoji}{title} "
    width = _width()
    return s + fill * (width - len(s)) if len(s) < width else s[:width]


def _h2(title):
    lead, _ = _rule_chars()
    return f"{lead} {title} {lead}"


def _wrap_item(text):
    """Fill the words of one description-list item into lines of at most width - 1."""
    limit = _width() - 1
    lines, current = [], ""
    for word in re.split(r"\s+", text.strip()):
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= limit:
            current += " " + word
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return lines


# --------------------------------------------------------------------------------------
# Calibrator


class Calibrator(RObject):
    """Base class of every calibrator returned by a ``cal_*`` function.

    Attributes common to all: ``method``, ``n``, ``input``, ``call`` (a dict recording the
    function and the arguments the caller supplied), ``r_class`` (R's class vector).
    Multiclass calibrators also have ``k`` and ``levels``.
    """

    r_class: tuple[str, ...] = ("calibrator",)
    # fields every calibrator sets (multiclass ones also k and levels)
    method: str
    n: int
    input: str
    call: dict[str, Any] | None
    k: int
    levels: list[str]

    # -- R-style protocol -------------------------------------------------------------
    def inherits(self, name: str) -> bool:
        """R ``inherits(obj, name)``."""
        return name in self.r_class

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

    def _summary_items(self):
        """``(label, value text)`` pairs of R's ``summary()`` parameters section."""
        from ._summary_params import summary_items

        return summary_items(self)

    def _summary_tables(self):
        """Parameter tables for report renderings (not part of R's text)."""
        from ._summary_params import summary_tables

        return summary_tables(self)

    def print_text(self) -> str:
        """R's ``print(fit)`` text, with its final newline."""
        lines = ["", _h1("probcal calibrator")]
        for item in self._header_items():
            lines.extend(_wrap_item(item))
        return "\n".join(lines) + "\n"

    def __str__(self):
        return self.print_text()[:-1]

    __repr__ = __str__

    def _repr_html_(self):
        return self.summary().as_html()

    def summary(self, coef: bool = False) -> "CalibratorSummary":
        """R ``summary(fit)``: a :class:`CalibratorSummary` (prints R's text; ``coef=True``
        appends the coefficient table with standard errors, z values and p-values)."""
        return CalibratorSummary(self, coef=coef)

    # statsmodels-style access to the coefficient table (likelihood fits only)

    def _coef_frame(self):
        from ._coeftable import has_coef_table
        from .._errors import CalstatsError

        if not has_coef_table(self):
            raise CalstatsError(f"A `{self.r_class[0]}` fit has no coefficient table (it is not a likelihood fit).")
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

        from .._errors import CalstatsError

        if not (isinstance(alpha, (int, float)) and 0.0 < float(alpha) < 1.0):
            raise CalstatsError("Argument `alpha` must be a single number in `(0, 1)`.")
        table = self._coef_frame()
        q = norm.ppf(1.0 - float(alpha) / 2.0)
        est, se = table["Estimate"], table["Std. Error"]
        return pd.DataFrame({"lower": est - q * se, "upper": est + q * se}, index=table.index)

    def coef_table(self, x: "Scores | None" = None, y: "Labels | None" = None) -> pd.DataFrame:
        """Estimates, standard errors, z values and p-values (not in R's probcal).

        Likelihood fits only (Platt, beta, temperature, vector, Dirichlet, matrix scaling);
        see :func:`calstats.results._coeftable.coef_table`. ``x``, ``y``: the training data, needed
        only by fits that do not keep it.
        """
        from ._coeftable import coef_table

        return coef_table(self, x, y)


class CalibratorSummary:
    """The summary of a calibrator, in the spirit of statsmodels' ``Summary``.

    ``as_text()`` is R's ``summary()`` output to the byte. With ``coef=True``
    (``fit.summary(coef=True)``) R's text is followed by the coefficient table (estimate,
    standard error, z, p-value) and a note saying what ``z`` tests, as R's ``summary.glm``
    prints it; R's probcal has no such table, so R's own text stays the default.
    ``as_html()``, ``as_latex()`` and ``as_frames()`` give everything for reports (header,
    R's parameter lines, parameter tables such as Dirichlet's weight matrix, the coefficient
    table, the optimiser); ``as_frame()`` the main table as one DataFrame. Tables are
    rendered with statsmodels' ``SimpleTable``.
    """

    def __init__(self, fit, coef=False):
        self.fit = fit
        self.coef = bool(coef)
        self.header = list(fit._header_items())
        self.items = list(fit._summary_items())
        self._tables = None

    @property
    def tables(self):
        """Parameter tables for the report renderings, computed on first use (standard
        errors need a Hessian, which R's text does not)."""
        if self._tables is None:
            self._tables = dict(self.fit._summary_tables())
        return self._tables

    def as_text(self) -> str:
        """R's summary text, with its final newline (plus the coefficient table with ``coef=True``)."""
        text = self.fit.print_text() + "\n" + _h2("Parameters") + "\n\n"
        for label, value in self.items:
            for line in _wrap_item(f"{label}: {value}"):
                text += line + "\n"
        if self.coef:
            text += self._coef_text()
        return text

    def _coef_text(self):
        from ._tables import table_text

        table = self.tables.get("coef_table")
        if table is None:
            return "\n" + _h2("Coefficients") + "\n\nNo coefficient table: this calibrator is not a likelihood fit.\n"
        text = "\n" + _h2("Coefficients") + "\n\n" + table_text(table) + "\n"
        if table.attrs.get("note"):
            text += "\n" + "\n".join(_wrap_item(f"Note: {table.attrs['note']}")) + "\n"
        return text

    def __str__(self):
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
        likelihood fit, else the calibrator's parameter table, else R's parameter lines.
        :meth:`as_frames` has every table."""
        frames = self.as_frames()
        if "coef_table" in frames:
            return frames["coef_table"]
        for name, frame in frames.items():
            if name not in ("info", "parameters", "optimizer"):
                return frame
        return frames["parameters"]

    def as_html(self) -> str:
        """HTML: the header, R's parameter lines and each table (statsmodels ``SimpleTable``)."""
        from ._tables import table_html

        parts = [f"<h4>{_html.escape(self.fit.method)}</h4>"]
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
            block = _latex_table(frame, caption=str(name))
            if frame.attrs.get("note"):
                block += "\n% Note: " + str(frame.attrs["note"])
            blocks.append(block)
        return "\n\n".join(blocks)


class DetailsSummary(CalibratorSummary):
    """A :class:`~calstats.CalibratorSummary` whose text ends with the parameter tables.

    R-ported classes print only R's lines; the research classes append the tables of
    ``as_frames()`` (and notes) after an h2 rule "Details" (docs/spec/seed-methods.md §0). The
    coefficient table is among them, so ``coef`` changes nothing here.
    """

    def __init__(self, fit, notes=(), coef=False):
        super().__init__(fit)
        self.notes = list(notes)

    def _coef_text(self):
        return ""

    def as_text(self) -> str:
        text = super().as_text() + "\n" + _h2("Details") + "\n"
        for name, frame in self.tables.items():
            text += f"\n{name}:\n{frame.to_string()}\n"
        for note in self.notes:
            text += f"\nNote: {note}\n"
        return text


def _latex_table(frame, caption):
    """A captioned LaTeX table (a comment line, then statsmodels' ``tabular``)."""
    from ._tables import table_latex

    return f"% {caption}\n" + table_latex(frame)


def predict(fit: "Calibrator", newdata: Any, **kwargs: Any) -> Any:
    """R ``predict(fit, newdata, ...)``: calibrated probabilities for ``newdata``.

    Extra keyword arguments are ignored, as R's methods swallow ``...``.
    """
    return fit.predict(newdata, **kwargs)


def summary(fit: "Calibrator", **kwargs: Any) -> "CalibratorSummary":
    """R ``summary(fit)``: returns a :class:`CalibratorSummary` whose text is R's
    (``coef=True`` appends the coefficient table, see :class:`CalibratorSummary`)."""
    return fit.summary(**kwargs)
