"""``calstats assess --dask``: the same report as in memory, from files Dask reads in parts."""

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats.cli import main

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def digits_dir(tmp_path_factory):
    d = calstats.datasets.load_digits_probs("naive_bayes")
    folder = tmp_path_factory.mktemp("parts")
    for i, (a, b) in enumerate([(0, 700), (700, 701), (701, 1797)]):  # uneven parts, one of one row
        d.iloc[a:b].to_parquet(folder / f"part{i}.parquet", index=False)
    csv = folder.parent / "digits.csv"
    d.to_csv(csv, index=False)
    return folder, csv


def test_a_directory_of_parquet_files_gives_the_in_memory_report(capsys, digits_dir):
    folder, csv = digits_dir
    status, mem, _ = _run(capsys, "assess", str(csv), "--label", "label")
    assert status == 0
    status, got, err = _run(capsys, "assess", str(folder), "--label", "label", "--workers", "2")
    assert status == 0, err
    assert "local cluster of 2 worker processes, 3 partitions" in got
    # the metric rows (ECE, MCE, ACE; MMCE is left out with its reason), the scores and the tests
    rows = ("ECE", "MCE", "ACE", "Scores:", "Z = ", "G = ", "H = ")
    assert [ln.split() for ln in mem.splitlines() if ln.startswith(rows)] == \
        [ln.split() for ln in got.splitlines() if ln.startswith(rows)]
    assert "MMCE left out: it needs every pair of rows" in got


def test_binary_string_labels_with_positive(capsys, tmp_path):
    rng = np.random.default_rng(3)
    p = rng.uniform(size=500)
    frame = pd.DataFrame({"p_yes": p, "answer": np.where(rng.uniform(size=500) < p, "yes", "no")})
    path = tmp_path / "answers.csv"
    frame.to_csv(path, index=False)
    status, mem, _ = _run(capsys, "assess", str(path), "--label", "answer")
    status2, got, err = _run(capsys, "assess", str(path), "--label", "answer", "--dask", "--workers", "1")
    assert status == status2 == 0, err
    assert [ln.split() for ln in mem.splitlines() if ln.startswith(("ECE", "MCE", "ACE", "Scores"))] == \
        [ln.split() for ln in got.splitlines() if ln.startswith(("ECE", "MCE", "ACE", "Scores"))]
    assert "Clinical validation (val.prob, Hosmer-Lemeshow): left out with --dask" in got


@pytest.mark.parametrize("argv,text,code", [
    (["--weights", "p_0"], "--dask does not take --weights yet", 2),
    (["--bootstrap", "10"], "--dask does not take --bootstrap", 2),
    (["--workers", "0"], "--workers must be at least 1", 2),
])
def test_refusals_are_one_line(capsys, digits_dir, argv, text, code):
    folder, _ = digits_dir
    status, out, err = _run(capsys, "assess", str(folder), "--label", "label", *argv)
    assert status == code and text in err and err.count("\n") == 1


def test_missing_and_empty_inputs(capsys, tmp_path):
    status, _, err = _run(capsys, "assess", str(tmp_path / "nothing*.parquet"), "--label", "y", "--dask")
    assert status == 1 and "no such file" in err
    status, _, err = _run(capsys, "assess", str(tmp_path), "--label", "y")
    assert status == 1 and "holds no .parquet files" in err
