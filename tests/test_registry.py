"""The calibration-method registry: every front end reads its method names, aliases and
capabilities from calstats.calibrators.registry, and no module lists them again."""

import ast
import inspect
import pathlib

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import CalstatsError, cli
from calstats.calibrators import registry

ROOT = pathlib.Path(calstats.__file__).parent

#: R's probcal choices, as R's signatures list them (the contract the registry must keep)
R_CAL_CV = ("platt", "temperature", "beta", "isotonic", "histogram", "vector", "dirichlet", "ovr")
R_CAL_OVR = ("platt", "beta", "isotonic", "histogram", "temperature")


def test_r_orders_are_probcals():
    assert registry.CAL_CV == R_CAL_CV
    assert registry.CAL_OVR == R_CAL_OVR
    assert registry.DEFAULT_BINARY == R_CAL_OVR
    assert registry.DEFAULT_MULTICLASS == ("temperature", "vector", "dirichlet", "ovr")
    assert registry.BINARY == R_CAL_OVR + ("venn_abers", "spline")
    assert registry.MULTICLASS == ("temperature", "vector", "dirichlet", "ovr", "venn_abers", "spline")


def test_every_front_end_reads_the_registry():
    from calstats import sklearn as adapter
    from calstats.calibrators import cv, ovr, toplabel
    from calstats.cli import _common
    from calstats.evaluation import compare

    assert cv.CV_METHODS is registry.CAL_CV
    assert ovr.BINARY_METHODS is registry.CAL_OVR
    assert compare.DEFAULT_BINARY is registry.DEFAULT_BINARY
    assert compare.DEFAULT_MULTICLASS is registry.DEFAULT_MULTICLASS
    assert _common.BINARY_METHODS is registry.BINARY and _common.MULTICLASS_METHODS is registry.MULTICLASS
    assert _common.OVR_METHODS is registry.CAL_OVR
    assert toplabel.METHODS == ("platt", "isotonic", "histogram")
    assert list(adapter.METHODS) == list(registry.METHODS)
    assert adapter.METHODS["platt"] == ("cal_platt", "logit") and adapter.METHODS["ovr"] == ("cal_ovr", "prob")
    assert adapter.METHODS["temperature"] == ("cal_temperature", "logit")


def _method_literals(path):
    """Tuple, list, set literals and dict keys in ``path`` naming two or more methods."""
    names = set(registry.METHODS)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):  # a module's __all__ names its functions, not methods
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            skip.add(id(node.value))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        hit = {e.value for e in items if isinstance(e, ast.Constant) and e.value in names}
        if len(hit) >= 2:
            found.append((path.relative_to(ROOT).as_posix(), node.lineno, sorted(hit)))
    return found


def test_no_module_lists_the_methods_again():
    # _validate's synonyms only suggest a choice in a message, for every kind of choice
    # argument; it lies below the registry's layer
    allowed = {"calibrators/registry.py", "_validate/options.py"}
    found = [hit for path in sorted(ROOT.rglob("*.py")) if path.relative_to(ROOT).as_posix() not in allowed
             for hit in _method_literals(path)]
    assert found == []


def test_the_docstring_table_is_the_registry():
    lines = registry.__doc__.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    rows = [line.split() for line in lines[rules[1] + 1:rules[2]]]
    yes = {"yes": True, "no": False}
    want = [[m.name, m.function_name, m.binary, m.multiclass, m.takes, m.weights, m.dask]
            for m in registry.METHODS.values()]
    assert [[r[0], r[1], yes[r[2]], yes[r[3]], r[4], yes[r[5]], yes[r[6]]] for r in rows] == want


@pytest.mark.parametrize("name", list(registry.METHODS))
def test_each_method_is_its_calstats_function(name):
    m = registry.METHODS[name]
    fn = m.function()
    assert fn is getattr(calstats, m.function_name)
    params = inspect.signature(fn).parameters
    assert ("weights" in params) == m.weights
    # the formula API has the same function
    import calstats.formula.api as cf

    assert callable(getattr(cf, m.function_name)) and m.function_name in cf.__all__
    declared = {node.target.id for node in ast.walk(ast.parse(inspect.getsource(cf)))
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and getattr(node.annotation, "id", None) == "_FormulaCalibrator"}
    assert m.function_name in declared  # for type checkers


def test_capabilities_are_what_the_functions_do():
    rs = np.random.default_rng(1)
    p = rs.uniform(0.05, 0.95, 120)
    y = (rs.random(120) < p).astype(int)
    y[:2] = [0, 1]
    P = rs.dirichlet([2.0, 2.0, 2.0], 120)
    codes = (np.arange(120) % 3) + 1
    for m in registry.METHODS.values():
        fn = m.function()
        x = p if m.takes != "logits" else calstats.logit(p)
        if m.binary:
            assert np.asarray(fn(x, y).predict(x)).shape == (120,), m.name
        else:
            with pytest.raises(CalstatsError):
                fn(x, y)
        if m.multiclass:
            X = P if m.takes != "logits" else np.log(P)
            assert np.asarray(fn(X, codes).predict(X)).shape == (120, 3), m.name


def test_resolve_takes_aliases_and_partial_names_with_rs_message():
    assert registry.resolve("sigmoid", registry.CAL_CV) == "platt"
    assert registry.resolve("vector_scaling", registry.MULTICLASS) == "vector"
    assert registry.resolve("iso", registry.CAL_CV) == "isotonic"
    assert registry.resolve(None, registry.CAL_OVR) == "platt"
    assert registry.canonical("venn-abers") == "venn_abers" and registry.canonical(3) == 3
    with pytest.raises(CalstatsError):
        registry.resolve("vector_scaling", registry.BINARY)  # an alias of a method not offered here
    with pytest.raises(CalstatsError):
        registry.resolve("bogus", registry.CAL_CV)


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(7)
    p = rs.uniform(0.02, 0.98, 200)
    y = (rs.random(200) < p ** 1.4).astype(int)
    return p, y


def test_sigmoid_is_platt_in_every_front_end(binary, tmp_path, capsys):
    p, y = binary
    platt = calstats.cal_cv(p, y, method="platt", seed=1, progress=False)
    sig = calstats.cal_cv(p, y, method="sigmoid", seed=1, progress=False)
    assert sig.calibration_method == "platt"
    assert np.array_equal(platt.oof_predictions, sig.oof_predictions)
    cmp = calstats.cal_compare(p, y, methods=["sigmoid", "isotonic"], progress=False)
    assert list(cmp.table.index) == ["uncalibrated", "platt", "isotonic"]
    P = np.column_stack([1 - p, p])
    a = calstats.cal_ovr(P, y + 1, method="sigmoid")
    assert a.base_method == "platt"
    assert calstats.cal_top_label(P, y + 1, method="sigmoid").base_method == "platt"
    # the command line
    pd.DataFrame({"y": y, "p": p}).to_csv(tmp_path / "d.csv", index=False)
    status = cli.main(["calibrate", str(tmp_path / "d.csv"), str(tmp_path / "d.csv"), "--label", "y", "-m", "sigmoid",
                       "-o", str(tmp_path / "out.csv")])
    capsys.readouterr()
    assert status == 0
    want = calstats.cal_platt(p, y).predict(p)  # the command fits platt on the column as given
    got = pd.read_csv(tmp_path / "out.csv")["p"].to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sigmoid_in_the_scikit_learn_adapter(binary):
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    from calstats.sklearn import CalibratedClassifier

    p, y = binary
    X = calstats.logit(p).reshape(-1, 1)
    a = CalibratedClassifier(LogisticRegression(), method="sigmoid", cv=3).fit(X, y)
    b = CalibratedClassifier(LogisticRegression(), method="platt", cv=3).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(ValueError, match="Only binary classification is supported by method 'sigmoid'"):
        CalibratedClassifier(LogisticRegression(), method="sigmoid", cv=3).fit(np.c_[X, X], np.arange(200) % 3)


def test_the_dask_capability_is_the_dask_fits():
    from calstats.dask import _fit

    assert set(_fit.__all__) == {m.name for m in registry.METHODS.values() if m.dask}
