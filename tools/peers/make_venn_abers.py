"""Reference values of Venn-Abers calibration from venn-abers 1.5.4 and MAPIE 1.6.0 for
tests/test_venn_abers.py.

Run with the peer environment (never imported by the tests):

    /work/peers/bin/python tools/peers/make_venn_abers.py

It writes tests/fixtures/venn_abers.json: a list of cases, each with its inputs (calibration
scores or probability matrix ``p``, labels ``y`` coded as calstats takes them: 0/1, or class
codes 1..k), the options of ``cal_venn_abers`` that reproduce the peer's computation, the test
input ``newdata`` and the peer's outputs:

* venn-abers ``VennAbers`` (inductive, binary): ``fit`` (``p_prime[:, 1]``), ``p0``, ``p1``.
* venn-abers ``VennAbersCV`` (cross, binary) driven by a pass-through "classifier" whose
  ``predict_proba`` returns the score: every fold's IVAP is then calibrated on that fold's
  rows; the folds are ``StratifiedKFold(shuffle=True)``'s, written as 1-based fold ids.
  ``fit`` (``loss="log"``), ``fit_brier`` (``loss="brier"``), ``p0_folds``/``p1_folds``
  (``p0_p1_output``).
* venn-abers ``predict_proba_prefitted_va`` (inductive, multiclass, ``va_tpe`` one_vs_one and
  one_vs_rest): ``fit`` (the class probabilities) and ``p0p1`` (one ``[p0, p1]`` pair of
  columns per binary problem).
* venn-abers ``VennAbersMultiClass`` (cross, multiclass one-vs-one) with a pass-through pair
  "classifier" and ``StratifiedKFold`` replaced by the given fold ids: ``fit`` and
  ``fit_brier``.
* MAPIE ``VennAbersCalibrator(cv="prefit")`` with the pass-through classifier (binary and
  multiclass): ``fit`` and ``p0``/``p1`` or ``p0p1``.

Numbers are JSON doubles (``repr``: 17 significant digits round-trip exactly).
"""

import json
import warnings
from importlib.metadata import version
from pathlib import Path

import mapie
import numpy as np
import venn_abers.venn_abers as vamod
from mapie.calibration import VennAbersCalibrator
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold

warnings.filterwarnings("ignore")  # venn-abers' nanmin of all-NaN slices, by design
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "venn_abers.json"

# The global inputs the pass-through classifiers read (row ids are their only feature).
STATE: dict = {}


class Passthrough(ClassifierMixin, BaseEstimator):
    """A fitted binary 'classifier' whose probability of class 1 is its single input column."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        s = np.asarray(X, dtype=np.float64)[:, 0]
        return np.column_stack([1 - s, s])


class PairPassthrough(ClassifierMixin, BaseEstimator):
    """One-vs-one pass-through on row ids: fitted on the rows of classes a < b, it returns
    ``P[:, [a, b]]`` normalised by the row sum, as ``predict_proba_prefitted_va`` does."""

    def fit(self, X, y):
        ids = np.asarray(X)[:, 0].astype(int)
        self.pair_ = [int(c) for c in np.unique(STATE["labels"][ids])]
        assert len(self.pair_) == 2, self.pair_
        self.classes_ = np.unique(np.asarray(y).ravel())
        return self

    def predict_proba(self, X):
        ids = np.asarray(X)[:, 0].astype(int)
        P = STATE["P"][ids][:, self.pair_]
        return P / np.sum(P, axis=1).reshape(-1, 1)


class GivenFolds:
    """``StratifiedKFold`` replaced by the fold ids of the rows (``STATE["fold_id"]``, 1-based)."""

    def __init__(self, n_splits=None, shuffle=False, random_state=None):
        self.n_splits = n_splits

    def split(self, X, y=None):
        ids = np.asarray(X)[:, 0].astype(int)
        f = STATE["fold_id"][ids]
        for k in range(1, self.n_splits + 1):
            yield np.flatnonzero(f != k), np.flatnonzero(f == k)


def lst(a):
    return np.asarray(a, dtype=np.float64).tolist()


def binary_data(rs, n, kind="continuous"):
    if kind == "continuous":
        s = rs.beta(2, 2, size=n)
    elif kind == "ties":
        s = np.round(rs.uniform(size=n), 1)
    elif kind == "constant":
        s = np.full(n, 0.5)
    truth = 1 / (1 + np.exp(-2.5 * np.log(np.clip(s, 1e-3, 1 - 1e-3) / (1 - np.clip(s, 1e-3, 1 - 1e-3)))))
    y = (rs.uniform(size=n) < truth).astype(int)
    return s, y


def test_scores(rs, s, n):
    t = np.concatenate([rs.uniform(size=n), s[:10], [s.min() - 0.01, s.max() + 0.01, 0.0, 1.0]])
    return np.clip(t, 0.0, 1.0)


def inductive_case(name, s, y, t, precision=None):
    va = vamod.VennAbers()
    va.fit(np.column_stack([1 - s, s]), y, precision=precision)
    pp, p01 = va.predict_proba(np.column_stack([1 - t, t]))
    return {"name": name, "reference": "venn-abers VennAbers", "kind": "binary", "method": "inductive",
            "precision": precision, "p": lst(s), "y": y.tolist(), "newdata": lst(t),
            "fit": lst(pp[:, 1]), "p0": lst(p01[:, 0]), "p1": lst(p01[:, 1])}


def cross_case(name, s, y, t, n_splits, seed, precision=None):
    X = s.reshape(-1, 1)
    fold_id = np.zeros(s.size, dtype=int)
    for f, (_, test) in enumerate(StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(X, y), start=1):
        fold_id[test] = f
    cv = vamod.VennAbersCV(Passthrough(), inductive=False, n_splits=n_splits, shuffle=True, random_state=seed,
                           precision=precision)
    cv.fit(X, y)
    T = t.reshape(-1, 1)
    pp, p01 = cv.predict_proba(T, loss="log", p0_p1_output=True)
    pb = cv.predict_proba(T, loss="brier")
    return {"name": name, "reference": "venn-abers VennAbersCV", "kind": "binary", "method": "cross",
            "precision": precision, "p": lst(s), "y": y.tolist(), "folds": fold_id.tolist(), "newdata": lst(t),
            "fit": lst(pp[:, 1]), "fit_brier": lst(pb[:, 1]),
            "p0_folds": lst(p01[:, :n_splits]), "p1_folds": lst(p01[:, n_splits:])}


def multiclass_data(rs, n, k):
    logits = rs.normal(scale=1.5, size=(n, k))
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    sharp = np.exp(1.8 * logits) / np.exp(1.8 * logits).sum(axis=1, keepdims=True)
    y = np.array([rs.choice(k, p=row) for row in sharp])
    return P, y


def multiclass_inductive_case(name, P, y, T, va_type, precision=None):
    p_prime, p0p1 = vamod.predict_proba_prefitted_va(P, y, T, precision=precision, va_tpe=va_type)
    return {"name": name, "reference": "venn-abers predict_proba_prefitted_va", "kind": "multiclass",
            "method": "inductive", "reduction": "one_vs_one" if va_type == "one_vs_one" else "one_vs_rest",
            "precision": precision, "p": lst(P), "y": (y + 1).tolist(), "newdata": lst(T), "fit": lst(p_prime),
            "p0p1": lst(np.hstack(p0p1))}


def multiclass_cross_case(name, P, y, T, n_splits, seed):
    n = P.shape[0]
    # stratified fold ids over all classes (every pair then has rows in every fold)
    fold_id = np.zeros(n, dtype=int)
    for f, (_, test) in enumerate(StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(P, y), start=1):
        fold_id[test] = f
    STATE.update(P=np.vstack([P, T]), labels=np.concatenate([y, np.full(T.shape[0], -1)]),
                 fold_id=np.concatenate([fold_id, np.zeros(T.shape[0], dtype=int)]))
    saved = vamod.StratifiedKFold
    vamod.StratifiedKFold = GivenFolds
    try:
        mc = vamod.VennAbersMultiClass(PairPassthrough(), inductive=False, n_splits=n_splits)
        mc.fit(np.arange(n).reshape(-1, 1), y)
        Xt = (n + np.arange(T.shape[0])).reshape(-1, 1)
        pp = mc.predict_proba(Xt, loss="log")
        pb = mc.predict_proba(Xt, loss="brier")
    finally:
        vamod.StratifiedKFold = saved
    return {"name": name, "reference": "venn-abers VennAbersMultiClass", "kind": "multiclass", "method": "cross",
            "reduction": "one_vs_one", "precision": None, "p": lst(P), "y": (y + 1).tolist(),
            "folds": fold_id.tolist(), "newdata": lst(T), "fit": lst(pp), "fit_brier": lst(pb)}


def mapie_binary_case(name, s, y, t):
    cal = VennAbersCalibrator(estimator=Passthrough().fit(None, None), cv="prefit")
    cal.fit(s.reshape(-1, 1), y)
    pp, p01 = cal.predict_proba(t.reshape(-1, 1), p0_p1_output=True)
    return {"name": name, "reference": f"MAPIE {mapie.__version__} VennAbersCalibrator", "kind": "binary",
            "method": "inductive", "precision": None, "p": lst(s), "y": y.tolist(), "newdata": lst(t),
            "fit": lst(pp[:, 1]), "p0": lst(p01[:, 0]), "p1": lst(p01[:, 1])}


class ProbPassthrough(ClassifierMixin, BaseEstimator):
    """A fitted multiclass pass-through: rows of ``STATE["P"]`` by row id."""

    def fit(self, X, y):
        self.classes_ = np.arange(STATE["k"])
        return self

    def predict_proba(self, X):
        return STATE["P"][np.asarray(X)[:, 0].astype(int)]


def mapie_multiclass_case(name, P, y, T):
    n, k = P.shape
    STATE.update(P=np.vstack([P, T]), k=k)
    cal = VennAbersCalibrator(estimator=ProbPassthrough().fit(None, None), cv="prefit")
    cal.fit(np.arange(n).reshape(-1, 1), y)
    pp, p0p1 = cal.predict_proba((n + np.arange(T.shape[0])).reshape(-1, 1), p0_p1_output=True)
    return {"name": name, "reference": f"MAPIE {mapie.__version__} VennAbersCalibrator", "kind": "multiclass",
            "method": "inductive", "reduction": "one_vs_one", "precision": None, "p": lst(P),
            "y": (y + 1).tolist(), "newdata": lst(T), "fit": lst(pp), "p0p1": lst(np.hstack(p0p1))}


def main():
    rs = np.random.RandomState(20251101)
    cases = []
    s, y = binary_data(rs, 300)
    t = test_scores(rs, s, 60)
    cases.append(inductive_case("ivap_random_300", s, y, t))
    cases.append(inductive_case("ivap_precision2_300", s, y, t, precision=2))
    cases.append(cross_case("cvap_random_300_k5", s, y, t, 5, 11))
    # the highest calibration scores with label 0: MAPIE's p1 above them differs from venn-abers'
    ym = y.copy()
    ym[np.argsort(s)[-2:]] = 0
    cases.append(mapie_binary_case("mapie_ivap_top_label0_300", s, ym, t))
    cases.append(inductive_case("ivap_top_label0_300", s, ym, t))
    s2, y2 = binary_data(rs, 200, "ties")
    t2 = np.concatenate([test_scores(rs, s2, 60), np.round(rs.uniform(size=40), 1)])
    cases.append(inductive_case("ivap_ties_200", s2, y2, t2))
    cases.append(cross_case("cvap_ties_200_k3", s2, y2, t2, 3, 5))
    y2m = y2.copy()
    y2m[s2 == s2.max()] = 0
    cases.append(mapie_binary_case("mapie_ivap_ties_top_label0_200", s2 * 0.5, y2m, t2))
    s3, y3 = binary_data(rs, 40, "constant")
    y3[:2] = [0, 1]
    cases.append(inductive_case("ivap_constant_40", s3, y3, np.array([0.2, 0.5, 0.7])))
    s4, y4 = binary_data(rs, 25)
    cases.append(inductive_case("ivap_small_25", s4, y4, test_scores(rs, s4, 20)))
    s5, y5 = binary_data(rs, 400)
    cases.append(cross_case("cvap_precision1_400_k4", s5, y5, test_scores(rs, s5, 80), 4, 3, precision=1))

    P, yc = multiclass_data(rs, 150, 3)
    T, _ = multiclass_data(rs, 40, 3)
    cases.append(multiclass_inductive_case("mc_ivap_ovo_k3", P, yc, T, "one_vs_one"))
    cases.append(multiclass_inductive_case("mc_ivap_ovr_k3", P, yc, T, "one_vs_rest"))
    cases.append(multiclass_cross_case("mc_cvap_ovo_k3", P, yc, T, 4, 2))
    cases.append(mapie_multiclass_case("mapie_mc_ivap_ovo_k3", P, yc, T))
    P4, y4c = multiclass_data(rs, 150, 4)
    T4, _ = multiclass_data(rs, 30, 4)
    cases.append(multiclass_inductive_case("mc_ivap_ovo_k4_precision2", P4, y4c, T4, "one_vs_one", precision=2))
    cases.append(multiclass_inductive_case("mc_ivap_ovr_k4", P4, y4c, T4, "one_vs_rest"))
    cases.append(multiclass_cross_case("mc_cvap_ovo_k4", P4, y4c, T4, 3, 9))

    out = {"generator": "tools/peers/make_venn_abers.py",
           "versions": {"venn-abers": version("venn-abers"), "mapie": mapie.__version__, "numpy": np.__version__},
           "cases": cases}
    OUT.write_text(json.dumps(out))
    print(f"{OUT}: {len(cases)} cases, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
