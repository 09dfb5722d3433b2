"""Build of calstats' C core (everything else is declared in pyproject.toml).

The flags keep R's arithmetic: no -ffast-math (no reassociation of sums), and
-ffp-contract=off so that no fused multiply-add changes a rounding.  If the core cannot be
compiled the installation stops with one line saying what is missing; calstats never falls
back to a slower path without saying so.
"""

import os
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_FLAGS = ["-O3", "-std=c99", "-fno-fast-math", "-ffp-contract=off", "-fno-associative-math",
          "-fno-reciprocal-math", "-fno-finite-math-only", "-fsigned-zeros", "-fno-unsafe-math-optimizations"]


#: The fast engine's flags: vectorisation allowed, but no -ffast-math (its NaN and
#: infinity handling is kept) and its sums' order is the code's own (pairwise).
_FAST_FLAGS = ["-O3", "-std=c99", "-fno-math-errno", "-fno-trapping-math"]


class BuildCore(build_ext):
    """build_ext that turns a missing compiler or missing headers into one clear line."""

    def run(self):
        include = sysconfig.get_paths()["include"]
        if not os.path.exists(os.path.join(include, "Python.h")):
            raise SystemExit(
                f"calstats: cannot build its C core: the Python headers are missing ({include}/Python.h); "
                "install them (e.g. apt-get install python3-dev) and a C compiler (gcc), then retry"
            )
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, DistutilsExecError, ...
            raise SystemExit(
                "calstats: cannot build its C core (calstats/numerics/_*.c): a C compiler (gcc) and "
                f"the Python headers are required; the compiler failed ({type(exc).__name__}, see above)"
            ) from exc


setup(
    ext_modules=[
        Extension("calstats.numerics._core", ["calstats/numerics/_core.c"], extra_compile_args=_FLAGS,
                  depends=["calstats/numerics/_exp_replica.h", "calstats/numerics/_exp_table.h",
                           "calstats/numerics/_bins.h"],
                  libraries=["m"]),
        Extension("calstats.numerics._passes", ["calstats/numerics/_passes.c"], extra_compile_args=_FLAGS,
                  depends=["calstats/numerics/_exp_replica.h", "calstats/numerics/_exp_table.h"],
                  libraries=["m"]),
        # the fast engine is not R's arithmetic: it may vectorise and reassociate its own sums
        Extension("calstats.numerics._fast", ["calstats/numerics/_fast.c"], extra_compile_args=_FAST_FLAGS,
                  depends=["calstats/numerics/_bins.h"], libraries=["m"]),
    ],
    cmdclass={"build_ext": BuildCore},
)
