"""``calstats report``: the page of a predictions file (or of the bundled data), written
atomically, never over an existing file without --force and never over an input."""

import hashlib
import os

import numpy as np
import pandas as pd
import pytest

from _report_html import parse
from calstats import cli
from calstats.reporting import report


def _run(args, capsys):
    status = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out, out.err


def _digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture(scope="module")
def data():
    rs = np.random.default_rng(21)
    n = 300
    s = rs.normal(size=n)
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    a, b = 1 / (1 + np.exp(-s)), 1 / (1 + np.exp(-2 * s))
    t = rs.exponential(1 / np.exp(s))
    c = rs.exponential(2, n)
    t2 = rs.exponential(1 / np.exp(-0.4 * s - 1))
    cr_time = np.minimum.reduce([t, t2, c])
    event = np.select([t <= np.minimum(t2, c), t2 <= np.minimum(t, c)], [1, 2], 0)
    return {"y": y, "a": a, "b": b, "time": np.minimum(t, c), "status": (t <= c).astype(int), "cr_time": cr_time,
            "event": event}


@pytest.fixture
def files(tmp_path, data):
    wide = pd.DataFrame({"y": data["y"], "a": data["a"], "b": data["b"]})
    wide.to_csv(tmp_path / "wide.csv", index=False)
    pd.concat([pd.DataFrame({"model": "A", "y": data["y"], "p": data["a"]}),
               pd.DataFrame({"model": "B", "y": data["y"], "p": data["b"]})]).to_csv(tmp_path / "long.csv", index=False)
    (tmp_path / "parts").mkdir()
    wide.iloc[:150].to_parquet(tmp_path / "parts" / "0.parquet")
    wide.iloc[150:].to_parquet(tmp_path / "parts" / "1.parquet")
    pd.DataFrame({"time": data["time"], "status": data["status"], "risk": data["a"]}).to_csv(tmp_path / "tte.csv",
                                                                                             index=False)
    pd.DataFrame({"time": data["cr_time"], "event": data["event"], "risk": data["a"]}).to_csv(tmp_path / "cr.csv",
                                                                                             index=False)
    holes = wide.copy()
    holes.loc[9, "b"] = np.nan
    holes.to_csv(tmp_path / "holes.csv", index=False)
    return tmp_path


def _numbers(path):
    return {(n["data-section"], n["data-stat"], n["data-model"], n["data-part"]): float(n["data-value"])
            for n in parse(open(path, encoding="utf-8").read()).numbers if "data-stat" in n}


def test_the_bundled_data_report_is_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(["report"], capsys)  # its speed: benchmarks/bench_report.py
    assert status == 0, err
    assert "Report written to" in out and "SVM + Platt" in out and "random forest" in out
    text = open(tmp_path / "report.html", encoding="utf-8").read()
    page = parse(text)
    assert page.sections[-1] == "provenance" and len(page.sections) == 9 and len(page.figures) == 9
    # the page says how to rerun it with public calls: the code that makes p and y, then the call
    import html as _html

    import calstats

    block = _html.unescape(text.split('<pre class="rerun"><code>')[1].split("</code>")[0])
    source, call = block.rsplit("\n", 1)
    ns: dict = {}
    exec(source, ns)  # noqa: S102 - the page's own code
    assert call.startswith("calstats.report(p, y, title=")
    rerun = eval(call.replace("calstats.report(p, y,", "calstats.report(p, y, sections=['binned', 'tests'],"),
                 {**ns, "calstats": calstats})  # noqa: S307
    def part(numbers):
        return {k: v for k, v in numbers.items() if k[0] in ("data", "binned", "tests")}

    assert len(part(_numbers_of(rerun))) > 20 and part(_numbers_of(rerun)) == part(_numbers(tmp_path / "report.html"))
    mode = os.stat(tmp_path / "report.html").st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # an ordinary file, not the private temporary one


def test_the_default_page_is_replaced_as_compare_replaces_its_plot(files, capsys, monkeypatch):
    """The README's commands run twice: report.html, like compare's reliability.png, is ours
    to replace; a name the user gives needs --force."""
    monkeypatch.chdir(files)
    for _ in range(2):
        status, out, err = _run(["report", "wide.csv", "--label", "y", "--models", "a", "b", "--sections", "binned"],
                                capsys)
        assert status == 0, err
        assert "Report written to" in out
    text = (files / "report.html").read_text(encoding="utf-8")
    assert "# made from the file by: calstats report wide.csv --label y --models a b --sections binned" in text


def test_an_existing_page_is_kept_without_force(files, capsys):
    out = files / "r.html"
    out.write_text("mine")
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "b", "-o", out,
                           "--sections", "binned"], capsys)
    assert status == 1 and out.read_text() == "mine"
    assert err.count("\n") == 1 and "exists; pass --force" in err
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "b", "-o", out,
                           "--sections", "binned", "--force"], capsys)
    assert status == 0, err
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_the_page_never_replaces_the_data(files, capsys):
    before = _digest(files / "wide.csv")
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "b", "-o",
                           files / "wide.csv", "--force"], capsys)
    assert status == 1 and _digest(files / "wide.csv") == before
    assert "it is the data file" in err


def test_the_page_is_written_atomically(files, capsys, monkeypatch):
    from calstats.reporting import CalibrationReport

    out = files / "r.html"
    out.write_text("old page")

    def broken(self, path=None):
        open(path, "w").write("<!DOCTYPE html><html><body>half a pa")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(CalibrationReport, "to_html", broken)
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "--sections", "binned",
                           "-o", out, "--force"], capsys)
    assert status == 1 and "No space left on device" in err
    assert out.read_text() == "old page"
    assert sorted(p.name for p in files.iterdir() if p.name.startswith(".r.html")) == []


def test_models_side_by_side_give_the_api_numbers(files, data, capsys):
    out = files / "w.html"
    status, stdout, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "b", "-o", out,
                                "--sections", "discrimination", "binned", "tests"], capsys)
    assert status == 0, err
    api = report({"a": data["a"], "b": data["b"]}, data["y"], sections=["discrimination", "binned", "tests"])
    assert _numbers(out) == _numbers_of(api)
    assert "2 models: a, b" in stdout


def _numbers_of(rep):
    return {(n["data-section"], n["data-stat"], n["data-model"], n["data-part"]): float(n["data-value"])
            for n in parse(rep.to_html()).numbers if "data-stat" in n}


def test_a_long_table_with_a_model_column(files, data, capsys):
    out = files / "l.html"
    status, _, err = _run(["report", files / "long.csv", "--label", "y", "--model-column", "model", "-o", out,
                           "--sections", "binned"], capsys)
    assert status == 0, err
    api = report({"A": data["a"], "B": data["b"]}, data["y"], sections=["binned"])
    assert _numbers(out) == _numbers_of(api)


def test_a_long_table_whose_models_score_different_cases(files, capsys):
    frame = pd.read_csv(files / "long.csv")
    frame.loc[frame.index[-1], "y"] = 1 - frame["y"].iloc[-1]
    frame.to_csv(files / "long2.csv", index=False)
    status, _, err = _run(["report", files / "long2.csv", "--label", "y", "--model-column", "model", "-o",
                           files / "x.html"], capsys)
    assert status == 1 and "must score the same cases in the same order" in err and err.count("\n") == 1


def test_a_directory_of_parquet_files_is_read_through_dask(files, data, capsys):
    out = files / "d.html"
    status, _, err = _run(["report", files / "parts", "--label", "y", "--models", "a", "b", "-o", out,
                           "--sections", "binned", "tests"], capsys)
    assert status == 0, err
    assert "read '" in err and "with Dask (2 partitions)" in err
    api = report({"a": data["a"], "b": data["b"]}, data["y"], sections=["binned", "tests"])
    assert _numbers(out) == _numbers_of(api)


def test_a_time_to_event_file(files, capsys):
    out = files / "t.html"
    status, stdout, err = _run(["report", files / "tte.csv", "--time", "time", "--status", "status", "--horizon", "1",
                                "-o", out], capsys)
    assert status == 0, err
    assert "Time-to-event outcome (risks by time 1)" in stdout
    assert parse(out.read_text(encoding="utf-8")).sections == ["data", "discrimination", "accuracy", "hierarchy",
                                                               "curve", "decision", "provenance"]
    status, _, err = _run(["report", files / "tte.csv", "--time", "time", "--status", "status", "-o", out,
                           "--force"], capsys)
    assert status == 2 and "--horizon" in err


def test_a_competing_risk_file(files, data, capsys):
    out = files / "cr.html"
    args = ["report", files / "cr.csv", "--time", "time", "--status", "event", "--horizon", "1"]
    status, stdout, err = _run(args + ["--cause", "1", "-o", out], capsys)
    assert status == 0, err
    assert "Competing-risk outcome (risks of cause 1 by time 1)" in stdout
    assert parse(out.read_text(encoding="utf-8")).sections == ["data", "discrimination", "accuracy", "binned",
                                                               "decision", "provenance"]
    api = report({"risk": data["a"]}, (data["cr_time"], data["event"]), time=1.0, cause=1)
    assert _numbers(out) == _numbers_of(api)
    # event codes of two causes need --cause, and --cause a cause of the column
    status, _, err = _run(args + ["-o", files / "x.html"], capsys)
    assert status == 2 and "holds the event codes 0, 1, 2" in err and "--cause" in err and err.count("\n") == 1
    status, _, err = _run(args + ["--cause", "3", "-o", files / "x.html"], capsys)
    assert status == 2 and "--cause 3 is not a cause" in err
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--columns", "a", "--cause", "1", "-o",
                           files / "x.html"], capsys)
    assert status == 2 and "--cause is for a competing-risk outcome" in err


def test_assess_of_a_time_to_event_file(files, data, capsys):
    from calstats.clinical import concordance, cox_calibration_slope, time_brier

    status, out, err = _run(["assess", files / "tte.csv", "--time", "time", "--status", "status", "--horizon", "1"],
                            capsys)
    assert status == 0, err
    c = concordance(data["time"], data["status"], data["a"])
    assert c.print_text().rstrip("\n") in out  # R's print of each result
    assert cox_calibration_slope(data["time"], data["status"], data["a"], risk=True).print_text().strip() in out
    b = time_brier(data["time"], data["status"], data["a"], [1.0])
    assert b.print_text().rstrip("\n") in out
    assert f"IPA of 'risk' at time 1: {100 * b.score.IPA.iloc[1]:.1f}%" in out
    assert "Time-dependent AUC at 0.25, 0.5, 0.75, 1" in out and "Flexible calibration curve" in out
    status, out, err = _run(["assess", files / "cr.csv", "--time", "time", "--status", "event", "--horizon", "1",
                             "--cause", "2"], capsys)
    assert status == 0, err
    assert "competing risks:" in out and "risks of cause 2 by time 1" in out
    assert "Cumulative incidence by time 1" in out and "Calibration at time 1, cause 2" in out
    status, _, err = _run(["assess", files / "tte.csv", "--time", "time", "--status", "status"], capsys)
    assert status == 2 and "--horizon T" in err
    status, _, err = _run(["assess", files / "cr.csv", "--time", "time", "--status", "event", "--horizon", "1"],
                          capsys)
    assert status == 2 and "--cause" in err


def test_a_missing_value_names_the_cell(files, capsys):
    status, _, err = _run(["report", files / "holes.csv", "--label", "y", "--models", "a", "b", "-o",
                           files / "h.html"], capsys)
    assert status == 1 and err.count("\n") == 1
    assert "column 'b' of" in err and "missing value in data row 10 (line 11 of a CSV file)" in err


def test_several_columns_that_are_no_class_probabilities(files, capsys):
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "-o", files / "x.html"], capsys)
    assert status == 1 and err.count("\n") == 1 and "--input" not in err  # report has no --input
    assert "read as one multiclass model" in err and "--models a b" in err


def test_model_options_that_do_not_go_together(files, capsys):
    status, _, err = _run(["report", files / "wide.csv", "--label", "y", "--columns", "a", "--models", "b"], capsys)
    assert status == 2 and "do not go together" in err


def test_the_page_on_standard_output(files, capsys):
    status, out, err = _run(["report", files / "wide.csv", "--label", "y", "--models", "a", "-o", "-",
                             "--sections", "binned"], capsys)
    assert status == 0
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert "Calibration report" in err  # the summary goes to stderr, beside the page
