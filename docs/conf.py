"""Sphinx configuration of calstats' documentation (``scripts/build_docs.sh`` builds it)."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "calstats"
author = "calstats developers"
copyright = "2026, calstats developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc"]
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
autodoc_default_options = {"members": False}
templates_path = []
exclude_patterns = ["_build", "DESIGN.md"]
html_theme = "alabaster"
html_static_path = ["_static"]
html_theme_options = {"description": "Probability calibration, R's numbers", "page_width": "1100px"}
suppress_warnings = ["autosummary.import_cycle"]
