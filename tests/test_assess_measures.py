"""The new measures where users look for them: the smooth reliability diagram, the ECE
columns of cal_compare under other bins, and `calstats assess --strategy/--right/--interval`
(in memory and on Dask)."""

import numpy as np
import pandas as pd
import pytest

import calstats as cs
from calstats import CalstatsError
from calstats.cli import main
from calstats.datasets import load_digits_binary


def _problem(n=400, seed=1):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p ** 1.3).astype(np.int64)


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------------------
# reliability_diagram(method="smooth")


def test_smooth_diagram_is_the_smooth_curve():
    p, y = _problem()
    d = cs.reliability_diagram(p, y, method="smooth")
    c = cs.smooth_curve(p, y)
    f = d.as_frame()
    np.testing.assert_array_equal(f["t"], c.t)
    np.testing.assert_array_equal(f["observed"], c.mu)
    np.testing.assert_array_equal(f["density"], c.density)
    assert d.subtitle == "smECE = %.4f" % cs.smece(p, y)
    assert "bandwidth" in str(d)
    # the bins are still the ECE's
    pd.testing.assert_frame_equal(d.data, cs.reliability_diagram(p, y).data)


def test_smooth_diagram_per_class_and_top_label():
    rng = np.random.default_rng(4)
    P = rng.dirichlet([1, 1, 1], size=300)
    Y = rng.integers(1, 4, size=300)
    wise = cs.reliability_diagram(P, Y, method="smooth")
    per = [cs.smece(P[:, j], (Y == j + 1).astype(int)) for j in range(3)]
    assert wise.subtitle == "Classwise smECE = %.4f" % np.mean(per)
    assert wise.as_frame()["class_label"].cat.categories.size == 3
    conf = cs.reliability_diagram(P, Y, method="smooth", type="confidence")
    assert conf.subtitle == "smECE = %.4f" % cs.smece(P, Y)


def test_smooth_diagram_draws():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    p, y = _problem()
    fig = cs.reliability_diagram(p, y, method="smooth").plot()
    assert fig.axes[0].lines  # the curve
    assert fig.axes[0].collections  # the density


def test_smooth_diagram_messages():
    p, y = _problem()
    with pytest.raises(CalstatsError, match="should be one of"):
        cs.reliability_diagram(p, y, method="kernel")
    da = pytest.importorskip("dask.array")
    with pytest.raises(CalstatsError, match="The smooth ECE searches its bandwidth"):
        cs.reliability_diagram(da.from_array(p, chunks=100), da.from_array(y, chunks=100), method="smooth")


# --------------------------------------------------------------------------------------
# cal_compare(binning=)


def test_cal_compare_binning():
    rs = np.random.default_rng(0)
    p = rs.uniform(0.02, 0.98, 300)
    y = (rs.uniform(size=300) < p ** 1.5).astype(int)
    plain = cs.cal_compare(p, y, methods=["platt"])
    cmp = cs.cal_compare(p, y, methods=["platt"], binning={"strategy": "quantile", "bins": 15})
    P = np.column_stack([1 - p, p])
    assert cmp.table.loc["uncalibrated", "confidence_ece"] == cs.ece(P, y + 1, 15, type="confidence",
                                                                     strategy="quantile")
    assert cmp.table.loc["uncalibrated", "classwise_ece"] == cs.ece(P, y + 1, 15, strategy="quantile")
    pd.testing.assert_series_equal(cmp.table["brier"], plain.table["brier"])
    assert "The ECE columns use strategy = 'quantile', bins = 15." in str(cmp)
    with pytest.raises(CalstatsError, match="Argument `binning` must be a dict of ece's binning arguments"):
        cs.cal_compare(p, y, methods=["platt"], binning={"strat": "quantile"})
    with pytest.raises(CalstatsError, match="should be one of"):
        cs.cal_compare(p, y, methods=["platt"], binning={"strategy": "equal"})


# --------------------------------------------------------------------------------------
# calstats assess


@pytest.fixture(scope="module")
def binary_csv(tmp_path_factory):
    b = load_digits_binary().iloc[:600]
    f = tmp_path_factory.mktemp("assess") / "b.csv"
    b[["label", "p"]].to_csv(f, index=False)
    return f, b["p"].to_numpy(), b["label"].to_numpy()


def test_assess_quantile_bins_and_intervals(capsys, binary_csv):
    f, p, y = binary_csv
    status, out, err = _run(capsys, "assess", f, "--label", "label", "--strategy", "quantile", "--interval",
                            "wilson", "--bins", "sqrt", "--right")
    assert status == 0, err
    assert "Calibration metrics (sqrt-rule equal-mass (quantile) bins, right-closed;" in out
    assert f"{cs.ece(p, y, 'sqrt', strategy='quantile', right=True):.4f}" in out
    assert "wilson 95% intervals (pointwise)" in out
    frame = cs.reliability_diagram(p, y, "sqrt", strategy="quantile", right=True, interval="wilson").as_frame()
    assert f"{frame['upper'].iloc[0]:.4f}" in out
    assert f"Smooth ECE: {cs.smece(p, y):.4f}" in out
    dec = cs.corp(p, y, band=None).decomposition()
    assert f"MCB {dec.miscalibration:.4f}" in out


def test_assess_bins_option_is_checked(capsys, binary_csv):
    f, _p, _y = binary_csv
    status, _out, err = _run(capsys, "assess", f, "--label", "label", "--bins", "rice")
    assert status == 2 and "expected a number of bins or sqrt, sturges, cube_root" in err
    status, _out, err = _run(capsys, "assess", f, "--label", "label", "--interval", "wilson", "--level", "2")
    assert status == 1 and "Argument `level` must be a single number in `(0, 1)`." in err


def test_assess_on_dask_gives_the_same_bins(capsys, tmp_path):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    d = cs.datasets.load_digits_probs("naive_bayes")
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, (a, b) in enumerate([(0, 900), (900, 1797)]):
        d.iloc[a:b].to_parquet(folder / f"part{i}.parquet", index=False)
    csv = tmp_path / "digits.csv"
    d.to_csv(csv, index=False)
    argv = ("--label", "label", "--strategy", "quantile", "--interval", "jeffreys")
    status, mem, err = _run(capsys, "assess", csv, *argv)
    assert status == 0, err
    status, got, err = _run(capsys, "assess", folder, *argv, "--workers", "1")
    assert status == 0, err
    rows = ("ECE", "MCE", "ACE")
    assert [ln.split() for ln in mem.splitlines() if ln.startswith(rows)] == \
        [ln.split() for ln in got.splitlines() if ln.startswith(rows)]
    table = mem[mem.index("Reliability diagram bins"):].split("\n\n")[0]
    assert table in got


# --------------------------------------------------------------------------------------
# assess: pmcalibration's indices and logistic calibration for binary files


def test_assess_prints_ici_with_interval_and_logistic_cal(tmp_path, capsys):
    from calstats.clinical import logistic_cal, pmcalibration

    p, y = _problem(n=300, seed=5)
    p = np.clip(p, 0.01, 0.99)
    path = tmp_path / "preds.csv"
    pd.DataFrame({"y": y, "p": p}).to_csv(path, index=False)
    status, out, _ = _run(capsys, "assess", path, "--label", "y", "--seed", 9)
    assert status == 0
    cal = pmcalibration(y, pd.read_csv(path)["p"].to_numpy(), smooth="gam", ci="sim", n=1000, seed=9)
    block = out.split("Flexible calibration curve (pmcalibration: gam of logit(p); ICI = Eavg)\n")[1]
    assert block.startswith(cal.print_text(digits=3).rstrip("\n"))
    assert "(simulation seed 9, R's random stream)" in block
    assert logistic_cal(y, pd.read_csv(path)["p"].to_numpy()).print_text(digits=3).rstrip("\n") in block


def test_assess_notes_removed_rows(tmp_path, capsys):
    p, y = _problem(n=200, seed=6)
    p[:3] = [0.0, 1.0, 0.0]
    path = tmp_path / "preds.csv"
    pd.DataFrame({"y": y, "p": p}).to_csv(path, index=False)
    _, out, _ = _run(capsys, "assess", path, "--label", "y")
    assert "note: 3 records with p <= 0 or p >= 1 were removed." in out
