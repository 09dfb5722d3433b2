"""calstats.report's page in a real browser: headless Chromium lays out and draws a binary, a
multiclass, a multi-model, a time-to-event (risks by several times) and a competing-risk
report, and every figure must be there.

How a missing figure is caught, twice over:

1. **Layout.** A copy of the page gets a small script (the report itself has none) that
   writes, after layout, the box of every ``<figure class="fig">``'s ``<svg>`` into the
   DOM; ``chromium --dump-dom`` prints it. Every figure of the report must have a box at
   least 200 x 150 CSS pixels inside the page width, and the page must not overflow
   sideways.
2. **Pixels.** The page itself (no script) is shot with ``--screenshot`` in a window as tall
   as the page, at the same width, so the boxes of step 1 are the figures' places in the
   PNG. Inside each box at least 2% of the pixels must be drawn (clearly darker than the
   white background) and the box must hold several colours: an SVG that is laid out but
   renders nothing (a broken reference, an empty drawing) is a white rectangle and fails.

Chromium is required: without it this test fails (CI installs it, see ``.ci/run``).
``CALSTATS_REPORT_SHOTS=<dir>`` keeps the screenshots there.
"""

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from calstats.reporting import report

_PROBE = """<script>
(function () {
  var out = {width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight, figures: []};
  document.querySelectorAll("figure.fig").forEach(function (f) {
    var s = f.querySelector("svg"), r = s.getBoundingClientRect();
    out.figures.push({section: f.dataset.section, model: f.dataset.model, x: r.left + window.scrollX,
                      y: r.top + window.scrollY, w: r.width, h: r.height});
  });
  var pre = document.createElement("pre");
  pre.id = "probe"; pre.style.display = "none"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""

WIDTH = 1280


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    pytest.fail("Chromium is needed for the rendering check of calstats.report and was not found: install it "
                "(Debian: apt-get install -y chromium; .ci/run does) or put 'chromium' on the PATH.")


def _run(args, profile):
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           f"--user-data-dir={profile}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _layout(page: Path, tmp: Path) -> dict:
    probe = tmp / (page.stem + "-probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "\n</body>"), encoding="utf-8")
    dom = _run(["--dump-dom", "--virtual-time-budget=5000", f"--window-size={WIDTH},1000", probe.as_uri()],
               tmp / "profile")
    m = re.search(r'<pre id="probe"[^>]*>(.*?)</pre>', dom, flags=re.S)
    assert m, "the probe did not run"
    return json.loads(html.unescape(m.group(1)))


def _screenshot(page: Path, tmp: Path, height: int) -> Path:
    png = tmp / (page.stem + ".png")
    _run([f"--screenshot={png}", f"--window-size={WIDTH},{height}", page.as_uri()], tmp / "profile")
    assert png.exists() and png.stat().st_size > 0
    keep = os.environ.get("CALSTATS_REPORT_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / png.name)
    return png


def _check_page(rep, name, tmp_path):
    from PIL import Image

    page = tmp_path / f"{name}.html"
    rep.to_html(page)
    expected = [(s.id, f.model or "*") for s in rep.sections for f in s.figures]
    layout = _layout(page, tmp_path)
    assert layout["width"] <= WIDTH, "the page overflows sideways"
    figs = layout["figures"]
    assert [(f["section"], f["model"]) for f in figs] == expected
    for f in figs:
        assert f["w"] >= 200 and f["h"] >= 150, f
        assert f["x"] >= 0 and f["x"] + f["w"] <= WIDTH, f
    height = int(layout["height"]) + 10
    shot = _screenshot(page, tmp_path, height)
    img = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int32)
    assert img.shape[1] == WIDTH and img.shape[0] >= layout["height"]
    for f in figs:
        x0, y0 = int(f["x"]) + 2, int(f["y"]) + 2
        x1, y1 = int(f["x"] + f["w"]) - 2, int(f["y"] + f["h"]) - 2
        box = img[y0:y1, x0:x1]
        drawn = (255 - box).sum(axis=2) > 60
        assert drawn.mean() > 0.02, (f, drawn.mean())
        colours = np.unique(box.reshape(-1, 3)[::7], axis=0)
        assert len(colours) > 8, (f, len(colours))
    return figs


@pytest.fixture(scope="module")
def cases():
    rs = np.random.default_rng(31)
    n = 300
    s = rs.normal(size=n) * 1.3
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    z = rs.normal(size=(n, 3)) * 1.5
    P = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    codes = np.array([rs.choice(3, p=r) for r in P]) + 1
    Q = np.exp(1.6 * z) / np.exp(1.6 * z).sum(1, keepdims=True)
    lp = 0.9 * s
    t, c2 = rs.exponential(1 / np.exp(lp - 1)), rs.exponential(3, n)
    times = [0.25, 0.5, 0.75, 1.0]
    risks = {"cox": np.column_stack([1 - np.exp(-np.exp(lp - 1) * g) for g in times]),
             "weaker": np.column_stack([1 - np.exp(-np.exp(0.5 * lp - 1.1) * g) for g in times])}
    t2 = rs.exponential(1 / np.exp(-0.3 * s - 1.2))
    cr_time = np.minimum.reduce([t, t2, c2])
    event = np.select([t <= np.minimum(t2, c2), t2 <= np.minimum(t, c2)], [1, 2], 0)
    return {
        "binary": report(1 / (1 + np.exp(-s)), y, models="logistic"),
        "multiclass": report({"calibrated": pd.DataFrame(P, columns=list("abc")),
                              "sharp": pd.DataFrame(Q, columns=list("abc"))},
                             pd.Categorical.from_codes(codes - 1, list("abc"))),
        "multimodel": report({"calibrated": 1 / (1 + np.exp(-s)), "too extreme": 1 / (1 + np.exp(-2 * s)),
                              "too modest": 1 / (1 + np.exp(-0.5 * s + 0.2))}, y),
        "survival": report(risks, (np.minimum(t, c2), (t <= c2).astype(int)), time=times, n_boot=20),
        "competing": report({"cox": risks["cox"][:, -1]}, (cr_time, event), time=1.0, cause=1),
    }


@pytest.mark.parametrize("name", ["binary", "multiclass", "multimodel", "survival", "competing"])
def test_every_figure_is_laid_out_and_drawn_in_chromium(cases, name, tmp_path):
    rep = cases[name]
    figs = _check_page(rep, name, tmp_path)
    if name == "multimodel":
        # the models of a section side by side: the same top, left to right
        corp = [f for f in figs if f["section"] == "corp"]
        assert len(corp) == 3 and len({round(f["y"]) for f in corp}) == 1
        assert [f["x"] for f in corp] == sorted(f["x"] for f in corp)
    if name == "survival":  # AUC(t) and the Brier score beside the null model over time, each drawn
        assert [f["section"] for f in figs][:2] == ["discrimination", "accuracy"]
    if name == "competing":  # the cumulative incidences, AUC(t), the risk groups, the decision curve
        assert [f["section"] for f in figs] == ["data", "discrimination", "binned", "decision"]
    assert len(figs) == {"binary": 5, "multiclass": 6, "multimodel": 13, "survival": 5, "competing": 4}[name]
