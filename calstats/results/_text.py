"""The cli-style text of R's printed results: rules, headings and filled lines.

probcal prints with the cli package: an h1 rule ``── Title ───...`` as wide as the console,
h2 headings ``── Title ──`` and description-list items filled to the width. The rule
characters are Unicode or ASCII and the width is ``calstats`` option ``width``, as R's
``cli.unicode`` and ``width`` options decide them.
"""

import re

from .._options import get_option

__all__ = ["h1", "h2", "wrap_item"]


def _rule_chars():
    if get_option("unicode") is True:
        return "\u2500\u2500", "\u2500"
    return "--", "-"


def _width():
    return int(get_option("width"))


def h1(title: str) -> str:
    """cli's ``cli_h1(title)``: the title on a rule as wide as the console."""
    lead, fill = _rule_chars()
    emoji = "\u2696 " if get_option("emoji") is True else ""
    s = f"{lead} {emoji}{title} "
    width = _width()
    return s + fill * (width - len(s)) if len(s) < width else s[:width]


def h2(title: str) -> str:
    """cli's ``cli_h2(title)``."""
    lead, _ = _rule_chars()
    return f"{lead} {title} {lead}"


def wrap_item(text: str) -> list[str]:
    """Fill the words of one description-list item into lines of at most width - 1."""
    limit = _width() - 1
    lines, current = [], ""
    for word in re.split(r"\s+", text.strip()):
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= limit:
            current += " " + word
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return lines
