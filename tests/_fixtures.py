"""Access to the R reference fixtures copied into ``tests/fixtures/``."""

import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture(name):
    """The parsed JSON of ``tests/fixtures/<name>`` (``name`` with or without ``.json``)."""
    name = name if name.endswith(".json") else name + ".json"
    with open(FIXTURES / name, encoding="utf-8") as fh:
        return json.load(fh)
