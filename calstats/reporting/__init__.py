"""Calibration reports: :func:`report` assesses one or more models -- discrimination,
calibration, clinical utility -- and writes one self-contained HTML page a statistician can
hand on (:class:`CalibrationReport`; also Markdown and LaTeX tables).

Every number in a report is returned by a public calstats function (the clinical
validation of :mod:`calstats.clinical`, the measures and tests of ``calstats.evaluation``)
and comes with one sentence saying what it means for the data; the page's last section
names each function and the R function whose numbers it reproduces.

The package is ``calstats.reporting`` (not ``calstats.report``): the function
``calstats.report`` and a module of the same name would replace each other as attributes
of the package.
"""

from ._build import SECTIONS, Settings
from ._report import CalibrationReport, report

__all__ = ["report", "CalibrationReport", "Settings", "SECTIONS"]
