"""Build of calstats' C core (everything else is declared in pyproject.toml).

The flags keep R's arithmetic: no -ffast-math (no reassociation of sums), and
-ffp-contract=off so that no fused multiply-add changes a rounding (MSVC: /fp:precise, which
contracts nothing unless /fp:contract is given).

The core is optional: when it cannot be compiled (no C compiler, no Python headers, or
``CC=false``), the installation prints one line and goes on without it, and calstats runs on
its NumPy backend (the same numbers, slower), which it says once on import. Set
``CALSTATS_REQUIRE_CORE=1`` to make a failed build an error instead (the wheel builds do).
"""

import os
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_GCC_FLAGS = ["-O3", "-std=c99", "-fno-fast-math", "-ffp-contract=off", "-fno-associative-math",
              "-fno-reciprocal-math", "-fno-finite-math-only", "-fsigned-zeros", "-fno-unsafe-math-optimizations"]

#: The fast engine's flags: vectorisation allowed, but no -ffast-math (its NaN and
#: infinity handling is kept) and its sums' order is the code's own (pairwise).
_GCC_FAST_FLAGS = ["-O3", "-std=c99", "-fno-math-errno", "-fno-trapping-math"]

#: MSVC: C11 (``restrict``), strict IEEE semantics without contraction for R's core.
_MSVC_FLAGS = ["/O2", "/std:c11", "/fp:precise"]
_MSVC_FAST_FLAGS = ["/O2", "/std:c11", "/fp:precise"]

_NO_CORE = ("calstats: C core not built ({why}); calstats will run on its NumPy backend (same numbers, slower). "
            "For the compiled engine install a C compiler and the Python headers and reinstall.")


def _required():
    return os.environ.get("CALSTATS_REQUIRE_CORE", "").strip().lower() in ("1", "true", "yes")


class OptionalBuildCore(build_ext):
    """build_ext whose failure (no compiler, no headers) is one line and not an error."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        for ext in self.extensions:
            fast = ext.name.endswith("._fast")
            if msvc:
                ext.extra_compile_args = list(_MSVC_FAST_FLAGS if fast else _MSVC_FLAGS)
            else:
                ext.extra_compile_args = list(_GCC_FAST_FLAGS if fast else _GCC_FLAGS)
            if sys.platform != "win32":
                ext.libraries = ["m"]
        super().build_extensions()

    def run(self):
        include = sysconfig.get_paths()["include"]
        if not os.path.exists(os.path.join(include, "Python.h")):
            return self._skip(f"the Python headers are missing: {include}/Python.h")
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, DistutilsExecError, PlatformError, ...
            self._skip(f"the C compiler failed: {type(exc).__name__}")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # one module that does not compile: the others still count
            self._skip(f"{ext.name} did not compile: {type(exc).__name__}")

    def _skip(self, why):
        if _required():
            raise SystemExit(f"calstats: cannot build its C core ({why}) and CALSTATS_REQUIRE_CORE is set")
        print(_NO_CORE.format(why=why), file=sys.stderr)


_HEADERS = ["calstats/numerics/_exp_replica.h", "calstats/numerics/_exp_table.h", "calstats/numerics/_bins.h",
            "calstats/numerics/_portable.h"]

setup(
    ext_modules=[
        Extension("calstats.numerics._core", ["calstats/numerics/_core.c"], depends=_HEADERS),
        Extension("calstats.numerics._passes", ["calstats/numerics/_passes.c"], depends=_HEADERS),
        # R's scalar loops (stats' clowess, libm pow); NumPy references in ports/stats/lowess.py
        Extension("calstats.numerics._loops", ["calstats/numerics/_loops.c"]),
        # the fast engine is not R's arithmetic: it may vectorise and reassociate its own sums
        Extension("calstats.numerics._fast", ["calstats/numerics/_fast.c"], depends=_HEADERS),
    ],
    cmdclass={"build_ext": OptionalBuildCore},
)
