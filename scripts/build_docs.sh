#!/usr/bin/env bash
# Build the documentation into build/docs/ (HTML): the API reference from the docstrings
# (Sphinx: autodoc, autosummary, numpydoc), the background pages of docs/, and the
# vignettes (vignettes/*.py), executed by myst-nb with their output and figures.
#
#   scripts/build_docs.sh               # everything (about two minutes)
#   scripts/build_docs.sh --no-execute  # vignettes shown as code, not run (seconds)
#
# Needs the docs extra: .venv/bin/pip install -e '.[docs]'
# Sphinx runs on a copy in build/docs-src/, so the repository stays free of generated
# files. Warnings are written to build/docs-warnings.txt and counted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=".venv/bin"
[ -x "$bin/sphinx-build" ] || bin="$(dirname "$(command -v sphinx-build)")"
execute=force
case "${1:-}" in
    "") ;;
    --no-execute|--no-vignettes) execute=off ;;
    *) echo "build_docs: unknown option: $1 (use --no-execute)" >&2; exit 2 ;;
esac
src="build/docs-src"
out="build/docs"
log="build/docs-warnings.txt"
rm -rf "$src" "$out" build/jupyter_execute
mkdir -p "$src"
cp -R docs/. "$src/"
rm -rf "$src/api"              # stale autosummary pages of a direct sphinx-build docs/
mkdir -p "$src/vignettes"
cp vignettes/*.py "$src/vignettes/"
# (the kernels' notice about unencrypted local TCP transport is noise: filtered out)
CALSTATS_DOCS_EXECUTE="$execute" MPLBACKEND=module://matplotlib_inline.backend_inline \
    "$bin/sphinx-build" -q -b html -w "$log" "$src" "$out" \
    2> >(grep -v "Kernel is running over TCP without encryption" >&2)
n=$(grep -c "WARNING\|ERROR" "$log" || true)
echo "build_docs: $n warning(s) (see $log); open $out/index.html"
