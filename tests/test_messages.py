"""Every user-facing message is written once: in a validator of the calstats._validate package, or in
the table it owns, calstats._messages (the texts of the layers below it: numerics, rng, ports and the
base modules). A message is the text of fail/warn, of warnings.warn and of any exception class (builtin,
the command line's CliError/CommandError, argparse's). Read from the source, as tools/check_layers.py
reads the imports."""

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "calstats"
#: the validators' package, and the table it owns
VALIDATE = PACKAGE / "_validate"
TABLE = PACKAGE / "_messages.py"
#: the calls that raise or warn with a text (besides every exception class, :data:`EXCEPTION`)
RAISERS = {"fail", "_fail", "warn", "_warn", "CalstatsError", "CalstatsWarning", "OptionError", "CliError",
           "CommandError"}
#: an exception class by its name (ValueError, TypeError, argparse.ArgumentTypeError, CliError ...): its
#: text is a message like any other
EXCEPTION = re.compile(r"(Error|Exception)$")
#: the internal invariant checks that keep their text in place, ``(module, function): reason``; only
#: an AssertionError or a RuntimeError whose text says "internal" may be listed (a text a user can
#: meet is a message). None today.
INTERNAL: dict[tuple[str, str], str] = {}
INTERNAL_TYPES = ("AssertionError", "RuntimeError")
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


def _raises(name):
    """Whether a call of this name raises or warns with its first argument as the text."""
    return name is not None and (name in RAISERS or name == "warnings.warn" or EXCEPTION.search(name) is not None)


def _functions(tree):
    """``node -> name`` of the innermost function around each node (``""`` at module level)."""
    around = {}

    def visit(node, name):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            around[child] = inner
            visit(child, inner)

    visit(tree, "")
    return around


def _texts_outside(path, internal=()):
    """``(line, what)`` of each text written outside the owners: a message constant, or a
    literal text given to a call that raises or warns (any exception class among them), except
    the internal checks of the functions named in ``internal`` (see :data:`INTERNAL`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if CONSTANT.match(node.targets[0].id) and _has_text(node.value):
                out.append((node.lineno, f"constant {node.targets[0].id}"))
    around = _functions(tree)
    for node in ast.walk(tree):
        name = isinstance(node, ast.Call) and _call_name(node.func)
        if name and _raises(name) and node.args and _written_text(node.args[0]):
            if (around.get(node, ""), name) in {(fn, t) for fn in internal for t in INTERNAL_TYPES} \
                    and "internal" in (_template(node.args[0]) or ""):
                continue
            out.append((node.lineno, f"text in {name}()"))
    return out


def test_no_message_is_written_outside_validate_and_its_table():
    found = [f"{_rel(p)}:{line}: {what}" for p in _modules() if not _owner(p)
             for line, what in _texts_outside(p, [fn for (module, fn) in INTERNAL if module == _rel(p)])]
    assert found == []
    # an internal check listed is still there, still an internal text (else its entry goes)
    stale = [(module, fn) for module, fn in INTERNAL
             if len(_texts_outside(PACKAGE / module, [fn])) == len(_texts_outside(PACKAGE / module))]
    assert stale == []


def test_the_check_reads_a_message_written_in_place(tmp_path):
    """The check itself: a constant and a literal text outside the owners are found, in a call
    of the library's raisers, of any exception class (builtin, argparse's, the command line's)
    and of ``warnings.warn``; an internal check is passed over only when it is listed, raises an
    AssertionError or a RuntimeError, and says "internal"."""
    mod = tmp_path / "front.py"
    mod.write_text(
        '_MSG_X = "Argument `x` is wrong."\n\n'
        'def f(x):\n    fail(f"Argument `{x}` is wrong.")\n\n'
        'def g(x):\n    raise ValueError("x must be " + "positive")\n\n'
        'def h(path):\n    raise CliError(f"cannot read \'{path}\'", status=2) from None\n\n'
        'def i(path):\n    raise CommandError("cannot write {}".format(path))\n\n'
        'def j(text):\n    raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")\n\n'
        'def k():\n    warnings.warn("a warning", UserWarning)\n    raise MyOwnException("oops")\n\n'
        'def internal():\n    raise RuntimeError("internal: the blocks disagree")\n\n'
        'def typed():\n    raise TypeError("internal: the blocks disagree")\n\n'
        'def fine(name, msg):\n    raise KeyError(name)\n    raise ValueError(msg)\n    raise ValueError(X.format(a=1))\n')
    expected = ["constant _MSG_X", "text in fail()", "text in ValueError()", "text in CliError()",
                "text in CommandError()", "text in ArgumentTypeError()", "text in warnings.warn()",
                "text in MyOwnException()", "text in RuntimeError()", "text in TypeError()"]
    assert [what for _, what in _texts_outside(mod)] == expected
    # listed: the RuntimeError that says "internal" is passed over; a TypeError never is
    assert [what for _, what in _texts_outside(mod, ["internal", "typed"])] == expected[:8] + expected[9:]


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
    """Every text of the owners: the table's constants and the texts the validators raise or warn
    (through ``fail``/``warn`` or an exception class of their own: the builtin ones the
    scikit-learn adapter keeps, the command line's)."""
    texts = []
    table = ast.parse(TABLE.read_text(encoding="utf-8"))
    for node in table.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            t = _template(node.value)
            if t is not None:
                texts.append((f"_messages.{node.targets[0].id}", t))
    for path in _validators():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _raises(_call_name(node.func)) and node.args:
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
    assert len(seen) > 550  # the check reads the texts (about 590 of them)
    # the command line's and the adapter's, raised as their own exception classes, are among them
    assert {where.split(":")[0] for where, _ in _owned_texts()} >= {"_validate.cli", "_validate.adapter"}


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
