"""Shared pieces of the command line: constants, the one-line error, argparse, progress."""

import argparse
import sys
import threading
import time

from .. import _validate as v
from .._errors import CommandError
from .._validate import first_line  # noqa: F401 - the first line of an error, as the validators quote it
from ..calibrators import registry

PROG = "calstats"
#: the methods of :mod:`calstats.calibrators.registry`: R's cal_ovr base methods; every method
#: for one prediction column and for several
OVR_METHODS = registry.CAL_OVR
BINARY_METHODS = registry.BINARY
MULTICLASS_METHODS = registry.MULTICLASS
_PARQUET = (".parquet", ".pq")
_DATASETS = {
    "digits": "digit probabilities of a Gaussian naive Bayes classifier (10 classes)",
    "digits-forest": "digit probabilities of a 50-tree random forest (10 classes)",
    "digits-svm": "one-vs-rest linear SVM scores for the digits (10 classes)",
    "digits-3": '"is it a 3?": naive Bayes probabilities (binary)',
}
_MMCE_MAX_N = 20000  # mmce builds an n x n kernel matrix


#: An error reported as one line, ``calstats: error: <message>``, ending the command with its
#: ``status``: the base layer's :class:`calstats._errors.CommandError`, raised by the command
#: line's validators (:mod:`calstats._validate.cli`), where its messages are written.
CliError = CommandError


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block) raised as :class:`CliError`."""

    def error(self, message):
        v.fail_cli_usage(message, self.prog)



# --------------------------------------------------------------------------------------
# progress on stderr


class _Progress:
    """``with _Progress("fitting"):`` announces work on stderr and reports its duration.

    On a terminal a tqdm line shows the elapsed seconds while the work runs (and what
    :meth:`update` reports); otherwise one line before and one after.
    """

    def __init__(self, message, stream=None):
        self.message = message
        self.stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar = None
        self._stop = threading.Event()
        self._thread = None

    def _tick(self):
        while not self._stop.wait(0.5):
            self._bar.refresh()

    def update(self, text):
        """Report intermediate progress (e.g. ``"100/500"``)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text)
        else:
            self.stream.write(f"{PROG}: {self.message} ... {text}\n")
            self.stream.flush()

    def __enter__(self):
        self.t0 = time.monotonic()
        if self._tty:
            from tqdm import tqdm

            self._bar = tqdm(total=None, desc=f"{PROG}: {self.message}", file=self.stream, leave=False,
                             bar_format="{desc} ... {elapsed}{postfix}")
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        else:
            self.stream.write(f"{PROG}: {self.message} ...\n")
            self.stream.flush()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._bar is not None:
            self._bar.close()
        elapsed = time.monotonic() - self.t0
        if exc_type is None:
            self.stream.write(f"{PROG}: {self.message}: done in {elapsed:.1f} s\n")
        self.stream.flush()
        return False




def shortlist(names, limit=12):
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")
