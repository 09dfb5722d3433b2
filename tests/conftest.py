import os
import sys
from pathlib import Path

from hypothesis import settings

# The R-case helpers live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

# The suite (and so CI) draws the same hypothesis examples on every run, so that a red run is
# reproducible and a green one stays green. To search for new counterexamples,
# run with new random draws: HYPOTHESIS_PROFILE=explore python -m pytest -q (repeat it; a failure
# it finds is kept in .hypothesis/ and replayed, and belongs in the test as an @example).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
