"""Calibration reports: :func:`report` assesses one or more models -- discrimination,
calibration, clinical utility -- and writes one self-contained HTML page a statistician can
hand on (:class:`CalibrationReport`; also Markdown and LaTeX tables).

Every number in a report is returned by a public calstats function (the clinical
validation of :mod:`calstats.clinical`, the measures and tests of ``calstats.evaluation``)
and comes with one sentence saying what it means for the data; the page's last section
names each call, as it ran, and the R function whose numbers it reproduces.

How it is built: :mod:`._page` is the page model (sections of rows of values, details,
figures, notes, sources); :mod:`._runner` the one runner that calls the public functions
and records each call from the arguments it passes; :mod:`.sections` one module per
section; :mod:`._figures` the figures' shared conventions; :mod:`._render` the HTML,
Markdown, LaTeX and text renderings; :mod:`._words` the sentences.

The package is ``calstats.reporting`` (not ``calstats.report``): the function
``calstats.report`` and a module of the same name would replace each other as attributes
of the package.
"""

from ._page import Settings
from ._report import CalibrationReport, report
from .sections import SECTIONS

__all__ = ["report", "CalibrationReport", "Settings", "SECTIONS"]
