"""Every user-facing message is written once: in a validator of the calstats._validate package, or in
the table it owns, calstats._messages (the texts of the layers below it: numerics, rng, ports and the
base modules). Read from the source, as tools/check_layers.py reads the imports."""

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "calstats"
#: the validators' package, and the table it owns
VALIDATE = PACKAGE / "_validate"
TABLE = PACKAGE / "_messages.py"
#: the calls that raise or warn with a text
RAISERS = {"fail", "_fail", "warn", "_warn", "CalstatsError", "CalstatsWarning", "OptionError"}
#: the spellings message constants had (MSG_X, _MSG_X, _W_X, ERR_X, X_MSG, MESSAGES, ...)
CONSTANT = re.compile(r"^_?(MSG|ERR|ERROR|W|WARN|E)_[A-Z0-9_]+$|^_?[A-Z0-9_]*_MSG$|^_?MESSAGES$")
#: modules of the layers above the checks read texts through validators, never the table
BELOW_CHECKS = ("numerics", "rng", "ports")
BASE = {"_errors.py", "_messages.py", "_options.py", "_typing.py", "_factor.py", "_progress.py", "_call.py",
        "_robject.py", "_plotting.py", "_frames.py"}


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _validators():
    return sorted(VALIDATE.glob("*.py"))


def _owner(path):
    return path == TABLE or path.parent == VALIDATE


def _rel(path):
    return path.relative_to(PACKAGE).as_posix()


def _has_text(node):
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value.strip()) > 2
               for n in ast.walk(node))


def _written_text(node):
    """Whether an argument is a text written in place: a string, an f-string, a sum of them, or
    ``"...".format(...)`` (a constant of the table given with its fields is none)."""
    if _template(node) is not None:
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and _template(node.func.value) is not None)


def _call_name(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id == "warnings" and func.attr == "warn":
            return "warnings.warn"
        return func.attr
    return None


def _texts_outside(path):
    """``(line, what)`` of each text written outside the owners: a message constant, or a
    literal text given to a call that raises or warns."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if CONSTANT.match(node.targets[0].id) and _has_text(node.value):
                out.append((node.lineno, f"constant {node.targets[0].id}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_call_name(node.func) in RAISERS or _call_name(node.func) == "warnings.warn"):
            if node.args and _written_text(node.args[0]):
                out.append((node.lineno, f"text in {_call_name(node.func)}()"))
    return out


def test_no_message_is_written_outside_validate_and_its_table():
    found = [f"{_rel(p)}:{line}: {what}" for p in _modules() if not _owner(p) for line, what in _texts_outside(p)]
    assert found == []


def test_the_check_reads_a_message_written_in_place(tmp_path):
    """The check itself: a constant and a literal text outside the owners are found."""
    mod = tmp_path / "front.py"
    mod.write_text('_MSG_X = "Argument `x` is wrong."\n\ndef f(x):\n    fail(f"Argument `{x}` is wrong.")\n')
    assert [what for _, what in _texts_outside(mod)] == ["constant _MSG_X", "text in fail()"]


def _imports_messages(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[-1] == "_messages":
            return True
        if isinstance(node, ast.ImportFrom) and node.module is None and any(a.name == "_messages" for a in node.names):
            return True
    return False


def test_front_ends_read_messages_through_validators():
    """Only _validate and the layers below it read the table; a front end calls a validator."""
    readers = [_rel(p) for p in _modules() if _imports_messages(p)]
    above = [r for r in readers
             if r.split("/")[0] not in BELOW_CHECKS + ("_validate",) and r not in BASE]
    assert above == []
    assert any(r.startswith("_validate/") for r in readers)


def _template(node):
    """A text as written: f-string fields as ``{}``; None for an expression that is no text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.sub(r"\{[^{}]*\}", "{}", node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        return None if left is None or right is None else left + right
    return None


def _owned_texts():
    """Every text of the owners: the table's constants and the texts the validators raise or warn."""
    texts = []
    table = ast.parse(TABLE.read_text(encoding="utf-8"))
    for node in table.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            t = _template(node.value)
            if t is not None:
                texts.append((f"_messages.{node.targets[0].id}", t))
    for path in _validators():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _call_name(node.func) in ("fail", "warn") and node.args:
                t = _template(node.args[0])
                if t is not None:
                    texts.append((f"_validate.{path.stem}:{node.lineno}", t))
    return texts


def test_each_text_is_written_once():
    seen = {}
    twice = []
    for where, text in _owned_texts():
        if text in seen:
            twice.append((text, seen[text], where))
        seen.setdefault(text, where)
    assert twice == []
    assert len(seen) > 400  # the check reads the texts (about 440 of them)


@pytest.mark.parametrize("name", ["NANS_PRODUCED", "APPROX_TWO_VALUES", "FOREIGN_NONFINITE", "PREDAB_INTERCEPTS"])
def test_a_text_the_ports_and_the_front_ends_share_lives_in_the_table(name):
    """R's texts that a port raises and a front end raises too: the front end's validator reads the table."""
    import calstats._messages as m

    source = "".join(p.read_text(encoding="utf-8") for p in _validators())
    assert re.search(rf"\b{name}\b", source) and getattr(m, name) not in source


def test_each_validator_is_defined_once():
    """The package's modules are re-exported by star imports: a name defined in two of them
    would silently shadow the other."""
    where = {}
    twice = []
    for path in _validators():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else [
                t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            for name in names:
                if name in where:
                    twice.append((name, where[name], path.stem))
                where.setdefault(name, path.stem)
    assert twice == []
    assert len(where) > 300
