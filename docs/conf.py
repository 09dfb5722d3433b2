"""Sphinx configuration of calstats' documentation.

Build it with ``scripts/build_docs.sh`` (HTML into ``build/docs/``): the script copies this
folder and the vignettes (``vignettes/*.py``) into ``build/docs-src/`` and runs Sphinx there,
so nothing is generated inside the repository.
"""

import os
import sys
from pathlib import Path


def _repo_root():
    """The repository (the folder holding pyproject.toml) above this file, if any."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "pyproject.toml").exists() and (folder / "calstats").is_dir():
            return folder
    return None


_root = _repo_root()
if _root is not None:
    sys.path.insert(0, str(_root))

project = "calstats"
author = "calstats developers"
copyright = "2026, calstats developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "myst_nb"]

# -- API reference (autodoc + numpydoc) -------------------------------------------------
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
# The docstrings give every parameter's type (numpydoc); annotations in the signatures
# would repeat them, with numpy's ArrayLike expanded into a long union.
autodoc_typehints = "none"
templates_path = ["_templates"]
suppress_warnings = ["autosummary.import_cycle"]

# autosummary's one-line summaries end at the first ". "; the docstrings cite papers as
# "(Kull et al. 2019, Fig. 3)" or "eqs. (7)-(9)", which must not end the sentence.
import sphinx.ext.autosummary as _autosummary  # noqa: E402

_autosummary.WELL_KNOWN_ABBREVIATIONS = tuple(
    _autosummary.WELL_KNOWN_ABBREVIATIONS
) + ("Fig.", "Figs.", "eq.", "eqs.", "Eq.", "Eqs.", "Sec.", "cf.")

# -- vignettes (jupytext percent scripts, executed by myst-nb at build time) ------------
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
nb_execution_mode = os.environ.get("CALSTATS_DOCS_EXECUTE", "force")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath"]

# conf.py is a .py file too: it is not a vignette. docs/spec and DESIGN.md are notes for
# developers, not pages.
exclude_patterns = ["_build", "conf.py", "DESIGN.md", "spec", "**/.ipynb_checkpoints"]

# -- HTML ------------------------------------------------------------------------------
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "description": "Probability calibration, R's numbers",
    "page_width": "1160px",
    "sidebar_width": "230px",
    "fixed_sidebar": True,
}
html_sidebars = {"**": ["about.html", "searchbox.html", "navigation.html", "relations.html"]}


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing methods (``set_fit_request``...):
    their docstrings refer to scikit-learn's own glossary."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
