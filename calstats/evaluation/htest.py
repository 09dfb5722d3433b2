"""Hypothesis-test results in the shape of R's ``htest`` (``statistic``, ``p.value``, ...).

Every calibration test in calstats (Kolmogorov-Smirnov, Kuiper, Spiegelhalter,
``cal_test``) returns an :class:`HTest`: named fields like R's and scipy's result objects,
printed exactly as R's ``print.htest`` prints (``digits = 7``). It follows the protocol of
every calstats result (:class:`calstats.results._base.Result`).
"""

import textwrap
from typing import Any

import pandas as pd

from .._options import get_option
from ..numerics.rformat import format_named_vector, format_pval, format_real
from ..results._base import Result

__all__ = ["HTest"]

_ALT_WORDS = {"two.sided": "not equal to", "less": "less than", "greater": "greater than"}


class HTest(Result):
    """The result of a hypothesis test (R class ``htest``).

    A :class:`~calstats.results._base.Result`: ``print(t)`` shows R's ``print.htest`` text,
    ``t.as_frame()`` a one-row DataFrame, ``t["p.value"]`` and ``t.names()`` read the R
    fields, and a notebook shows a table of the printed values.

    Attributes
    ----------
    statistic : dict
        Name -> value of the test statistic, e.g. ``{"G": 1.23}``.
    parameter : dict or None
        Parameters of the null distribution, e.g. ``{"n": 50}``.
    p_value : float
        R ``p.value``.
    estimate : dict or None
        Named estimates printed under "sample estimates".
    null_value : dict or None
        R ``null.value``: the hypothesised value, e.g. ``{"SKCE": 0.0}``.
    alternative : str
        ``"greater"``, ``"less"``, ``"two.sided"`` or a description.
    method : str
        The test's name, printed as the title.
    data_name : str
        R ``data.name``, e.g. ``"p and y"``.
    conf_int : tuple or None
        A confidence interval ``(lower, upper)`` with ``conf_level``.

    conf_level : float
        The level of ``conf_int`` (default 0.95).
    r_class : sequence of str, optional
        R's class vector when it is not ``("htest",)`` (``cal_test`` gives
        ``("cal_test", "htest")``).

    Other keyword arguments become extra attributes (not R fields), e.g. ``n`` or
    ``replicates``; all are set by the one constructor call.
    """

    r_class: tuple[str, ...] = ("htest",)
    _extras = ("conf_level",)
    _r_fields = ("statistic", "parameter", "p.value", "conf.int", "estimate", "null.value", "alternative",
                 "method", "data.name")
    # R fields, set by the constructor (declared for type checkers)
    statistic: dict[str, float]
    p_value: float
    method: str
    alternative: str
    data_name: str
    parameter: dict[str, float] | None
    estimate: dict[str, float] | None
    null_value: dict[str, float] | None
    conf_int: Any
    conf_level: float

    def __init__(self, statistic, p_value, method, alternative, data_name="p and y", parameter=None,
                 estimate=None, null_value=None, conf_int=None, conf_level=0.95, r_class=None, **extra):
        self._set_fields(statistic=dict(statistic), parameter=None if parameter is None else dict(parameter),
                         p_value=float(p_value), conf_int=conf_int,
                         estimate=None if estimate is None else dict(estimate),
                         null_value=None if null_value is None else dict(null_value), alternative=alternative,
                         method=method, data_name=data_name, conf_level=conf_level)
        if r_class is not None:
            object.__setattr__(self, "r_class", tuple(r_class))
        for key, value in extra.items():  # the test's own values (not R fields)
            object.__setattr__(self, key, value)

    @property
    def pvalue(self):
        """scipy-style alias of ``p_value``."""
        return self.p_value

    def __iter__(self):
        # scipy-style unpacking: ``stat, p = test(...)``
        yield next(iter(self.statistic.values()))
        yield self.p_value

    def print_text(self) -> str:
        """R's ``print.htest`` text (with final newline)."""
        width = int(get_option("width"))
        lines = ["", *textwrap.wrap(self.method, width=int(0.9 * width), initial_indent="\t",
                                    subsequent_indent="\t"), ""]
        lines.append(f"data:  {self.data_name}")
        parts = []
        for group in (self.statistic, self.parameter):
            for name, value in (group or {}).items():
                parts.append(f"{name} = {format_real([value], 5)[0].strip()}")
        fp = format_pval(self.p_value, 4)
        parts.append("p-value " + (fp if fp.startswith("<") else "= " + fp))
        lines.extend(textwrap.wrap(", ".join(parts), width=int(0.9 * width)) or [""])
        if self.alternative is not None:
            if self.null_value is not None and len(self.null_value) == 1:
                (name, value), = self.null_value.items()
                word = _ALT_WORDS.get(self.alternative, self.alternative)
                lines.append(f"alternative hypothesis: true {name} is {word} {format_real([value], 7)[0].strip()}")
            else:
                lines.append(f"alternative hypothesis: {self.alternative}")
        if self.conf_int is not None:
            level = format_real([100 * self.conf_level], 7)[0].strip()
            lo, hi = format_real(list(self.conf_int), 7)
            lines.append(f"{level} percent confidence interval:")
            lines.append(f" {lo.strip()} {hi.strip()}")
        if self.estimate:
            lines.append("sample estimates:")
            lines.append(format_named_vector(self.estimate, 7, width))
        lines.append("")
        return "\n".join(lines) + "\n"

    def _repr_html_(self):
        """Notebook view: the method as a heading and R's printed lines in a table."""
        import html

        from ..results._tables import table_html

        rows = {f"{name}": value for name, value in self.statistic.items()}
        rows.update(self.parameter or {})
        rows["p-value"] = self.p_value
        if self.alternative is not None:
            rows["alternative"] = self.alternative
        if self.conf_int is not None:
            rows[f"{100 * self.conf_level:g}% confidence interval"] = f"[{self.conf_int[0]:.6g}, {self.conf_int[1]:.6g}]"
        for name, value in (self.estimate or {}).items():
            rows[f"estimate: {name}"] = value
        frame = pd.DataFrame({"value": list(rows.values())}, index=list(rows.keys()), dtype=object)
        return f"<h4>{html.escape(self.method)}</h4>\n<p>data: {html.escape(str(self.data_name))}</p>\n" + table_html(frame)

    def as_frame(self) -> pd.DataFrame:
        """One-row DataFrame: method, statistic(s), parameters, p-value, alternative."""
        row: dict[str, Any] = {"method": self.method}
        row.update(self.statistic)
        row.update(self.parameter or {})
        row["p_value"] = self.p_value
        row["alternative"] = self.alternative
        return pd.DataFrame([row])
