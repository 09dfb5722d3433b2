"""Fixtures of torch-uncertainty 0.13 (AURC, AUGRC) and torchmetrics 1.9 (binary and
multiclass calibration error, each norm) for tests/test_selective.py and tests/test_norms.py.

Run in a virtual environment of its own, outside calstats' dependencies (see README.md):

    /work/peers-torch/bin/python tools/peer-reference/make_torch_fixtures.py

Writes tests/fixtures/peer_torch.json: the inputs and the peers' values (float64 tensors;
torch's default dtype set to float64 so that torch-uncertainty's coverage grid
``arange(1, N + 1) / N`` is float64; the float32 default's values are kept beside them
as ``*_default_dtype`` to show what that grid costs).
"""

import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import torch
import torchmetrics
from torchmetrics.functional.classification import binary_calibration_error, multiclass_calibration_error
from torchmetrics.functional.classification.calibration_error import _ce_compute


def _risk_coverage_module():
    """torch-uncertainty's ``metrics/classification/risk_coverage.py`` loaded by its path: the
    package's ``__init__`` imports Lightning and torchvision, which this file does not need."""
    spec = importlib.util.find_spec("torch_uncertainty")
    path = Path(spec.submodule_search_locations[0]) / "metrics" / "classification" / "risk_coverage.py"
    mod_spec = importlib.util.spec_from_file_location("tu_risk_coverage", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return mod


_RC = _risk_coverage_module()
AURC, AUGRC = _RC.AURC, _RC.AUGRC

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "peer_torch.json"


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def selective_values(probs, targets):
    out = {}
    for name, cls in (("aurc", AURC), ("augrc", AUGRC)):
        for dtype, key in ((torch.float64, name), (torch.float32, f"{name}_default_dtype")):
            torch.set_default_dtype(dtype)
            m = cls()
            m.update(torch.tensor(probs, dtype=torch.float64), torch.tensor(targets))
            out[key] = float(m.compute())
            if name == "aurc" and dtype == torch.float64:
                out["error_rates"] = m.partial_compute().tolist()  # risk at coverage k/N, k = 1..N
    torch.set_default_dtype(torch.float64)
    return out


def selective_cases(rng):
    cases = []
    # multiclass, no tied confidences
    n, k = 200, 4
    P = softmax(rng.normal(size=(n, k)) * 1.5)
    y = rng.integers(0, k, size=n)
    cases.append({"name": "multiclass", "p": P.tolist(), "y": y.tolist()})
    # binary: a vector of P(class 1), torch-uncertainty stacks (1 - p, p)
    p = rng.uniform(0.02, 0.98, size=150)
    yb = (rng.random(150) < p).astype(int)
    cases.append({"name": "binary", "p": p.tolist(), "y": yb.tolist()})
    # torch-uncertainty's docstring example
    cases.append({"name": "docstring", "p": [[0.7, 0.3], [0.6, 0.4], [0.8, 0.2]], "y": [0, 1, 0]})
    # a well-ranked model: most errors at the lowest confidences
    n = 300
    conf = np.sort(rng.uniform(0.35, 1.0, size=n))[::-1]
    err = rng.random(n) < (1.0 - conf) * 0.8
    P = np.column_stack([conf, 1.0 - conf])
    yw = np.where(err, 1, 0)
    cases.append({"name": "ranked", "p": P.tolist(), "y": yw.tolist()})
    for c in cases:
        c.update(selective_values(np.asarray(c["p"]), np.asarray(c["y"])))
    return cases


def ce_values(kind, preds, target, n_bins, k=None):
    out = {}
    for norm in ("l1", "l2", "max"):
        if kind == "binary":
            out[norm] = float(binary_calibration_error(torch.tensor(preds), torch.tensor(target), n_bins=n_bins,
                                                       norm=norm))
        else:
            P = torch.tensor(preds)
            out[f"{norm}_float32"] = float(multiclass_calibration_error(P, torch.tensor(target), num_classes=k,
                                                                        n_bins=n_bins, norm=norm))
            conf, pred = P.max(dim=1)
            acc = pred.eq(torch.tensor(target)).to(torch.float64)
            out[norm] = float(_ce_compute(conf, acc, n_bins, norm))  # its own computation in float64
    out["boundaries"] = torch.linspace(0, 1, n_bins + 1, dtype=torch.float64).tolist()
    return out


def norm_cases(rng):
    cases = []
    p = rng.uniform(0, 1, size=500)
    y = (rng.random(500) < p ** 1.3).astype(int)
    for n_bins in (15, 10):
        cases.append({"name": f"binary_{n_bins}", "kind": "binary", "n_bins": n_bins, "p": p.tolist(),
                      "y": y.tolist(), **ce_values("binary", p, y, n_bins)})
    # scores of exactly 0 and 1: torchmetrics bins 1.0 on its own ([b_j, b_j+1) and {1})
    q = np.concatenate([rng.uniform(0, 1, size=200), np.ones(7), np.zeros(5)])
    yq = (rng.random(q.size) < q).astype(int)
    yq[200:203] = 0  # three of the ones wrong
    cases.append({"name": "binary_ends", "kind": "binary", "n_bins": 15, "p": q.tolist(), "y": yq.tolist(),
                  **ce_values("binary", q, yq, 15)})
    n, k = 400, 5
    P = softmax(rng.normal(size=(n, k)) * 2.0)
    yc = np.array([rng.choice(k, p=row ** 1.5 / (row ** 1.5).sum()) for row in P])
    for n_bins in (15, 8):
        cases.append({"name": f"multiclass_{n_bins}", "kind": "multiclass", "n_bins": n_bins, "p": P.tolist(),
                      "y": yc.tolist(), **ce_values("multiclass", P, yc, n_bins, k)})
    return cases


def main():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(20260701)
    data = {
        "versions": {"torch": torch.__version__, "torchmetrics": torchmetrics.__version__,
                     "torch_uncertainty": importlib.metadata.version("torch-uncertainty"),
                     "python": sys.version.split()[0]},
        "selective": selective_cases(rng),
        "norms": norm_cases(rng),
    }
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
