"""Reading a calibration report's page back: its numbers, sections and figures (for the
report tests; the page marks every number with the exact value it shows)."""

import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser


class PageNumbers(HTMLParser):
    """Collects ``<span class="n">`` (attributes and shown text), sections and figures."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.numbers = []
        self.sections = []
        self.figures = []
        self.svgs = 0
        self._open = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "span" and a.get("class") == "n":
            self._open = a
            self._text = []
        elif tag == "section":
            self.sections.append(a.get("data-section"))
        elif tag == "figure":
            self.figures.append((a.get("data-section"), a.get("data-model")))
        elif tag == "svg":
            self.svgs += 1

    def handle_data(self, data):
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "span" and self._open is not None:
            self.numbers.append({**self._open, "text": "".join(self._text)})
            self._open = None


def parse(page):
    """The page parsed twice: as XML (it must be well formed) and for its numbers."""
    ET.fromstring(page)
    p = PageNumbers()
    p.feed(page)
    p.close()
    return p


def shown_matches(text, value):
    """Whether the shown text is the value rounded as shown (its last digit, a percentage,
    ``< 0.0001`` for a tiny p-value, ``NA`` for a missing value)."""
    text = text.strip()
    if text == "NA":
        return math.isnan(value)
    if text.startswith("<"):
        return value < float(text[1:].strip())
    pct = text.endswith("%")
    body = text[:-1] if pct else text
    shown = float(body)
    if pct:
        shown /= 100
    m = re.fullmatch(r"-?\d+(?:\.(\d+))?", body)
    if m is None:  # scientific: three significant digits
        return math.isclose(shown, value, rel_tol=5e-3)
    decimals = len(m.group(1) or "") + (2 if pct else 0)
    return abs(shown - value) <= 0.5 * 10.0 ** (-decimals) * (1 + 1e-9) + 1e-12 * abs(value) + 1e-15


def same(a, b):
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or a == b
