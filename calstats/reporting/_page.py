"""The page model of a report: sections of key numbers (rows of values, one per model),
detail tables, figures, notes and the calls the numbers came from.

Nothing here computes: the runner (:mod:`._runner`) calls the public functions and the
section modules (:mod:`.sections`) fill these objects from their results; the renderings
(:mod:`._render`) only read them.
"""

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pandas as pd

__all__ = ["ALL", "Value", "Row", "Detail", "Fig", "Source", "Section", "Settings"]

ALL = "*"  # the column of a number that belongs to no one model


@dataclass
class Value:
    """One number as shown: an estimate, its interval, a p-value (a test) and its sentence.

    ``flags`` are short warnings shown beside the number wherever it appears (its section
    and "At a glance"): rows the function left out, a case that drives the statistic.
    """

    estimate: float
    lower: float | None = None
    upper: float | None = None
    p_value: float | None = None
    df: float | None = None
    sentence: str = ""
    flags: list[str] = field(default_factory=list)

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
    style: str = "number"  # "number", "count", "percent", "general" or "test"
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


class Source(NamedTuple):
    """One call behind numbers of the page: what it gave, the call as it ran (public
    calstats functions, the arguments passed), and the R function whose numbers it
    reproduces, with the same arguments."""

    what: str
    call: str
    r: str


@dataclass
class Section:
    """One section of the page. ``terms`` are the abbreviations it uses (explained once on
    the page)."""

    id: str
    title: str
    intro: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    figures: list[Fig] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Add a note once."""
        if text not in self.notes:
            self.notes.append(text)

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)


@dataclass
class Settings:
    """Everything a rerun needs besides the data (shown in the provenance section)."""

    bins: Any = 10
    strategy: str = "uniform"
    interval: str = "wilson"
    level: float = 0.95
    band_level: float = 0.90
    n_sim: int | None = None
    n_boot: int = 200
    n_resamples: int | None = None
    seed: int = 1
    g: int = 10
    smooth: str = "gam"
    thresholds: Any = None
    figures: bool = True

    def pct(self, level: float | None = None) -> str:
        """A level as the page writes it: ``0.95`` -> ``"95%"``."""
        return f"{100 * (self.level if level is None else level):g}%"

    def binning_text(self) -> str:
        """The bins of the binned diagram and the ECE in words (``"10 equal-width bins"``)."""
        b = self.bins
        count = f"{b}" if isinstance(b, numbers.Integral) else f"{b}-rule"
        kind = "equal-width" if self.strategy == "uniform" else "equal-mass"
        return f"{count} {kind} bins"
