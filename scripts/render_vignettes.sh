#!/usr/bin/env bash
# Render vignettes to HTML with their outputs and figures, into build/vignettes/.
#
#   scripts/render_vignettes.sh                 # every vignette
#   scripts/render_vignettes.sh introduction    # one (name without .py)
#
# Needs jupytext, nbconvert and ipykernel in the environment (the venv's, if there is one):
#   .venv/bin/pip install jupytext nbconvert ipykernel
# CALSTATS_FULL=1 selects the full-size settings.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=".venv/bin"
[ -x "$bin/jupytext" ] || bin="$(dirname "$(command -v jupytext)")"
out="build/vignettes"
mkdir -p "$out"
if [ $# -eq 0 ]; then
    set -- $(for f in vignettes/*.py; do basename "$f" .py; done)
fi
for name in "$@"; do
    src="vignettes/$name.py"
    [ -f "$src" ] || { echo "render_vignettes: no such vignette: $src" >&2; exit 1; }
    "$bin/jupytext" --to ipynb --output "$out/$name.ipynb" "$src"
    "$bin/jupyter" nbconvert --to html --execute --ExecutePreprocessor.timeout=600 \
        --ExecutePreprocessor.kernel_name=python3 --output-dir "$out" "$out/$name.ipynb"
    echo "render_vignettes: $out/$name.html"
done
