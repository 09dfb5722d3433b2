"""reliability_diagram against R (tests/fixtures/diagnostics.json, errors.json) and its drawing."""

import math
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

import calstats
from _rcases import EXACT_PLATFORM, arr, case_ids, load_cases, run_call
from calstats.evaluation.diagnostics import ReliabilityDiagram

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CASES = load_cases("diagnostics")
EXTENDED = EXACT_PLATFORM
LABELS = ("title", "subtitle", "x_label", "y_label")


@pytest.fixture(scope="module")
def diagrams():
    return {c["id"]: run_call(c, calstats)[0]["plot"] for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_data_and_labels_match_r(case, diagrams):
    d, out = diagrams[case["id"]], case["outputs"]
    assert isinstance(d, ReliabilityDiagram)
    for key in LABELS:
        assert getattr(d, key) == out[key], key
    assert len(d.data) == out["n_rows"]
    expected = out["data"]
    assert list(d.data.columns) == list(expected)
    for col in ("bin", "n"):
        assert d.data[col].dtype == np.int64
        assert d.data[col].tolist() == expected[col]
    for col in ("lower", "upper"):
        assert d.data[col].tolist() == expected[col]  # breaks are exact
    for col in ("confidence", "accuracy", "gap"):
        np.testing.assert_allclose(d.data[col].to_numpy(), arr(expected[col]), rtol=1e-13, atol=1e-15)
    if "class_label" in expected:
        lab = d.data["class_label"]
        assert isinstance(lab.dtype, pd.CategoricalDtype)
        assert list(lab.cat.categories) == expected["class_label"]["levels"]
        assert lab.astype(str).tolist() == expected["class_label"]["values"]


@pytest.mark.skipif(not EXTENDED, reason="bit-exactness needs R's 80-bit long double accumulators")
@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_data_bit_identical_to_r(case, diagrams):
    d, expected = diagrams[case["id"]], case["outputs"]["data"]
    for col in ("confidence", "accuracy", "gap"):
        assert np.array_equal(d.data[col].to_numpy(), arr(expected[col])), col


def test_fields_of_each_layout(diagrams):
    binary = diagrams["reliability_binary_default"]
    assert binary.names() == ["data", "title", "subtitle", "x_label", "y_label", "size_label", "show_counts",
                              "layout", "reference_line", "limits"]
    assert binary.layout == "binary" and binary.show_counts is True and binary.size_label == "Count"
    assert binary.reference_line == (1, 0, "dotted") and binary.limits == (0, 1)
    assert binary["data"] is binary.data
    with pytest.raises(KeyError):
        binary["ggplot"]
    plain = diagrams["reliability_binary_no_ece_no_counts"]
    assert plain.subtitle is None and plain.size_label is None and plain.show_counts is False
    assert diagrams["reliability_multiclass_confidence"].layout == "confidence"
    assert "class_label" not in diagrams["reliability_multiclass_confidence"].data
    assert diagrams["reliability_multiclass_classwise"].layout == "classwise"


def test_subtitle_is_the_ece():
    rs = np.random.default_rng(2)
    p = rs.random(90)
    y = (rs.random(90) < p).astype(int)
    d = calstats.reliability_diagram(p, y, bins=6)
    assert d.subtitle == "ECE = %.4f" % calstats.ece(p, y, bins=6)
    pm = rs.dirichlet([1, 1, 1], size=90)
    codes = rs.integers(1, 4, size=90)
    assert calstats.reliability_diagram(pm, codes).subtitle == "Classwise ECE = %.4f" % calstats.ece(pm, codes)
    conf = calstats.reliability_diagram(pm, codes, type="conf")
    assert conf.subtitle == "ECE = %.4f" % calstats.ece(pm, codes, type="confidence")


@pytest.mark.parametrize("flag,expected", [(True, True), (np.True_, True), (np.array([True]), True),
                                           (1, False), ("yes", False), (None, False), (False, False),
                                           (np.array([True, True]), False),
                                           (pd.array([None], dtype="boolean"), False)])
def test_show_flags_are_r_istrue(flag, expected):
    p, y = np.array([0.1, 0.6, 0.8]), np.array([0, 1, 1])
    d = calstats.reliability_diagram(p, y, show_ece=flag, show_counts=flag)
    assert (d.subtitle is not None) is expected
    assert d.show_counts is expected and (d.size_label == "Count") is expected


def test_type_ignored_for_vectors_validated_for_matrices():
    p, y = np.array([0.1, 0.6, 0.8]), np.array([0, 1, 1])
    assert calstats.reliability_diagram(p, y, type=["no"]).layout == "binary"  # quirk Q10
    pm = np.array([[0.2, 0.8], [0.6, 0.4]])
    with pytest.raises(calstats.CalstatsError, match="'arg' should be one of “classwise”, “confidence”"):
        calstats.reliability_diagram(pm, [2, 1], type="x")
    with pytest.raises(calstats.CalstatsError, match="must have at least two columns"):
        calstats.reliability_diagram(pm[:, :1], [1, 0])  # quirk Q5
    with pytest.raises(calstats.CalstatsError, match="must have the same number of observations"):
        calstats.reliability_diagram(pm, [2, 1, 1], type="confidence")
    with pytest.raises(calstats.CalstatsError, match="^Arguments `p` and `y` must have the same length.$"):
        calstats.reliability_diagram(pm, [2, 1, 1])


def test_missing_logical_label_keeps_its_bin_with_missing_accuracy():
    p = np.array([0.1, 0.2, 0.7, 0.9])
    y = pd.array([False, None, True, True], dtype="boolean")
    d = calstats.reliability_diagram(p, y, bins=2)
    assert d.data["n"].tolist() == [2, 2]
    assert math.isnan(d.data["accuracy"][0]) and math.isnan(d.data["gap"][0])
    assert d.subtitle == "ECE = %.4f" % calstats.ece(p, y, bins=2)


def test_classwise_keeps_unused_levels_as_categories():
    pm = np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.5, 0.25, 0.25]])
    lab = pd.Categorical(["a", "a", "a"], categories=["a", "b", "c"])
    d = calstats.reliability_diagram(pm, lab, bins=4)
    assert list(d.data["class_label"].cat.categories) == ["a", "b", "c"]
    assert d.data.groupby("class_label", observed=False).size().tolist() == [1, 2, 2]


# -- errors: every R error case is replayed in tests/test_r_conditions.py ---------------


def test_inputs_not_modified_and_repr():
    rs = np.random.default_rng(5)
    pm = rs.dirichlet([1, 1, 1, 1], size=40)
    y = rs.integers(1, 5, size=40)
    frame = pd.DataFrame(pm.copy())
    before = frame.copy()
    d = calstats.reliability_diagram(frame, pd.Series(y), bins=5)
    pd.testing.assert_frame_equal(frame, before)
    text = repr(d)
    assert text.startswith("<ReliabilityDiagram: classwise") and "over 4 classes, 40 observations" in text
    assert "Classwise ECE = " in text and "class_label" in text


# -- drawing ----------------------------------------------------------------------------


def test_plot_single_panel(diagrams):
    d = diagrams["reliability_binary_default"]
    fig = d.plot()
    try:
        (ax,) = fig.axes
        assert ax.get_xlabel() == d.x_label and ax.get_ylabel() == d.y_label
        assert ax.get_title(loc="left") == d.title
        assert ax.get_xlim()[0] < 0 < 1 < ax.get_xlim()[1]  # 0-1 with ggplot-like padding
        dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
        assert len(dotted) == 1 and list(dotted[0].get_xdata()) == [0, 1]
        sizes = ax.collections[0].get_sizes()
        assert len(sizes) == len(d.data) and sizes.max() > sizes.min()  # sized by counts
        assert ax.get_legend().get_title().get_text() == "Count"
        assert any(t.get_text() == d.subtitle for t in ax.texts)
    finally:
        plt.close(fig)


def test_plot_without_counts_into_given_axes(diagrams):
    d = diagrams["reliability_binary_no_ece_no_counts"]
    fig, ax = plt.subplots()
    try:
        assert d.plot(ax=ax) is fig
        assert ax.get_legend() is None and len(set(ax.collections[0].get_sizes())) == 1
        assert ax.get_title(loc="left") == "Reliability diagram"
    finally:
        plt.close(fig)


def test_plot_classwise_one_panel_per_class(diagrams):
    d = diagrams["reliability_multiclass_classwise"]
    fig = d.plot()
    try:
        assert len(fig.axes) == 3  # the fourth cell of the 2 x 2 grid is removed
        assert [a.get_title() for a in fig.axes] == ["alpha", "beta", "gamma"]
        assert fig.get_suptitle() == "Reliability diagram (classwise)\nClasswise ECE = 0.1000"
        assert fig.axes[0].get_ylabel() == d.y_label and fig.axes[2].get_xlabel() == d.x_label
        assert fig.axes[1].get_xlabel() == d.x_label  # nothing below "beta"
        assert len(fig.legends) == 1
    finally:
        plt.close(fig)
    fig, axes = plt.subplots(1, 3)
    try:
        assert d.plot(ax=axes) is fig
        with pytest.raises(ValueError, match="needs 3 axes"):
            d.plot(ax=axes[:2])
    finally:
        plt.close(fig)


def test_plot_without_matplotlib_says_what_to_install(monkeypatch, diagrams):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="needs matplotlib"):
        diagrams["reliability_binary_default"].plot()


def test_a_diagram_drawn_on_given_axes_keeps_its_legend_inside_them():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    rs = np.random.default_rng(0)
    p = rs.random(300)
    y = (rs.random(300) < p).astype(int)
    fig = Figure(figsize=(10, 4))
    left, right = fig.subplots(1, 2)
    calstats.reliability_diagram(p, y).plot(ax=left)
    fig.canvas.draw()
    legend = left.get_legend().get_window_extent()
    assert legend.x1 <= left.get_window_extent().x1 + 1  # not over the right panel
