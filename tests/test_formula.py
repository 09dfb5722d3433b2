"""The formula interface (calstats.formula.api): same results as the array API, column
selection by formula, levels, indexes and errors."""

import numpy as np
import pandas as pd
import pytest

import calstats
import calstats.formula.api as cf

LEVELS = ["setosa", "versicolor", "virginica"]
COLS = ["p_setosa", "p_versicolor", "p_virginica"]
RHS = "p_setosa + p_versicolor + p_virginica"


@pytest.fixture(scope="module")
def df():
    rs = np.random.default_rng(11)
    P = rs.dirichlet([2, 2, 2], size=150)
    sharp = P**2 / (P**2).sum(axis=1, keepdims=True)
    codes = np.array([rs.choice(3, p=r) for r in sharp])
    out = pd.DataFrame(P, columns=COLS, index=pd.RangeIndex(1000, 1150))
    out.insert(0, "species", pd.Categorical.from_codes(codes, categories=LEVELS))
    out["code"] = codes + 1
    out["y"] = (rs.uniform(size=150) < P[:, 0]).astype(int)
    out["score"] = np.log(P[:, 0]) - np.log1p(-P[:, 0])
    out["label"] = np.where(out["y"] == 1, "yes", "no")
    return out


def _arrays(df):
    return df[COLS].to_numpy(), pd.Categorical(df["species"])


@pytest.mark.parametrize("name, kwargs", [
    ("cal_dirichlet", {"lambda_": 0.01}),
    ("cal_vector_scaling", {}),
    ("cal_temperature", {}),
    ("cal_ovr", {"method": "platt"}),
    ("cal_cv", {"method": "dirichlet", "folds": 3, "seed": 2, "lambda_": 0.001}),
])
def test_multiclass_formula_equals_array(df, name, kwargs):
    P, y = _arrays(df)
    if name in ("cal_vector_scaling", "cal_temperature"):
        data = df.copy()
        data[COLS] = np.log(P)
        P = np.log(P)
    else:
        data = df
    fit = getattr(cf, name)(f"species ~ {RHS}", data=data, **kwargs)
    ref = getattr(calstats, name)(P, y, **kwargs)
    got = fit.predict(data)
    want = ref.predict(P)
    np.testing.assert_array_equal(got.to_numpy(), np.asarray(want))
    assert list(got.columns) == LEVELS and fit.levels == LEVELS
    assert got.index.equals(df.index)  # the index of newdata
    assert fit.formula == f"species ~ {RHS}"


def test_dot_means_all_other_columns(df):
    data = df[["species"] + COLS]
    a = cf.cal_dirichlet("species ~ .", data=data, lambda_=0.01)
    b = cf.cal_dirichlet(f"species ~ {RHS}", data=data, lambda_=0.01)
    assert a.parsed.columns == COLS
    np.testing.assert_array_equal(a.weight, b.weight)
    c = cf.cal_dirichlet("species ~ . - code - y - score - label", data=df, lambda_=0.01)
    np.testing.assert_array_equal(c.weight, b.weight)


def test_integer_codes_take_column_names_as_levels(df):
    fit = cf.cal_dirichlet(f"code ~ {RHS}", data=df, lambda_=0.01)
    assert fit.levels == COLS
    ref = calstats.cal_dirichlet(df[COLS], df["code"], lambda_=0.01)
    assert ref.levels == ["1", "2", "3"]  # the array API keeps R's rule
    np.testing.assert_array_equal(fit.weight, ref.weight)
    assert list(fit.predict(df).columns) == COLS


def test_string_labels(df):
    data = df.assign(species=df["species"].astype(str))
    fit = cf.cal_dirichlet(f"species ~ {RHS}", data=data, lambda_=0.01)
    assert fit.levels == LEVELS
    named = df[COLS].set_axis(LEVELS, axis=1).assign(species=df["species"].astype(str))
    fit2 = cf.cal_dirichlet("species ~ virginica + setosa + versicolor", data=named, lambda_=0.01)
    assert fit2.levels == ["virginica", "setosa", "versicolor"]  # labels name the columns


@pytest.mark.parametrize("name", ["cal_platt", "cal_beta", "cal_isotonic", "cal_histogram"])
def test_binary_formula_equals_array(df, name):
    fit = getattr(cf, name)("y ~ p_setosa", data=df)
    ref = getattr(calstats, name)(df["p_setosa"].to_numpy(), df["y"].to_numpy())
    got = fit.predict(df)
    assert isinstance(got, pd.Series) and got.index.equals(df.index)
    np.testing.assert_array_equal(got.to_numpy(), ref.predict(df["p_setosa"].to_numpy()))


def test_binary_temperature_and_transform(df):
    a = cf.cal_temperature("y ~ score", data=df)
    b = cf.cal_temperature("y ~ I(np.log(p_setosa) - np.log1p(-p_setosa))", data=df)
    ref = calstats.cal_temperature(df["score"].to_numpy(), df["y"].to_numpy())
    assert a.temperature == ref.temperature
    np.testing.assert_allclose(b.temperature, ref.temperature, rtol=1e-8)


def test_two_level_labels_code_second_level_as_positive(df):
    fit = cf.cal_platt("label ~ score", data=df)
    ref = calstats.cal_platt(df["score"].to_numpy(), df["y"].to_numpy())
    assert fit.label_levels == ["no", "yes"]
    np.testing.assert_array_equal(fit.coef.to_numpy(), ref.coef.to_numpy())
    assert fit.predict(df).name == "yes"
    cat = df.assign(label=pd.Categorical(df["label"], categories=["no", "yes"]))
    np.testing.assert_array_equal(cf.cal_platt("label ~ score", cat).coef.to_numpy(), ref.coef.to_numpy())


def test_metrics_equal_array(df):
    P, y = _arrays(df)
    for name in ("ece", "mce", "ace"):
        for type_ in ("classwise", "confidence"):
            assert getattr(cf, name)(f"species ~ {RHS}", df, type=type_) == getattr(calstats, name)(P, y, type=type_)
    assert cf.mmce(f"species ~ {RHS}", df) == calstats.mmce(P, y)
    assert cf.ece("y ~ p_setosa", df, bins=5) == calstats.ece(df["p_setosa"].to_numpy(), df["y"].to_numpy(), bins=5)
    d1 = cf.reliability_diagram(f"species ~ {RHS}", df)
    d2 = calstats.reliability_diagram(P, y)
    pd.testing.assert_frame_equal(d1.data, d2.data)


def test_predict_without_label_and_default_newdata(df):
    fit = cf.cal_dirichlet(f"species ~ {RHS}", data=df, lambda_=0.01)
    pd.testing.assert_frame_equal(fit.predict(df[COLS].iloc[:5]), fit.predict().iloc[:5])
    assert fit["lambda"] == 0.01 and "Formula:" in str(fit)
    assert "coef_table" in fit.summary(coef=True).as_frames()
    assert fit.coef_table().shape == (12, 4)


@pytest.mark.parametrize("formula, data_kw, message", [
    ("species ~ p_setosa + nope + p_virginica", {}, "Column `nope`"),
    ("species ~ p_setosa + p_versicolor", {}, "2 score columns .* 3 levels"),
    ("species ~ p_setosa + label + p_virginica", {}, "must be numeric"),
    ("nolabel ~ p_setosa + p_versicolor + p_virginica", {}, "Column `nolabel`"),
    (f"~ {RHS}", {}, "has no label"),
    ("species ~ p_setosa:p_versicolor + p_virginica", {}, "Interaction"),
    ("species ~ (p_setosa", {}, "Cannot parse"),
    ("label ~ p_setosa", {"label": ["a", "b", "c"] * 50}, "binary, but the label"),
])
def test_errors(df, formula, data_kw, message):
    data = df.assign(**data_kw) if data_kw else df
    with pytest.raises(calstats.CalstatsError, match=message):
        cf.cal_dirichlet(formula, data=data) if "~" in formula and formula.count("+") else \
            cf.cal_platt(formula, data=data)


def test_codes_beyond_columns(df):
    with pytest.raises(calstats.CalstatsError, match="class codes up to 4"):
        cf.cal_dirichlet(f"code ~ {RHS}", df.assign(code=df["code"].replace(3, 4)))


def test_optional_methods_are_wrapped_when_available(df):
    Z = np.log(df[COLS].to_numpy())
    data = df.copy()
    data[COLS] = Z
    fit = cf.cal_matrix_scaling(f"species ~ {RHS}", data, lambda_=0.01)
    ref = calstats.cal_matrix_scaling(Z, pd.Categorical(df["species"]), lambda_=0.01)
    np.testing.assert_array_equal(fit.predict(data).to_numpy(), ref.predict(Z).to_numpy())
