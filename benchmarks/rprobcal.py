"""R's probcal as a contender: the same data, timed inside R by ``system.time``.

When ``Rscript`` is on PATH and ``Rscript -e 'library(probcal)'`` succeeds, each case
writes its inputs to CSV files in a temporary directory and runs one R script that reads
them, makes the labels a factor with all K levels where the Python call does, runs the
call once (a warm-up that also sizes an inner loop so that one timing lasts at least
:data:`MIN_SECONDS`), then prints one line ``CALSTATS_BENCH <seconds per call>`` per
repetition. R's startup and the CSV reading are therefore outside the timings, and the
runner reports R's median next to the interleaved Python medians of the same case.
"""

import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: Prefix of the lines that carry one timing each.
MARK = "CALSTATS_BENCH"
#: Shortest time one R timing may span: fast calls are repeated inside ``system.time``,
#: whose clock resolution is a millisecond.
MIN_SECONDS = 0.05
#: A warm-up at least this long counts as the first repetition (no second 12 s fit).
WARMUP_COUNTS = 0.5


@dataclass
class RCase:
    """One R call to time.

    Parameters
    ----------
    call : str
        The R expression, e.g. ``"cal_dirichlet(p, y, lambda = 0.01)"``.
    data : dict of str to numpy.ndarray
        R variables: 1-D arrays become numeric vectors, 2-D arrays numeric matrices.
    factors : dict of str to int
        Variables to turn into ``factor(x, levels = seq_len(k))`` (codes 1..k, every level
        kept even when absent from the data).
    packages : tuple of str
        The R packages the script attaches (probcal by default; the clinical group's
        pmcalibration, mgcv, VGAM, reliabilitydiag, dcurves).
    """

    call: str
    data: dict
    factors: dict = field(default_factory=dict)
    packages: tuple = ("probcal",)


def status():
    """Whether R's probcal can be timed: ``(True, path to Rscript)`` or ``(False, reason)``."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return False, "Rscript is not on PATH"
    try:
        done = subprocess.run([rscript, "-e", "library(probcal)"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        return False, f"Rscript could not be run ({err})"
    if done.returncode != 0:
        return False, "Rscript -e 'library(probcal)' failed: R package probcal is not installed"
    return True, rscript


def version(rscript):
    """``"probcal X (R Y)"`` as R reports it, or None."""
    expr = 'cat(sprintf("probcal %s (R %s)", packageVersion("probcal"), getRversion()))'
    try:
        done = subprocess.run([rscript, "-e", expr], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def _write(path, x):
    """CSV without a header, 17 significant digits (every double round-trips)."""
    x = np.asarray(x, dtype=np.float64)
    np.savetxt(path, x.reshape(x.shape[0], -1), fmt="%.17g", delimiter=",")


def _r_string(s):
    return '"' + str(s).replace("\\", "/").replace('"', '\\"') + '"'


def script(case, files, reps):
    """The R script that times ``case.call`` (``files``: variable name -> CSV path)."""
    lines = [f"suppressPackageStartupMessages(library({pkg}))" for pkg in case.packages]
    lines += [".read <- function(file, vector) {",
              "  x <- as.matrix(read.csv(file, header = FALSE))",
              "  dimnames(x) <- NULL",
              "  if (vector) x[, 1] else x",
              "}"]
    for name, arr in case.data.items():
        vector = "TRUE" if np.ndim(arr) == 1 else "FALSE"
        lines.append(f"{name} <- .read({_r_string(files[name])}, {vector})")
    for name, k in case.factors.items():
        lines.append(f"{name} <- factor({name}, levels = seq_len({int(k)}))")
    lines += [f".f <- function() {case.call}",
              ".t1 <- system.time(.f())[[\"elapsed\"]]",
              f".inner <- max(1L, as.integer(ceiling({MIN_SECONDS} / max(.t1, 0.001))))",
              f".reps <- {int(reps)}L",
              f"if (.t1 >= {WARMUP_COUNTS}) {{",
              f"  cat(sprintf(\"{MARK} %.9g\\n\", .t1))",
              "  .reps <- .reps - 1L",
              "}",
              "for (.i in seq_len(.reps)) {",
              "  .el <- system.time(for (.j in seq_len(.inner)) .f())[[\"elapsed\"]]",
              f"  cat(sprintf(\"{MARK} %.9g\\n\", .el / .inner))",
              "}"]
    return "\n".join(lines) + "\n"


def parse(stdout):
    """The timings in R's output (seconds per call)."""
    out = []
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == MARK:
            out.append(float(parts[1]))
    return out


def time_case(rscript, case, reps, timeout=7200):
    """Run ``case`` in R; returns ``(median seconds, None)`` or ``(None, why it failed)``."""
    with tempfile.TemporaryDirectory(prefix="calstats-bench-r-") as tmp:
        files = {}
        for name, arr in case.data.items():
            files[name] = str(Path(tmp) / f"{name}.csv")
            _write(files[name], arr)
        path = Path(tmp) / "bench.R"
        path.write_text(script(case, files, reps))
        try:
            done = subprocess.run([rscript, "--vanilla", str(path)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout} s"
        except (OSError, subprocess.SubprocessError) as err:
            return None, str(err)
    times = parse(done.stdout)
    if done.returncode != 0 or not times:
        # R's own message ("Error in ...") rather than its closing "Execution halted"
        lines = done.stderr.strip().splitlines()
        errors = [line for line in lines if line.startswith("Error")]
        why = errors[0] if errors else lines[-1] if lines else "no timings printed"
        return None, f"Rscript exited with {done.returncode}: {why}"
    return statistics.median(times), None
