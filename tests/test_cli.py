"""The ``calstats`` command (calstats/cli.py): compare, calibrate, assess and their errors."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import cli
from calstats.datasets import load_digits_binary, load_digits_probs


class _FakeCompare:
    """Stand-in for calstats.cal_compare's result: only the documented ``.table``."""

    def __init__(self, table):
        self.table = table


def _fake_cal_compare(calls):
    def fake(x, y, methods=None, folds=5, seed=1, **kwargs):
        calls.append({"x": x, "y": y, "methods": methods, "folds": folds, "seed": seed, **kwargs})
        names = ["uncalibrated", *(methods or ["temperature", "dirichlet"])]
        table = pd.DataFrame({"log_loss": np.linspace(1.0, 0.5, len(names)),
                              "confidence_ece": np.linspace(0.2, 0.01, len(names))},
                             index=pd.Index(names, name="method"))
        return _FakeCompare(table)

    return fake


@pytest.fixture
def fake_compare(monkeypatch):
    calls = []
    monkeypatch.setattr(calstats, "cal_compare", _fake_cal_compare(calls), raising=False)
    return calls


@pytest.fixture
def small_multiclass(tmp_path):
    """300 digits (naive Bayes), written as CSV: train (200 rows) and new (100 rows)."""
    d = load_digits_probs().iloc[:300].copy()
    d["label"] = d["label"].astype(int)
    train, new = tmp_path / "train.csv", tmp_path / "new.csv"
    d.iloc[:200].to_csv(train, index=False)
    d.iloc[200:].to_csv(new, index=False)
    return train, new


def _run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _assert_one_line_error(status, err, fragment):
    assert status != 0
    lines = [ln for ln in err.splitlines() if ln.startswith("calstats: error:")]
    assert len(lines) == 1, err
    assert fragment in lines[0]
    assert "Traceback" not in err


# ------------------------------------------------------------------------------------
# compare


def test_compare_bundled_with_stand_in(fake_compare, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(capsys, "compare")
    assert status == 0, err
    assert "uncalibrated" in out and "dirichlet" in out
    assert out.index("uncalibrated") < out.index("temperature")
    assert (tmp_path / "reliability.png").stat().st_size > 1000
    assert str(tmp_path / "reliability.png") in out  # says where the plot went
    assert "cross-validating" in err  # progress on stderr
    call = fake_compare[0]
    assert call["x"].shape == (1797, 10) and call["folds"] == 5 and call["seed"] == 1
    assert list(pd.Categorical(call["y"]).categories) == list(range(10))


def test_compare_file_options(fake_compare, capsys, small_multiclass, tmp_path):
    train, _ = small_multiclass
    png = tmp_path / "r.png"
    status, out, err = _run(capsys, "compare", "--data", train, "--label", "label", "--methods", "temperature",
                            "--folds", 3, "--seed", 7, "--plot", png)
    assert status == 0, err
    call = fake_compare[0]
    assert call["methods"] == ["temperature"] and call["folds"] == 3 and call["seed"] == 7
    # labels matched to the columns p_0..p_9 by name
    assert list(pd.Categorical(call["y"]).categories) == [str(d) for d in range(10)]
    assert png.exists()


def test_compare_no_plot_binary(fake_compare, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = _run(capsys, "compare", "--dataset", "digits-3", "--no-plot", "--methods", "platt")
    assert status == 0
    assert not (tmp_path / "reliability.png").exists()
    assert fake_compare[0]["x"].ndim == 1


def test_compare_real_module_binary(capsys, tmp_path):
    """The real cal_compare (when present) on the bundled binary data."""
    pytest.importorskip("calstats.evaluation.compare")
    png = tmp_path / "b.png"
    status, out, err = _run(capsys, "compare", "--dataset", "digits-3", "--methods", "platt", "isotonic",
                            "--plot", png)
    assert status == 0, err
    assert "uncalibrated" in out and "platt" in out and "isotonic" in out
    assert png.stat().st_size > 1000


# ------------------------------------------------------------------------------------
# calibrate


def test_calibrate_multiclass(capsys, small_multiclass, tmp_path):
    train, new = small_multiclass
    out_csv = tmp_path / "out.csv"
    status, out, err = _run(capsys, "calibrate", train, new, "--label", "label", "-m", "temperature",
                            "-o", out_csv)
    assert status == 0, err
    res = pd.read_csv(out_csv)
    src = pd.read_csv(new)
    assert list(res.columns) == list(src.columns) and len(res) == len(src)
    P = res.filter(like="p_").to_numpy()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert (res["label"] == src["label"]).all()
    # the numbers are calstats' own
    d = pd.read_csv(train)
    fit = calstats.cal_temperature(np.log(np.clip(d.filter(like="p_").to_numpy(), 1e-15, 1)),
                                   pd.Categorical(d["label"].astype(str), categories=[str(i) for i in range(10)]))
    expect = fit.predict(np.log(np.clip(src.filter(like="p_").to_numpy(), 1e-15, 1))).to_numpy()
    np.testing.assert_allclose(P, expect, rtol=1e-12, atol=1e-15)
    assert "temperature scaling" in out and str(out_csv) in out


def test_calibrate_binary_to_stdout(capsys, tmp_path):
    b = load_digits_binary().iloc[:400]
    f = tmp_path / "b.csv"
    b.to_csv(f, index=False)
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "label", "--columns", "p", "-m", "histogram",
                            "--bins", 5)
    assert status == 0, err
    res = pd.read_csv(pd.io.common.StringIO(out))
    fit = calstats.cal_histogram(b["p"].to_numpy(), b["label"].to_numpy(), bins=5)
    np.testing.assert_array_equal(res["p"].to_numpy(), fit.predict(b["p"].to_numpy()))
    assert "histogram binning" in err  # the summary goes to stderr when the data go to stdout


def test_calibrate_parquet_without_pyarrow(capsys, small_multiclass, tmp_path, monkeypatch):
    train, new = small_multiclass

    def no_pyarrow(*a, **k):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", no_pyarrow)
    monkeypatch.setattr(pd, "read_parquet", no_pyarrow)
    status, _, err = _run(capsys, "calibrate", train, new, "--label", "label", "-m", "temperature",
                          "-o", tmp_path / "x.parquet")
    _assert_one_line_error(status, err, "needs pyarrow")
    (tmp_path / "y.parquet").write_bytes(b"PAR1")
    status, _, err = _run(capsys, "assess", tmp_path / "y.parquet", "--label", "label")
    _assert_one_line_error(status, err, "needs pyarrow")


# ------------------------------------------------------------------------------------
# assess


def test_assess_multiclass(capsys, small_multiclass):
    train, _ = small_multiclass
    status, out, err = _run(capsys, "assess", train, "--label", "label", "--bootstrap", 20)
    assert status == 0, err
    d = pd.read_csv(train)
    P = d.filter(like="p_").to_numpy()
    y = d["label"].to_numpy() + 1
    assert f"{calstats.ece(P, y):.4f}" in out
    assert f"{calstats.ece(P, y, type='confidence'):.4f}" in out
    assert f"{calstats.mmce(P, y):.4f}" in out
    assert "ECE 97.5%" in out and "bootstrapping" in err
    try:
        calstats.cal_spiegelhalter_test  # noqa: B018
    except (AttributeError, ImportError):
        assert "not available" in out
    else:
        assert "Spiegelhalter" in out


def test_assess_binary_positive(capsys, tmp_path):
    b = load_digits_binary().iloc[:300].copy()
    b["answer"] = np.where(b["label"] == 1, "three", "other")
    f = tmp_path / "b.csv"
    b[["answer", "p"]].to_csv(f, index=False)
    status, out, err = _run(capsys, "assess", f, "--label", "answer", "--positive", "three")
    assert status == 0, err
    assert f"{calstats.ece(b['p'].to_numpy(), b['label'].to_numpy()):.4f}" in out


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    assert "compare" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert calstats.__version__ in capsys.readouterr().out


# ------------------------------------------------------------------------------------
# errors: one line, non-zero status, no traceback


def test_error_missing_file(capsys, tmp_path):
    status, _, err = _run(capsys, "assess", tmp_path / "nope.csv", "--label", "y")
    _assert_one_line_error(status, err, "no such file")


def test_error_not_a_csv(capsys, tmp_path):
    f = tmp_path / "junk.csv"
    f.write_bytes(b"\x00\xff\xfe\x01junk\n\x02,\x03,\x04\n")
    status, _, err = _run(capsys, "assess", f, "--label", "y")
    _assert_one_line_error(status, err, "cannot read")


def test_error_empty_file(capsys, tmp_path):
    f = tmp_path / "empty.csv"
    f.write_text("")
    status, _, err = _run(capsys, "assess", f, "--label", "y")
    _assert_one_line_error(status, err, "empty")


def test_error_missing_label_column(capsys, small_multiclass):
    train, _ = small_multiclass
    status, _, err = _run(capsys, "assess", train, "--label", "truth")
    _assert_one_line_error(status, err, "label column 'truth' not found")


def test_error_missing_prediction_column(capsys, small_multiclass):
    train, _ = small_multiclass
    status, _, err = _run(capsys, "assess", train, "--label", "label", "--columns", "p_0", "p_x")
    _assert_one_line_error(status, err, "'p_x' not found")


def test_error_apply_file_lacks_columns(capsys, small_multiclass, tmp_path):
    train, new = small_multiclass
    other = tmp_path / "other.csv"
    pd.read_csv(new).drop(columns="p_9").to_csv(other, index=False)
    status, _, err = _run(capsys, "calibrate", train, other, "--label", "label", "-m", "dirichlet")
    _assert_one_line_error(status, err, "'p_9'")


def test_error_bad_method(capsys, small_multiclass):
    train, new = small_multiclass
    status, _, err = _run(capsys, "calibrate", train, new, "--label", "label", "-m", "bogus")
    _assert_one_line_error(status, err, "invalid choice: 'bogus'")
    assert status == 2
    status, _, err = _run(capsys, "calibrate", train, new, "--label", "label", "-m", "platt")
    _assert_one_line_error(status, err, "does not apply to multiclass")


def test_error_bad_method_compare(capsys, fake_compare):
    status, _, err = _run(capsys, "compare", "--methods", "platt")
    _assert_one_line_error(status, err, "method 'platt' does not apply to multiclass (several prediction columns) "
                                        "data; choose one of ")  # calibrate's words (compare said "choose from")
    assert status == 2 and not fake_compare


@pytest.mark.parametrize("call,text,status", [
    # said by the in-memory reader and by --dask
    (lambda v: v.fail_cli_no_file("d.csv"), "cannot read 'd.csv': no such file", 1),
    (lambda v: v.fail_cli_read_parquet_needs_pyarrow("d.parquet"),
     "cannot read 'd.parquet': reading Parquet needs pyarrow (pip install 'calstats[parquet]'), or save the data "
     "as CSV", 1),
    (lambda v: v.fail_cli_label_missing("y", 3), "the label column 'y' has 3 missing values", 1),
    (lambda v: v.fail_cli_label_missing("y", 1, 4),
     "the label column 'y' has 1 missing value (the first in data row 5, line 6 of a CSV file)", 1),
    (lambda v: v.fail_cli_too_few_rows("'d.csv'", 1),
     "'d.csv' has 1 row; calibration metrics need at least 2 rows (and both outcomes)", 1),
    (lambda v: v.fail_cli_too_few_rows("'d.csv'", 0),
     "'d.csv' has 0 rows; calibration metrics need at least 2 rows (and both outcomes)", 1),
    (lambda v: v.fail_cli_one_class("'d.csv'"),
     "every label in 'd.csv' is the same class; calibration metrics need rows of at least two classes", 1),
    (lambda v: v.fail_cli_one_class("'d.csv'", "1"),
     "every label in 'd.csv' is the same class ('1'); calibration metrics need rows of at least two classes", 1),
    (lambda v: v.fail_cli_data_needs_label(),
     "--data needs --label (the name of the column holding the true classes)", 2),
    (lambda v: v.fail_cli_at_least("workers", 1), "--workers must be at least 1", 2),
    # compare and calibrate
    (lambda v: v.fail_cli_method("platt", False, ["dirichlet", "ovr"]),
     "method 'platt' does not apply to multiclass (several prediction columns) data; choose one of dirichlet, ovr",
     2),
    # a table, a plot and a report that cannot be written: the system's reason, its first line
    (lambda v: v.fail_cli_cannot_write("o.csv", OSError(13, "Permission denied")),
     "cannot write 'o.csv': Permission denied", 1),
    (lambda v: v.fail_cli_cannot_write("o.html", OSError("disk full\nmore")), "cannot write 'o.html': disk full", 1),
])
def test_a_message_said_in_several_places_has_one_wording(call, text, status):
    """The texts several commands (or the in-memory and Dask paths) share come from one
    validator of calstats._validate.cli, with their exit status."""
    from calstats import _validate
    from calstats._errors import CommandError

    assert cli.CliError is CommandError  # every `except CliError` catches the validators' error
    with pytest.raises(cli.CliError) as err:
        call(_validate)
    assert str(err.value) == text and err.value.status == status


def test_error_invalid_option(capsys):
    status, _, err = _run(capsys, "compare", "--folds", "many")
    _assert_one_line_error(status, err, "--folds")
    assert status == 2
    status, _, err = _run(capsys, "compare", "--folds", "1")
    _assert_one_line_error(status, err, "--folds must be at least 2")
    status, _, err = _run(capsys, "frobnicate")
    _assert_one_line_error(status, err, "invalid choice")


@pytest.mark.parametrize("command", ["assess", "compare", "calibrate"])
def test_error_rows_not_summing_to_one(capsys, small_multiclass, tmp_path, command, fake_compare):
    train, new = small_multiclass
    bad = tmp_path / "bad.csv"
    d = pd.read_csv(train)
    d.loc[4, "p_0"] += 0.05
    d.to_csv(bad, index=False)
    argv = {"assess": ["assess", bad, "--label", "label"],
            "compare": ["compare", "--data", bad, "--label", "label"],
            "calibrate": ["calibrate", bad, new, "--label", "label", "-m", "dirichlet"]}[command]
    status, _, err = _run(capsys, *argv)
    _assert_one_line_error(status, err, "row 5 sums to 1.05")
    assert not fake_compare


def test_error_calstats_message_passed_through(capsys, tmp_path):
    """A CalstatsError (R's message) becomes the one-line error."""
    f = tmp_path / "b.csv"
    pd.DataFrame({"y": [0, 1, 2, 1], "p": [0.1, 0.8, 0.3, 0.6]}).to_csv(f, index=False)
    status, _, err = _run(capsys, "assess", f, "--label", "y")
    _assert_one_line_error(status, err, "Argument `y` must contain only binary labels `0` and `1`.")


def test_error_scores_for_assess(capsys, tmp_path):
    f = tmp_path / "s.csv"
    pd.DataFrame({"y": [0, 1, 0, 1], "s": [-2.0, 1.5, 0.3, 2.2]}).to_csv(f, index=False)
    status, _, err = _run(capsys, "assess", f, "--label", "y")
    _assert_one_line_error(status, err, "outside [0, 1]")


def test_error_labels_not_matching_columns(capsys, tmp_path):
    f = tmp_path / "m.csv"
    pd.DataFrame({"y": ["cat", "dog", "emu"], "p_a": [0.2, 0.3, 0.5], "p_b": [0.3, 0.3, 0.4],
                  "p_c": [0.5, 0.4, 0.1]}).to_csv(f, index=False)
    status, _, err = _run(capsys, "assess", f, "--label", "y")
    _assert_one_line_error(status, err, "do not match the prediction columns")


# ------------------------------------------------------------------------------------
# the representation of the prediction columns: guessed, said, and refused when neither


def _notes(err):
    return [ln for ln in err.splitlines() if ln.startswith("calstats: note: --input")]


@pytest.fixture
def spoiled(tmp_path):
    """The outside fuzz case: three probability columns, the second multiplied by 1.5 (no
    negative value, some above 1, rows summing to 1.0-1.5)."""
    rng = np.random.default_rng(3)
    P = rng.dirichlet([2.0, 2.0, 2.0], 150)
    y = np.array([rng.choice(3, p=row) for row in P]) + 1
    good = pd.DataFrame(P, columns=["p1", "p2", "p3"]).assign(y=y)
    bad = good.assign(p2=good["p2"] * 1.5)
    assert (bad["p2"] > 1).any() and not (bad[["p1", "p2", "p3"]] < 0).any().any()
    paths = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.to_csv(paths[0], index=False)
    bad.to_csv(paths[1], index=False)
    return paths


@pytest.mark.parametrize("command", ["calibrate", "compare"])
def test_spoiled_probabilities_are_refused(capsys, spoiled, tmp_path, command, fake_compare):
    _, bad = spoiled
    out_csv = tmp_path / "out.csv"
    argv = {"calibrate": ["calibrate", bad, bad, "--label", "y", "-m", "temperature", "-o", out_csv],
            "compare": ["compare", "--data", bad, "--label", "y", "--no-plot"]}[command]
    status, out, err = _run(capsys, *argv)
    assert status == 1
    assert err.count("\n") == 1 and err.startswith("calstats: error: column 'p2' of ")
    assert "no prediction column has a negative value" in err and "--input logits" in err
    assert "Traceback" not in err and out == ""
    assert not out_csv.exists() and not fake_compare


def test_spoiled_probabilities_read_as_logits_on_request(capsys, spoiled, tmp_path):
    _, bad = spoiled
    out_csv = tmp_path / "out.csv"
    status, _, err = _run(capsys, "calibrate", bad, bad, "--label", "y", "-m", "temperature", "-o", out_csv,
                          "--input", "logits")
    assert status == 0, err
    assert not _notes(err)
    d = pd.read_csv(bad)
    fit = calstats.cal_temperature(d[["p1", "p2", "p3"]].to_numpy(), d["y"].to_numpy())
    np.testing.assert_allclose(pd.read_csv(out_csv)[["p1", "p2", "p3"]].to_numpy(),
                               np.asarray(fit.predict(d[["p1", "p2", "p3"]].to_numpy())), rtol=1e-12)


def test_binary_column_above_one_without_negatives(capsys, tmp_path):
    """Percentages in a binary file: refused by the same rule, forced with --input logits."""
    f = tmp_path / "pct.csv"
    b = load_digits_binary().iloc[:300]
    pd.DataFrame({"y": b["label"], "pct": 100 * b["p"]}).to_csv(f, index=False)
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "y", "-m", "platt")
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("calstats: error: column 'pct' of ")
    assert "no negative value" in err and "--input logits" in err
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "y", "-m", "platt", "--input", "logits")
    assert status == 0, err
    assert not _notes(err) and len(pd.read_csv(pd.io.common.StringIO(out))) == 300


def test_guessed_probabilities_are_said_on_stderr(capsys, spoiled, tmp_path):
    good, _ = spoiled
    out_csv = tmp_path / "out.csv"
    status, out, err = _run(capsys, "calibrate", good, good, "--label", "y", "-m", "dirichlet", "-o", out_csv)
    assert status == 0, err
    assert _notes(err) == ["calstats: note: --input not given; reading columns p1, p2, p3 as probabilities"]
    assert "--input" not in out
    # the same run with the reading given: the same output, no note
    out_csv2 = tmp_path / "out2.csv"
    status, out2, err = _run(capsys, "calibrate", good, good, "--label", "y", "-m", "dirichlet", "-o", out_csv2,
                             "--input", "probabilities")
    assert status == 0, err
    assert not _notes(err) and "--input" not in err
    assert out2.replace(str(out_csv2), "") == out.replace(str(out_csv), "")
    pd.testing.assert_frame_equal(pd.read_csv(out_csv), pd.read_csv(out_csv2))


def test_guessed_logits_are_said_and_used(capsys, tmp_path):
    """Genuine scores (both signs) are still logits: the guess, the note, the same fit as
    --input logits."""
    rng = np.random.default_rng(5)
    Z = rng.normal(0.0, 2.0, size=(200, 3))
    y = Z.argmax(axis=1) + 1
    f = tmp_path / "scores.csv"
    pd.DataFrame(Z, columns=["s_a", "s_b", "s_c"]).assign(y=y).to_csv(f, index=False)
    status, out, err = _run(capsys, "calibrate", f, f, "--label", "y", "-m", "temperature")
    assert status == 0, err
    assert _notes(err) == ["calstats: note: --input not given; reading columns s_a, s_b, s_c as logits"]
    status, forced, err = _run(capsys, "calibrate", f, f, "--label", "y", "-m", "temperature", "--input", "logits")
    assert status == 0, err
    assert not _notes(err) and forced == out
    Zs = pd.read_csv(f)[["s_a", "s_b", "s_c"]].to_numpy()
    expect = np.asarray(calstats.cal_temperature(Zs, y).predict(Zs))
    np.testing.assert_allclose(pd.read_csv(pd.io.common.StringIO(out))[["s_a", "s_b", "s_c"]].to_numpy(), expect,
                               rtol=1e-12)


def test_compare_says_and_passes_on_its_reading(capsys, fake_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = _run(capsys, "compare", "--dataset", "digits-svm", "--no-plot")
    assert status == 0, err
    # ten columns: the list is cut short
    assert _notes(err) == ["calstats: note: --input not given; reading columns s_0, s_1, s_2, s_3, s_4, s_5, "
                           "... (10 in all) as logits"]
    assert fake_compare[-1]["input"] == "logits"
    status, _, err = _run(capsys, "compare", "--dataset", "digits-3", "--no-plot", "--methods", "platt")
    assert status == 0, err
    assert _notes(err) == ["calstats: note: --input not given; reading column 'p' as probabilities"]
    assert fake_compare[-1]["input"] == "probabilities"
    status, _, err = _run(capsys, "compare", "--dataset", "digits-3", "--no-plot", "--methods", "platt",
                          "--input", "logits")
    assert status == 0, err
    assert not _notes(err) and fake_compare[-1]["input"] == "logits"


def test_assess_reads_probabilities_without_a_note(capsys, small_multiclass):
    """assess has no --input and reads probabilities only: nothing is guessed, nothing said."""
    train, _ = small_multiclass
    status, _, err = _run(capsys, "assess", train, "--label", "label")
    assert status == 0, err
    assert not _notes(err)


# ------------------------------------------------------------------------------------
# the installed console script


def test_console_script_smoke(tmp_path):
    exe = Path(sys.executable).parent / "calstats"
    cmd = [str(exe)] if exe.exists() else shutil.which("calstats")
    if cmd is None:
        cmd = [sys.executable, "-c", "import sys; from calstats.cli import main; sys.exit(main())"]
    elif isinstance(cmd, str):
        cmd = [cmd]
    env = dict(os.environ, MPLBACKEND="Agg")
    ok = subprocess.run([*cmd, "assess", "--dataset", "digits-3"], capture_output=True, text=True,
                        cwd=tmp_path, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "ECE" in ok.stdout
    bad = subprocess.run([*cmd, "assess", "missing.csv", "--label", "y"], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=120)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "calstats: error: cannot read 'missing.csv': no such file"
