"""Issue 12: the command line never loses what the user has, and every bad input gets one
line naming the file, column, row or option at fault, with a non-zero exit status."""

import hashlib
import os

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import cli


def _run(args, capsys):
    status = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out, out.err


def _digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def files(tmp_path):
    rs = np.random.default_rng(0)
    n = 120
    s = rs.normal(size=n)
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    paths = {}
    for name, frame in {
        "train.csv": pd.DataFrame({"y": y, "s": s}),
        "apply.csv": pd.DataFrame({"y": y, "s": s + 0.1}),
        "one.csv": pd.DataFrame({"y": [1], "p": [0.3]}),
        "oneclass.csv": pd.DataFrame({"y": [1, 1, 1], "p": [0.3, 0.5, 0.9]}),
    }.items():
        frame.to_csv(tmp_path / name, index=False)
        paths[name] = tmp_path / name
    bad = pd.DataFrame({"y": y, "p": (1 / (1 + np.exp(-s))).astype(object)})
    bad.loc[4, "p"] = "abc"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    paths["bad.csv"] = tmp_path / "bad.csv"
    P = rs.dirichlet(np.ones(3), size=n)
    wine = pd.DataFrame({"label": np.array(["class_0", "class_1", "class_2"])[P.argmax(axis=1)],
                         "p_class_0": P[:, 0], "p_class_1": P[:, 1], "p_class_2": P[:, 2]})
    wine.to_csv(tmp_path / "wine.csv", index=False)
    paths["wine.csv"] = tmp_path / "wine.csv"
    return paths


def test_calibrate_never_writes_over_the_file_being_calibrated(files, capsys):
    before = _digest(files["apply.csv"])
    status, _, err = _run(["calibrate", files["train.csv"], files["apply.csv"], "--label", "y", "-m", "temperature",
                           "-o", files["apply.csv"]], capsys)
    assert status == 1 and _digest(files["apply.csv"]) == before
    assert err.count("\n") == 1 and "it is the file being calibrated" in err
    # not even with --force
    status, _, err = _run(["calibrate", files["train.csv"], files["apply.csv"], "--label", "y", "-m", "platt",
                           "-o", files["apply.csv"], "--force"], capsys)
    assert status == 1 and _digest(files["apply.csv"]) == before


def test_calibrate_never_writes_over_the_training_file(files, capsys):
    before = _digest(files["train.csv"])
    status, _, err = _run(["calibrate", files["train.csv"], files["train.csv"], "--label", "y", "-m", "platt",
                           "-o", files["train.csv"]], capsys)
    assert status == 1 and _digest(files["train.csv"]) == before and "it is the training file" in err


def test_compare_never_writes_its_plot_over_the_data(files, capsys):
    before = _digest(files["train.csv"])
    status, _, err = _run(["compare", "--data", files["train.csv"], "--label", "y", "--plot", files["train.csv"]],
                          capsys)
    assert status == 1 and _digest(files["train.csv"]) == before and "it is the data file" in err


def test_plot_format_is_checked_before_any_work(files, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(calstats, "cal_compare", lambda *a, **k: calls.append(1))
    for name in ("plot.txt", "plot.csv"):
        status, _, err = _run(["compare", "--data", files["train.csv"], "--label", "y", "--plot",
                               files["train.csv"].parent / name], capsys)
        assert status == 1 and "is not an image format matplotlib writes" in err and ".png" in err
    assert calls == []  # nothing was fitted


def test_existing_output_needs_force_and_writes_are_atomic(files, capsys, tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("precious\n")
    status, _, err = _run(["calibrate", files["train.csv"], files["apply.csv"], "--label", "y", "-m", "platt",
                           "-o", out], capsys)
    assert status == 1 and out.read_text() == "precious\n" and "pass --force" in err
    status, _, _ = _run(["calibrate", files["train.csv"], files["apply.csv"], "--label", "y", "-m", "platt",
                         "-o", out, "--force"], capsys)
    assert status == 0 and pd.read_csv(out).shape == (120, 2)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]  # no temporary file left


def test_an_interrupted_write_leaves_the_old_file(tmp_path):
    from calstats.cli._safety import atomic_write

    target = tmp_path / "keep.csv"
    target.write_text("old\n")

    def write(tmp):
        open(tmp, "w").write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, write)
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["keep.csv"]


def test_a_non_numeric_cell_is_named_not_dropped(files, capsys):
    status, _, err = _run(["compare", "--data", files["bad.csv"], "--label", "y", "--no-plot"], capsys)
    assert status == 1 and err.count("\n") == 1
    assert "column 'p'" in err and "'abc'" in err and "data row 5" in err and "sums to" not in err


@pytest.mark.parametrize("name,msg", [("one.csv", "has 1 row"), ("oneclass.csv", "is the same class")])
def test_assess_refuses_meaningless_metrics(files, capsys, name, msg):
    status, out, err = _run(["assess", files[name], "--label", "y"], capsys)
    assert status == 1 and msg in err and out == ""


def test_parquet_without_pyarrow_fails_before_fitting(files, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError("no pyarrow")
        return real_import(name, *args, **kwargs)

    fits = []
    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    monkeypatch.setattr(calstats, "cal_platt", lambda *a, **k: fits.append(1))
    status, _, err = _run(["calibrate", files["train.csv"], files["apply.csv"], "--label", "y", "-m", "platt",
                           "-o", files["train.csv"].parent / "out.parquet"], capsys)
    assert status == 1 and "calstats[parquet]" in err and fits == []


@pytest.mark.parametrize("categories", [["no", "yes"], [0, 1]])
def test_parquet_round_trip_keeps_a_categorical_label(files, capsys, tmp_path, categories):
    pytest.importorskip("pyarrow")
    frame = pd.read_csv(files["train.csv"])
    frame["y"] = pd.Categorical(np.asarray(categories, dtype=object)[frame["y"]].tolist(), categories=categories)
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_parquet(tmp_path / "a.parquet")
    extra = ["--positive", "yes"] if categories[0] == "no" else []
    status, _, err = _run(["calibrate", tmp_path / "t.parquet", tmp_path / "a.parquet", "--label", "y", "-m", "platt",
                           "-o", tmp_path / "o.parquet", *extra], capsys)
    assert status == 0, err
    back = cli.read_table(tmp_path / "o.parquet")
    assert isinstance(back["y"].dtype, pd.CategoricalDtype)
    assert list(back["y"].cat.categories) == categories


def test_labels_match_columns_with_a_shared_word_in_the_prefix(files, capsys):
    status, out, err = _run(["compare", "--data", files["wine.csv"], "--label", "label", "--no-plot",
                             "--methods", "temperature"], capsys)
    assert status == 0, err
    status, out, err = _run(["compare", "--data", files["wine.csv"], "--label", "label", "--no-plot",
                             "--methods", "temperature", "--columns", "p_class_0", "p_class_1", "p_class_2"], capsys)
    assert status == 0, err


def test_binary_string_labels_point_to_positive(tmp_path, capsys):
    rs = np.random.default_rng(1)
    p = rs.uniform(0.05, 0.95, 80)
    lab = np.where(rs.random(80) < p, "benign", "malignant")
    pd.DataFrame({"d": lab, "score": p}).to_csv(tmp_path / "c.csv", index=False)
    status, _, err = _run(["compare", "--data", tmp_path / "c.csv", "--label", "d", "--no-plot"], capsys)
    assert status == 1 and "--positive" in err and "'benign', 'malignant'" in err
    # a column named after a level needs nothing more
    pd.DataFrame({"d": lab, "p_benign": p}).to_csv(tmp_path / "c2.csv", index=False)
    status, out, err = _run(["compare", "--data", tmp_path / "c2.csv", "--label", "d", "--no-plot",
                             "--methods", "platt"], capsys)
    assert status == 0, err


def test_unknown_options_raise_the_librarys_error():
    for call in (lambda: calstats.get_option("bogus"), lambda: calstats.set_option("bogus", 1),
                 lambda: calstats.option_context(bogus=1).__enter__()):
        with pytest.raises(calstats.CalstatsError, match="unknown option 'bogus'; known options: emoji, engine, threads"):
            call()
        with pytest.raises(KeyError):  # still a KeyError for code written against dicts
            call()


def test_the_command_line_never_evaluates_a_formula(tmp_path, capsys):
    marker = tmp_path / "pwned"
    name = f"__import__('os').system('touch {marker}')"
    pd.DataFrame({"y": [0, 1, 0, 1, 1, 0], name: [0.1, 0.8, 0.3, 0.7, 0.9, 0.2]}).to_csv(tmp_path / "f.csv",
                                                                                      index=False)
    _run(["assess", tmp_path / "f.csv", "--label", "y"], capsys)
    _run(["compare", "--data", tmp_path / "f.csv", "--label", "y", "--no-plot", "--folds", "2",
          "--methods", "platt"], capsys)
    assert not marker.exists()


def test_assess_reports_the_clinical_validation_of_binary_files(tmp_path, capsys):
    rs = np.random.default_rng(2)
    p = rs.uniform(0.05, 0.95, 150)
    pd.DataFrame({"y": (rs.random(150) < p).astype(int), "p": p}).to_csv(tmp_path / "b.csv", index=False)
    status, out, err = _run(["assess", tmp_path / "b.csv", "--label", "y"], capsys)
    assert status == 0, err
    assert "Validation (rms::val.prob)" in out and "C (ROC)" in out
    assert "Calibration slope" in out and "Hosmer and Lemeshow goodness of fit (GOF) test" in out


def test_weights_column_reaches_every_command(tmp_path, capsys):
    rs = np.random.default_rng(3)
    p = rs.uniform(0.05, 0.95, 150)
    y = (rs.random(150) < p).astype(int)
    w = rs.integers(0, 4, 150)
    pd.DataFrame({"y": y, "p": p, "w": w}).to_csv(tmp_path / "w.csv", index=False)
    status, out, err = _run(["assess", tmp_path / "w.csv", "--label", "y", "--columns", "p", "--weights", "w"], capsys)
    assert status == 0, err
    ece_line = next(line for line in out.splitlines() if line.startswith("ECE"))
    assert f"{calstats.ece(p, y, weights=w):.4f}" in ece_line
    status, out, err = _run(["compare", "--data", tmp_path / "w.csv", "--label", "y", "--columns", "p",
                             "--weights", "w", "--no-plot", "--methods", "platt"], capsys)
    assert status == 0 and "weighted" in out, err
    status, out, err = _run(["calibrate", tmp_path / "w.csv", tmp_path / "w.csv", "--label", "y", "--columns", "p",
                             "--weights", "w", "-m", "platt", "-o", tmp_path / "o.csv"], capsys)
    assert status == 0, err
    ref = calstats.cal_platt(p, y, weights=w).predict(p)
    np.testing.assert_allclose(pd.read_csv(tmp_path / "o.csv")["p"], ref, rtol=1e-12)
    bad = pd.DataFrame({"y": y, "p": p, "w": w.astype(float)})
    bad.loc[3, "w"] = -1.0
    bad.to_csv(tmp_path / "bad.csv", index=False)
    status, _, err = _run(["assess", tmp_path / "bad.csv", "--label", "y", "--columns", "p", "--weights", "w"], capsys)
    assert status == 1 and "data row 4" in err and "non-negative" in err


def test_the_engine_option_takes_r_or_fast():
    assert calstats.get_option("engine") == "r"
    with calstats.option_context(engine="fast"):
        assert calstats.get_option("engine") == "fast"
    assert calstats.get_option("engine") == "r"
    for call in (lambda: calstats.set_option("engine", "numpy"),
                 lambda: calstats.option_context(engine="numpy").__enter__()):
        with pytest.raises(calstats.CalstatsError, match="option 'engine' must be one of 'r', 'fast', not 'numpy'"):
            call()
    assert calstats.get_option("engine") == "r"
