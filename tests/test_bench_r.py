"""R's probcal in the benchmark runner: the skip path, the R script, the parsing of R's
timings (a fake ``Rscript`` on PATH prints canned timings; R itself is not needed)."""

import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmarks package

from benchmarks import __main__ as runner  # noqa: E402
from benchmarks import rprobcal  # noqa: E402

FAKE = textwrap.dedent("""\
    #!{python}
    # A stand-in for Rscript: loads "probcal" unless FAKE_R_NO_PROBCAL is set, reports a
    # version, and "runs" a script by saving it and the files it reads, then printing
    # canned timings (FAKE_R_FAIL: an R error instead).
    import os, re, shutil, sys
    args = sys.argv[1:]
    if args[:2] == ["-e", "library(probcal)"]:
        if os.environ.get("FAKE_R_NO_PROBCAL"):
            sys.stderr.write("Error in library(probcal) : there is no package called 'probcal'\\n")
            sys.exit(1)
        sys.exit(0)
    if args and args[0] == "-e":
        print("probcal 0.1.0 (R 4.2.2)")
        sys.exit(0)
    assert args[0] == "--vanilla", args
    text = open(args[1]).read()
    log = os.environ["FAKE_R_LOG"]
    shutil.copy(args[1], os.path.join(log, "bench.R"))
    for f in re.findall(r'read\\("([^"]+)"', text):
        shutil.copy(f, os.path.join(log, os.path.basename(f)))
    if os.environ.get("FAKE_R_FAIL"):
        sys.stderr.write("Error in cal_dirichlet(p, y) : something R says\\nExecution halted\\n")
        sys.exit(1)
    print("[1] some R output")
    for t in ("0.25", "0.75", "0.5"):
        print("CALSTATS_BENCH " + t)
    """)


@pytest.fixture
def fake_r(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "Rscript"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setenv("FAKE_R_LOG", str(log))
    monkeypatch.delenv("FAKE_R_NO_PROBCAL", raising=False)
    monkeypatch.delenv("FAKE_R_FAIL", raising=False)
    return str(exe), log


def test_skipped_without_rscript(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert rprobcal.status() == (False, "Rscript is not on PATH")
    assert runner.r_contender(False) == (None, "R probcal: skipped (Rscript is not on PATH)")
    assert runner.r_contender(True) == (None, "R probcal: skipped (--no-r)")


def test_skipped_without_probcal(fake_r, monkeypatch):
    monkeypatch.setenv("FAKE_R_NO_PROBCAL", "1")
    ok, why = rprobcal.status()
    assert not ok and "probcal is not installed" in why
    r, note = runner.r_contender(False)
    assert r is None and note.startswith("R probcal: skipped (") and "\n" not in note


def test_available_with_probcal(fake_r):
    exe, _log = fake_r
    assert rprobcal.status() == (True, exe)
    assert runner.r_contender(False) == (exe, f"R probcal: probcal 0.1.0 (R 4.2.2) via {exe}")


def test_time_case_writes_data_and_script_and_parses_timings(fake_r):
    exe, log = fake_r
    rs = np.random.default_rng(1)
    p = rs.dirichlet(np.ones(50), size=100)
    y = rs.integers(1, 51, 100)
    case = rprobcal.RCase("cal_dirichlet(p, y, lambda = 0.01)", {"p": p, "y": y}, {"y": 50})
    med, why = rprobcal.time_case(exe, case, reps=3)
    assert (med, why) == (0.5, None)
    script = (log / "bench.R").read_text()
    assert "library(probcal)" in script
    assert "y <- factor(y, levels = seq_len(50))" in script
    assert ".f <- function() cal_dirichlet(p, y, lambda = 0.01)" in script
    assert ".reps <- 3L" in script and f"{rprobcal.MARK} %.9g" in script
    # the reads come before the timed function: R's startup and CSV reading are not timed
    assert script.index("read.csv") < script.index(".f <- function()") < script.index("system.time")
    # every double reaches R unchanged (17 significant digits), matrices keep their shape
    assert np.array_equal(np.loadtxt(log / "p.csv", delimiter=","), p)
    assert np.array_equal(np.loadtxt(log / "y.csv", delimiter=","), y)
    assert '/p.csv", FALSE)' in script and '/y.csv", TRUE)' in script


def test_r_failure_is_reported_not_raised(fake_r, monkeypatch):
    exe, _log = fake_r
    monkeypatch.setenv("FAKE_R_FAIL", "1")
    med, why = rprobcal.time_case(exe, rprobcal.RCase("cal_platt(x, y)", {"x": np.zeros(3), "y": np.ones(3)}), 2)
    assert med is None and why.startswith("Rscript exited with 1: Error in cal_dirichlet")


def test_parse_reads_only_timing_lines():
    out = "[1] 3\nCALSTATS_BENCH 1.5\nCALSTATS_BENCH 2e-3\nCALSTATS_BENCH\nnoise CALSTATS_BENCH 9\n"
    assert rprobcal.parse(out) == [1.5, 0.002]


def test_script_without_factors_and_vectors():
    case = rprobcal.RCase('ece(p, y, type = "confidence")', {"p": np.ones((3, 2)) / 2, "y": np.array([1, 2, 1])})
    text = rprobcal.script(case, {"p": "/tmp/a/p.csv", "y": "/tmp/a/y.csv"}, reps=5)
    assert 'p <- .read("/tmp/a/p.csv", FALSE)' in text and 'y <- .read("/tmp/a/y.csv", TRUE)' in text
    assert "factor(" not in text and ".reps <- 5L" in text
    assert '.f <- function() ece(p, y, type = "confidence")' in text


def test_run_case_adds_r_row(fake_r, capsys):
    exe, _log = fake_r
    rcase = ("R probcal::cal_platt", rprobcal.RCase("cal_platt(x, y)", {"x": np.zeros(3), "y": np.ones(3)}))
    rows = runner.run_case("toy", {"calstats": lambda: sum(range(1000))}, 3, None, exe, rcase)
    assert [r[1] for r in rows] == ["calstats", "R probcal::cal_platt"]
    name, label, med, ratio, quality = rows[1]
    assert med == 0.5 and ratio == pytest.approx(0.5 / rows[0][2]) and quality is None
    # no R: no row; a failing peer is left out with a note, calstats' own failure raises
    rows = runner.run_case("toy", {"calstats": lambda: 1, "peer": lambda: 1 / 0}, 2, None, None, rcase)
    assert [r[1] for r in rows] == ["calstats"]
    assert "peer left out (ZeroDivisionError" in capsys.readouterr().err
    with pytest.raises(ZeroDivisionError):
        runner.run_case("toy", {"calstats": lambda: 1 / 0}, 1, None)


def test_dirichlet_targets_use_all_levels(monkeypatch):
    """The K = 50 cases hand calstats a Categorical with every level and R a factor."""
    seen = []
    monkeypatch.setattr(runner, "run_case", lambda name, contenders, reps, evaluate, r=None, r_case=None:
                        seen.append((name, r_case)) or [])
    monkeypatch.setattr(runner.peers, "dirichlet", lambda p, y, lam: {})
    import calstats

    calls = []
    monkeypatch.setattr(calstats, "cal_dirichlet", lambda p, y, lambda_=None: calls.append((p.shape, y, lambda_)))
    runner.dirichlet_cases(full=False)
    names = [s[0] for s in seen]
    assert "dirichlet n=100 K=50 lambda=0.01" in names and "dirichlet n=2000 K=50 lambda=0.01" in names
    assert "dirichlet n=10000 K=10 lambda=select" in names
    assert not any("K=100" in n for n in names)
    rcase = dict(seen)["dirichlet n=100 K=50 lambda=0.01"][1]
    assert rcase.call == "cal_dirichlet(p, y, lambda = 0.01)" and rcase.factors == {"y": 50}
    assert dict(seen)["dirichlet n=10000 K=10 lambda=select"][1].call == "cal_dirichlet(p, y, lambda = NULL)"
    monkeypatch.setattr(runner, "run_case", lambda name, contenders, reps, evaluate, r=None, r_case=None:
                        [contenders["calstats.cal_dirichlet"]()] and [])
    calls.clear()
    runner.dirichlet_cases(full=False)
    factor_calls = [c for c in calls if c[0] == (100, 50)]
    assert factor_calls and isinstance(factor_calls[0][1], pd.Categorical)
    assert list(factor_calls[0][1].categories) == list(range(1, 51))


def test_full_adds_k100_fixed_lambda_only(monkeypatch):
    seen = []
    monkeypatch.setattr(runner, "run_case", lambda name, *a, **k: seen.append(name) or [])
    monkeypatch.setattr(runner.peers, "dirichlet", lambda p, y, lam: {})
    monkeypatch.setattr(runner, "multiclass_case", lambda n, k: ((np.ones((2, k)) / k, np.zeros(2, int)),) * 2)
    runner.dirichlet_cases(full=True)
    assert "dirichlet n=10000 K=100 lambda=0.01" in seen
    assert "dirichlet n=10000 K=100 lambda=select" not in seen


STUB_R = """\
cal_dirichlet <- function(p, y, lambda = NULL, eps = 1e-12) {
  stopifnot(is.matrix(p), ncol(p) == 50L, nrow(p) == length(y), nlevels(y) == 50L, lambda == 0.01)
  Sys.sleep(0.002)
}
"""


@pytest.mark.skipif(shutil.which("Rscript") is None or shutil.which("R") is None, reason="needs R")
def test_real_r_runs_the_script(tmp_path, monkeypatch):
    """The generated script in real R, against a stub package named probcal (installed in a
    temporary library) whose cal_dirichlet checks what it receives."""
    src = tmp_path / "src" / "probcal"
    (src / "R").mkdir(parents=True)
    (src / "DESCRIPTION").write_text("Package: probcal\nVersion: 0.0.0.9000\nTitle: Stub\n"
                                     "Description: Stub for a test.\nLicense: MIT\nAuthor: t\nMaintainer: t <t@example.org>\n")
    (src / "NAMESPACE").write_text("export(cal_dirichlet)\n")
    (src / "R" / "stub.R").write_text(STUB_R)
    lib = tmp_path / "lib"
    lib.mkdir()
    done = subprocess.run(["R", "CMD", "INSTALL", "-l", str(lib), str(src)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("R_LIBS", str(lib))
    ok, exe = rprobcal.status()
    assert ok
    assert rprobcal.version(exe).startswith("probcal 0.0.0.9000 (R ")
    rs = np.random.default_rng(2)
    p = rs.dirichlet(np.ones(50), size=100)
    y = rs.integers(1, 40, 100)  # levels 40..50 absent: the factor must still have 50
    med, why = rprobcal.time_case(exe, rprobcal.RCase("cal_dirichlet(p, y, lambda = 0.01)", {"p": p, "y": y}, {"y": 50}), 3)
    assert why is None and 0.002 <= med < 0.5
    med, why = rprobcal.time_case(exe, rprobcal.RCase("cal_dirichlet(p, y, lambda = 0.01)", {"p": p, "y": y}), 2)
    assert med is None and why.startswith("Rscript exited with 1: Error in cal_dirichlet")
