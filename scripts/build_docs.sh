#!/usr/bin/env bash
# Build the documentation into build/docs/ (HTML): the API reference from the docstrings
# (Sphinx, autodoc + numpydoc) and the vignettes rendered with their outputs.
#
#   scripts/build_docs.sh            # API reference and every vignette
#   scripts/build_docs.sh --no-vignettes
#
# Needs the docs extra: .venv/bin/pip install -e '.[docs]'
set -euo pipefail
cd "$(dirname "$0")/.."
bin=".venv/bin"
[ -x "$bin/sphinx-build" ] || bin="$(dirname "$(command -v sphinx-build)")"
rm -rf build/docs docs/api/generated
"$bin/sphinx-build" -q -b html docs build/docs
if [ "${1:-}" != "--no-vignettes" ]; then
    scripts/render_vignettes.sh
    mkdir -p build/docs/vignettes
    cp build/vignettes/*.html build/docs/vignettes/
fi
echo "build_docs: open build/docs/index.html"
