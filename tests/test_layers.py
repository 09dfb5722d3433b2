"""tools/check_layers.py: the import-layer check CI runs (every import counted, function-level
ones included; a circle or an upward import fails)."""

import importlib.util
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def layers():
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "tools" / "check_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DESIGN = """\
# design

## Layers
| layer | name | modules |
| --- | --- | --- |
| 1 | low | `pkg._base`, `pkg.kernels.*` |
| 2 | high | `pkg.front`, `pkg` |
| 3 | top | `pkg.kernels.special` |

## Other
"""


def _package(tmp_path, files):
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    design = tmp_path / "DESIGN.md"
    design.write_text(DESIGN)
    return root, design


def test_a_clean_package_passes(layers, tmp_path):
    root, design = _package(tmp_path, {
        "__init__.py": "", "_base.py": "", "kernels/__init__.py": "", "kernels/bins.py": "from .._base import x\n",
        "kernels/special.py": "from . import bins\n", "front.py": "from .kernels import bins\n",
    })
    problems, layer, *_ = layers.check(root, design)
    assert problems == []
    assert layer["pkg.kernels.special"] == (3, "top")  # the most specific name wins
    assert layer["pkg.kernels.bins"] == (1, "low")


def test_an_upward_import_inside_a_function_fails(layers, tmp_path):
    root, design = _package(tmp_path, {
        "__init__.py": "", "_base.py": "def f():\n    from .front import g\n", "front.py": "",
        "kernels/__init__.py": "", "kernels/special.py": "",
    })
    problems, *_ = layers.check(root, design)
    assert problems == ["pkg/_base.py:2: pkg._base (low) imports pkg.front (high), a higher layer"]


def test_a_circle_within_one_layer_fails(layers, tmp_path):
    root, design = _package(tmp_path, {
        "__init__.py": "", "_base.py": "from .kernels import bins\n", "front.py": "",
        "kernels/__init__.py": "", "kernels/bins.py": "import pkg._base\n", "kernels/special.py": "",
    })
    problems, *_ = layers.check(root, design)
    assert problems == ["circle: pkg._base, pkg.kernels.bins"]


def test_a_module_no_layer_names_fails(layers, tmp_path):
    root, design = _package(tmp_path, {"__init__.py": "", "_base.py": "", "front.py": "", "stray.py": "",
                                       "kernels/__init__.py": "", "kernels/special.py": ""})
    problems, *_ = layers.check(root, design)
    assert problems == ["pkg.stray: no layer in DESIGN.md names this module"]


def test_calstats_itself_passes(layers):
    problems, *_ = layers.check(ROOT / "calstats", ROOT / "docs" / "DESIGN.md")
    assert problems == []
