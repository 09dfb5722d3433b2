"""The command line's file safety: nothing the user has is lost.

* An output never replaces an input file (the data, the training file, the file being
  calibrated), with or without ``--force``.
* An existing output is replaced only with ``--force``.
* Every output target (directory, format, Parquet support, plot format) is checked before
  any work, so a long fit never ends in an unwritable file.
* Files are written atomically: into a temporary file beside the target, then renamed over
  it, so an interrupted run leaves the old file intact.
"""

import os
import tempfile
from pathlib import Path

from .. import _validate as v

__all__ = ["OutputTarget", "check_output", "atomic_write", "plot_formats", "PARQUET_SUFFIXES"]

PARQUET_SUFFIXES = (".parquet", ".pq")


class OutputTarget:
    """A checked output path (``path`` None or ``"-"`` means standard output)."""

    def __init__(self, path, kind):
        self.path = path
        self.kind = kind

    @property
    def stdout(self):
        return self.path in (None, "-")


def _same_file(a, b):
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.abspath(os.path.realpath(a)) == os.path.abspath(os.path.realpath(b))


def plot_formats():
    """The file suffixes matplotlib can write (``{"png": "Portable Network Graphics", ...}``)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return FigureCanvasBase.get_supported_filetypes()


def check_output(path, inputs, force, kind):
    """Check an output target before any work; a target that will not do raises the command
    line's error (:mod:`calstats._validate.cli`).

    Parameters
    ----------
    path : str or None
        The output (None or ``"-"``: standard output, always fine).
    inputs : list of (str, str)
        ``(path, role)`` of the files the command reads, e.g. ``("apply.csv", "the file
        being calibrated")``.
    force : bool
        ``--force``: an existing file that is not an input may be replaced.
    kind : {"table", "plot"}
        Tables are CSV (any suffix but .parquet/.pq) or Parquet; plots any format
        matplotlib writes.
    """
    target = OutputTarget(path, kind)
    if target.stdout:
        if kind == "plot":
            v.fail_cli_plot_to_stdout()
        return target
    for src, role in inputs:
        if src is not None and _same_file(path, src):
            v.fail_cli_output_is_input(path, role)
    p = Path(path)
    if p.is_dir():
        v.fail_cli_directory(path, write=True)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        v.fail_cli_no_directory(path, parent)
    if not os.access(parent, os.W_OK):
        v.fail_cli_directory_not_writable(path, parent)
    if p.exists() and not force:
        v.fail_cli_output_exists(path)
    suffix = p.suffix.lower().lstrip(".")
    if kind == "plot":
        try:
            formats = plot_formats()
        except ImportError:
            v.fail_cli_no_matplotlib()
        if suffix not in formats:
            v.fail_cli_plot_format(path, suffix, formats)
    elif p.suffix.lower() in PARQUET_SUFFIXES:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            v.fail_cli_write_parquet_needs_pyarrow(path)
    return target


def _give_mode(tmp, target):
    """The permissions the file would have had if written in place: the replaced file's, or
    the umask's for a new file (the temporary file is created private)."""
    try:
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
    except OSError:
        pass


def atomic_write(path, write):
    """Call ``write(tmp_path)`` on a temporary file beside ``path``, then rename it over
    ``path``; on any failure the temporary file is removed and ``path`` is untouched."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent or "."))
    os.close(fd)
    try:
        write(tmp)
        _give_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return str(target.resolve())
