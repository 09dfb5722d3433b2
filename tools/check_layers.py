"""Check calstats' import layers: no circle, and no import that runs upward.

    python tools/check_layers.py [--graph]

Reads the layer table of ``docs/DESIGN.md`` (the rows ``| n | name | modules |`` under the
heading "Layers"), walks the syntax tree of every module of ``calstats`` -- imports inside
functions, methods and ``if TYPE_CHECKING:`` blocks included -- and fails (exit 1) on

* a module that no row of the table names,
* an import of a module of a higher layer than the importer's,
* a circle: modules that import each other, directly or through others (Tarjan's strongly
  connected components; a circle inside one layer is as much a defect as one across).

A row names modules as dotted names; ``pkg.*`` stands for a package and everything under
it, and the most specific name wins (``calstats.evaluation.compare`` over
``calstats.evaluation.*``). It imports nothing of the package, so it runs before the
package is installed. ``--graph`` prints the layer of every module and its imports.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "calstats"


def modules(package_dir: Path) -> dict[str, Path]:
    """Dotted name -> file, for every ``.py`` file of the package."""
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def layer_table(design: Path) -> list[tuple[int, str, list[str]]]:
    """``(number, name, patterns)`` rows of the table under the "Layers" heading."""
    text = design.read_text(encoding="utf-8")
    match = re.search(r"^## Layers\b.*?$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    if match is None:
        raise SystemExit(f"{design}: no '## Layers' section")
    rows = []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            patterns = [p.strip(" `") for p in cells[2].split(",") if p.strip(" `")]
            rows.append((int(cells[0]), cells[1].strip("* "), patterns))
    if not rows:
        raise SystemExit(f"{design}: the Layers section has no table rows '| n | name | modules |'")
    return rows


def assign(mods, rows):
    """Module -> (layer number, layer name); the most specific pattern wins."""
    out, unassigned = {}, []
    for mod in mods:
        best = None
        for number, name, patterns in rows:
            for pat in patterns:
                if pat.endswith(".*"):
                    base = pat[:-2]
                    hit = mod == base or mod.startswith(base + ".")
                    score = len(base)
                else:
                    hit = mod == pat
                    score = len(pat) + 1  # an exact name beats a package pattern of equal length
                if hit and (best is None or score > best[0]):
                    best = (score, number, name)
        if best is None:
            unassigned.append(mod)
        else:
            out[mod] = best[1:]
    return out, unassigned


def imports(mods, root=PACKAGE):
    """``(importer, imported, line)`` for every import of a module of the package."""
    edges = []
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    if node.level > 1:
                        base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                # `from pkg import name` imports the submodule pkg.name when there is one
                targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names]
            for target in targets:
                while target and target not in mods:  # `import a.b.c` of a function name, etc.
                    target = target.rpartition(".")[0]
                if target and target != mod and target.split(".")[0] == root:
                    edges.append((mod, target, node.lineno))
    return edges


def circles(mods, edges):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    graph = {m: sorted({b for a, b, _ in edges if a == m}) for m in mods}
    index, low, on, stack, out, counter = {}, {}, set(), [], [], 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check(package_dir: Path, design: Path):
    """``(problems, layer, edges, circles)`` of the package at ``package_dir`` against the
    layer table of ``design``."""
    mods = modules(package_dir)
    layer, unassigned = assign(mods, layer_table(design))
    edges = imports(mods, package_dir.name)
    problems = [f"{m}: no layer in {design.name} names this module" for m in unassigned]
    for a, b, line in sorted(set(edges)):
        if a in layer and b in layer and layer[b][0] > layer[a][0]:
            problems.append(f"{mods[a].relative_to(package_dir.parent)}:{line}: {a} ({layer[a][1]}) imports {b} "
                            f"({layer[b][1]}), a higher layer")
    found = circles(mods, edges)
    problems += [f"circle: {', '.join(c)}" for c in found]
    return problems, layer, edges, found, mods, unassigned


def main(argv):
    problems, layer, edges, found, mods, unassigned = check(ROOT / PACKAGE, ROOT / "docs" / "DESIGN.md")
    if "--graph" in argv:
        for m in sorted(mods, key=lambda m: (layer.get(m, (99,))[0], m)):
            deps = sorted({b for a, b, _ in edges if a == m})
            print(f"{layer.get(m, (0, '?'))[1]:>12}  {m}: {', '.join(deps)}")
    for p in problems:
        print(p)
    upward = sum("a higher layer" in p for p in problems)
    print(f"import layers: {len(mods)} modules, {len(edges)} imports, {upward} upward, "
          f"{len(found)} circles ({sum(len(c) for c in found)} modules in circles), {len(unassigned)} unassigned")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
