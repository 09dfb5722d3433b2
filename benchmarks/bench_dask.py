"""Metrics beyond memory (issue 16): calstats on Dask at 10^8 rows x 10 classes, and in memory.

Run: ``python benchmarks/bench_dask.py [--rows N] [--memory-rows M] [--block-rows B]
[--memory-limit 4GiB] [--quick]``. Prints one markdown table.

Data: synthetic predictions for K = 10 classes, generated inside the Dask graph one block
of ``--block-rows`` rows at a time, deterministically from ``(seed, block index)``
(``numpy.random.default_rng([seed, i])``): logits ``z`` uniform on [0, 6) (float32), the
model's probabilities ``softmax(z)`` (float64, rows summing to 1), and labels drawn from
``softmax(z / 1.2)`` (the model is a little overconfident, so ECE and the Spiegelhalter
test are not trivial). A block is one task that returns ``(P, y)``; ``P`` and ``y`` are
Dask arrays taken from it. Dask's low-level task fusion is switched off
(``optimization.fuse.active = False``): calstats turns ``P`` and ``y`` into per-block
delayed objects separately, and with fusion each would inline the generating task, so
every block would be generated twice per pass. Nothing is ever materialised whole: every metric call
regenerates the blocks it reads (the generation time is measured alone, as
"generation only", so the metric's own share is the difference).

Dask path: a ``distributed.LocalCluster(n_workers=2, threads_per_worker=1,
processes=True, memory_limit=--memory-limit)``; each case is one call of the public
function on the Dask arrays (``calstats.ece(P, y, type="classwise")``, ...), and
"assess, one pass" is :func:`calstats.dask._assess.assess_pass` (everything ``calstats
assess --dask`` reports except KS/Kuiper: ECE, MCE and ACE classwise and confidence,
Brier, log-loss, mean confidence and accuracy, Spiegelhalter) in one pass over the
blocks. KS and Kuiper (a distributed sort, two passes) are timed when
``calstats.dask._sorted`` imports and the call succeeds.

In-memory path: a separate process (so that its peak memory is its own) builds the same
rows as NumPy arrays (the same blocks, written into one preallocated matrix) and times
the same functions; its "assess" is the sequence of in-memory calls that gives the same
numbers (ece/mce/ace for both types, Brier, log-loss, top-label mean confidence and
accuracy, Spiegelhalter). The Dask path is also timed at that n, with the blocks generated
once and persisted in the workers' memory, so that both sides time the metrics alone on
data already in memory; both ECEs (and the other metrics) are compared.

Memory: peak resident set size from the kernel. Before each case the benchmark writes
``5`` to ``/proc/<pid>/clear_refs`` of each worker process (resetting the high-water
mark to the current RSS) and after it reads ``VmHWM`` from ``/proc/<pid>/status``; the
in-memory process does the same to itself. A background thread also samples each
worker's RSS every 0.5 s with psutil, as a cross-check (the sampled maximum can only be
lower). Where ``clear_refs`` is not writable, the sampled maximum is reported instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np

K = 10
SEED = 20261125


# --------------------------------------------------------------------------------------
# data


def make_block(seed, index, rows, k=K):
    """Block ``index``: ``(P, y)`` with ``P`` n x k probabilities and ``y`` codes 1..k."""
    rs = np.random.default_rng([seed, index])
    z = rs.random((rows, k), dtype=np.float32)
    z *= np.float32(6.0)  # logits uniform on [0, 6): float32 draws and exps keep generation cheap
    q = np.exp(z * np.float32(1 / 1.2))  # the true class probabilities: the model below is overconfident
    np.cumsum(q, axis=1, out=q)
    u = rs.random(rows, dtype=np.float32) * q[:, -1]
    y = (u[:, None] > q).sum(axis=1, dtype=np.int64) + 1
    np.minimum(y, k, out=y)
    del q, u
    P = np.exp(z).astype(np.float64)
    del z
    P /= P.sum(axis=1, keepdims=True)
    return P, y


def block_sizes(n, block_rows):
    sizes = [block_rows] * (n // block_rows)
    if n % block_rows:
        sizes.append(n % block_rows)
    return sizes


def dask_data(n, block_rows, seed=SEED, k=K):
    import dask
    import dask.array as da

    ps, ys = [], []
    for i, m in enumerate(block_sizes(n, block_rows)):
        d = dask.delayed(make_block, pure=True)(seed, i, m, k)
        ps.append(da.from_delayed(d[0], shape=(m, k), dtype=np.float64))
        ys.append(da.from_delayed(d[1], shape=(m,), dtype=np.int64))
    return da.concatenate(ps, axis=0), da.concatenate(ys, axis=0)


def memory_data(n, block_rows, seed=SEED, k=K):
    P = np.empty((n, k))
    y = np.empty(n, dtype=np.int64)
    start = 0
    for i, m in enumerate(block_sizes(n, block_rows)):
        P[start:start + m], y[start:start + m] = make_block(seed, i, m, k)
        start += m
    return P, y


# --------------------------------------------------------------------------------------
# peak memory


def _reset_hwm(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _hwm(pid):
    """Peak RSS (bytes) since the last reset, from /proc/<pid>/status."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class Sampler:
    """Max RSS of some processes, sampled every ``interval`` seconds in a thread."""

    def __init__(self, pids, interval=0.5):
        import psutil

        self.procs = {pid: psutil.Process(pid) for pid in pids}
        self.interval = interval
        self.peak = dict.fromkeys(pids, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            for pid, proc in self.procs.items():
                try:
                    self.peak[pid] = max(self.peak[pid], proc.memory_info().rss)
                except Exception:
                    pass
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# --------------------------------------------------------------------------------------
# the cases


def _rows_of(pb, yb):
    return int(pb.shape[0]) if pb.shape[0] == yb.shape[0] else -1


def dask_cases(with_sorted):
    import calstats
    from calstats.dask._assess import assess_pass
    from calstats.dask._inputs import blocks, compute

    def generation(P, y):
        return sum(compute(_rows_of, blocks(P, y)))

    def assess(P, y):
        from calstats.evaluation.caltests import _spiegelhalter_htest
        from calstats.kernels.bins import ace_of, ece_of, mce_of
        from calstats.numerics.reductions import rmean

        st = assess_pass(P, y, 10)
        out = {"brier": st.brier, "log_loss": st.log_loss, "confidence": st.mean_confidence,
               "accuracy": st.accuracy, "spiegelhalter": _spiegelhalter_htest(*st.spiegelhalter).statistic}
        for name, of, agg in (("ece", ece_of, rmean), ("mce", mce_of, lambda v: float(max(v))),
                              ("ace", ace_of, rmean)):
            for f in ("classwise", "confidence"):
                per = [of(s) for s in st.binned[f]]
                out[f"{name}_{f}"] = float(per[0] if len(per) == 1 else agg(per))
        return out

    cases = [("generation only", generation)] + common_cases() + [("assess, one pass", assess)]
    if with_sorted:
        cases += [("KS (confidence)", lambda P, y: calstats.cal_ks_test(P, y, type="confidence").statistic),
                  ("Kuiper (confidence)", lambda P, y: calstats.cal_kuiper_test(P, y, type="confidence").statistic)]
    return cases


def common_cases():
    import calstats

    return [
        ("ECE classwise", lambda P, y: calstats.ece(P, y, type="classwise")),
        ("ECE confidence", lambda P, y: calstats.ece(P, y, type="confidence")),
        ("Brier", lambda P, y: calstats.brier_score(P, y)),
        ("log-loss", lambda P, y: calstats.log_loss(P, y)),
        ("Spiegelhalter (confidence)",
         lambda P, y: calstats.cal_spiegelhalter_test(P, y, type="confidence").statistic),
    ]


def memory_cases():
    import calstats
    from calstats._validate import check_multiclass_y
    from calstats.kernels.toplabel import top_label

    def assess(P, y):
        out = {}
        for name, fn in (("ece", calstats.ece), ("mce", calstats.mce), ("ace", calstats.ace)):
            for f in ("classwise", "confidence"):
                out[f"{name}_{f}"] = float(fn(P, y, bins=10, type=f))
        conf, hit = top_label(P, check_multiclass_y(y, P.shape[1])[0])
        out.update(brier=calstats.brier_score(P, y), log_loss=calstats.log_loss(P, y),
                   confidence=float(np.mean(conf)), accuracy=float(np.mean(hit)),
                   spiegelhalter=calstats.cal_spiegelhalter_test(P, y, type="confidence").statistic)
        return out

    return common_cases() + [
        ("assess, one pass", assess),
        ("KS (confidence)", lambda P, y: calstats.cal_ks_test(P, y, type="confidence").statistic),
        ("Kuiper (confidence)", lambda P, y: calstats.cal_kuiper_test(P, y, type="confidence").statistic),
    ]


def _value(v):
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items()}
    try:
        return float(np.asarray(v).ravel()[0])
    except Exception:
        return None


# --------------------------------------------------------------------------------------
# in-memory process


def run_memory(n, block_rows, repeat):
    """Child process: the in-memory path at n rows; prints one JSON line."""
    pid = os.getpid()
    can_reset = _reset_hwm(pid)
    t0 = time.perf_counter()
    P, y = memory_data(n, block_rows)
    gen = time.perf_counter() - t0
    out = {"n": n, "generation_s": gen, "data_bytes": P.nbytes + y.nbytes, "gen_peak": _hwm(pid),
           "reset": can_reset, "cases": {}}
    for name, fn in memory_cases():
        times = []
        _reset_hwm(pid)
        for _ in range(repeat):
            t = time.perf_counter()
            value = fn(P, y)
            times.append(time.perf_counter() - t)
        out["cases"][name] = {"s": min(times), "peak": [_hwm(pid)], "value": _value(value)}
    print("JSON " + json.dumps(out))


def memory_in_child(n, block_rows, repeat):
    cmd = [sys.executable, os.path.abspath(__file__), "--_memory-child", str(n), "--block-rows", str(block_rows),
           "--repeat", str(repeat)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"in-memory path failed (exit {res.returncode})")
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("JSON ")][-1]
    return json.loads(line[5:])


# --------------------------------------------------------------------------------------
# Dask path


def _sorted_usable():
    """KS/Kuiper on Dask: the module exists and a small case runs."""
    try:
        import calstats
        import calstats.dask._sorted  # noqa: F401

        P, y = dask_data(20_000, 7_000, seed=1)
        calstats.cal_ks_test(P, y, type="confidence")
        calstats.cal_kuiper_test(P, y, type="confidence")
        return True, ""
    except Exception as exc:  # noqa: BLE001
        return False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def worker_pids(client):
    return sorted(client.run(os.getpid).values())


def _measured(client, fn, repeat):
    """``(seconds or None, value, error, peak per worker, sampled per worker)`` of ``fn()``."""
    pids = worker_pids(client)
    can_reset = all([_reset_hwm(p) for p in pids])
    times, value, err = [], None, None
    with Sampler(pids) as smp:
        for _ in range(repeat):
            t = time.perf_counter()
            try:
                value = fn()
            except Exception as exc:  # noqa: BLE001
                err = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                break
            times.append(time.perf_counter() - t)
    hwm = [_hwm(p) for p in pids] if can_reset else [None] * len(pids)
    peak = [h if h is not None else smp.peak[p] for h, p in zip(hwm, pids)]
    return min(times) if times else None, value, err, peak, [smp.peak[p] for p in pids]


def run_dask(client, n, block_rows, repeat, with_sorted, persist=False):
    """Every case on the cluster. ``persist``: generate the blocks once and keep them in the
    workers' memory (the "generation only" row is then that step), so the cases time the
    metrics alone, as the in-memory path does."""
    P, y = dask_data(n, block_rows)
    out = {"n": n, "blocks": len(block_sizes(n, block_rows)), "persisted": persist, "cases": {}}
    cases = dask_cases(with_sorted)
    if persist:
        import distributed

        held = {}

        def persist_data():
            held["P"], held["y"] = client.persist([P, y])
            distributed.wait([held["P"], held["y"]])
            return n

        cases = [("generation only", lambda _P, _y: persist_data())] + cases[1:]
    for name, fn in cases:
        if persist and name != "generation only":
            call = lambda fn=fn: fn(held["P"], held["y"])  # noqa: E731
        else:
            call = lambda fn=fn: fn(P, y)  # noqa: E731
        s, value, err, peak, sampled = _measured(client, call, repeat if name != "generation only" or not persist
                                                 else 1)
        out["cases"][name] = {"s": s, "peak": peak, "sampled": sampled, "value": _value(value), "error": err}
        print(f"  dask n={n:.0e}{' persisted' if persist else ''} {name}: " + (f"{s:.1f} s" if s else err)
              + f", peak RSS/worker {[round((x or 0) / 2**20) for x in peak]} MiB", file=sys.stderr, flush=True)
    if persist:
        held.clear()
    return out


# --------------------------------------------------------------------------------------
# report


def _mib(b):
    return f"{b / 2**20:,.0f}" if b else "-"


def _rate(n, s):
    return f"{n / s / 1e6:.2f}" if s else "-"


def _sec(s):
    return f"{s:.1f}" if s is not None and s >= 10 else (f"{s:.2f}" if s is not None else "-")


def relative_differences(a, b):
    """Max relative difference of every common metric value (flattening assess's dicts)."""

    def flat(cases):
        out = {}
        for name, c in cases.items():
            v = c.get("value")
            if isinstance(v, dict):
                out.update({f"{name}: {k}": x for k, x in v.items()})
            elif v is not None:
                out[name] = v
        return out

    fa, fb = flat(a), flat(b)
    diffs = {}
    for key in fa.keys() & fb.keys():
        x, y = fa[key], fb[key]
        if x is None or y is None:
            continue
        diffs[key] = 0.0 if x == y else abs(x - y) / max(abs(x), abs(y))
    return diffs


def table(big, eq, mem):
    """One markdown table: the Dask path at --rows, at --memory-rows, and in memory."""
    nb, ne, nm = big["n"], eq["n"], mem["n"]
    head = (f"| case | Dask n={nb:.0e}: s | rows/s (M) | peak RSS per worker MiB | Dask n={ne:.0e}, persisted: s "
            f"| peak RSS per worker MiB | in-memory n={nm:.0e}: s | rows/s (M) | peak RSS MiB "
            f"| Dask (persisted) / in-memory |")
    lines = [head.replace("e+0", "e"), "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    names = list(big["cases"])
    for name in list(mem["cases"]):
        if name not in names:
            names.append(name)
    for name in names:
        b, e, m = big["cases"].get(name, {}), eq["cases"].get(name, {}), mem["cases"].get(name, {})
        if name == "generation only":
            m = {"s": mem["generation_s"], "peak": [mem["gen_peak"]]}
        bs, es, ms = b.get("s"), e.get("s"), m.get("s")
        bpeak = " / ".join(_mib(x) for x in b.get("peak", [])) or "-"
        epeak = " / ".join(_mib(x) for x in e.get("peak", [])) or "-"
        if b.get("error"):
            bpeak = "failed"
        if e.get("error"):
            epeak = "failed"
        ratio = f"{es / ms:.2f}" if es and ms else "-"
        mpeak = _mib(m["peak"][0]) if m.get("peak") else "-"
        lines.append(f"| {name} | {_sec(bs)} | {_rate(nb, bs)} | {bpeak} | {_sec(es)} | {epeak} | {_sec(ms)} | "
                     f"{_rate(nm, ms)} | {mpeak} | {ratio} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10**8, help="rows of the Dask run (default 10^8)")
    ap.add_argument("--memory-rows", type=int, default=2 * 10**7,
                    help="rows of the in-memory run and of the Dask run at equal n (default 2*10^7: P is 1.6 GB)")
    ap.add_argument("--block-rows", type=int, default=2 * 10**6,
                    help="rows per generated block (default 2*10^6: P's block is 160 MB)")
    ap.add_argument("--memory-limit", default="4GiB", help="memory_limit of each of the 2 workers")
    ap.add_argument("--repeat", type=int, default=1, help="timings per case (the minimum is reported)")
    ap.add_argument("--quick", action="store_true", help="smoke run: --rows 10^7, --memory-rows 2*10^6")
    ap.add_argument("--no-memory", action="store_true", help="skip the in-memory path (and the Dask run at its n)")
    ap.add_argument("--_memory-child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._memory_child is not None:
        return run_memory(args._memory_child, args.block_rows, args.repeat)
    if args.quick:
        args.rows, args.memory_rows = 10**7, 2 * 10**6
        args.block_rows = min(args.block_rows, 10**6)

    warnings.simplefilter("ignore", FutureWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    import dask
    import distributed

    import calstats

    dask.config.set({"optimization.fuse.active": False})  # one generation per block and pass (module notes)
    t_start = time.time()
    load0 = os.getloadavg()
    mem = None
    if not args.no_memory:
        print(f"in-memory path, n={args.memory_rows:.0e} (separate process) ...", file=sys.stderr, flush=True)
        mem = memory_in_child(args.memory_rows, args.block_rows, args.repeat)
        print(f"  done: generation {mem['generation_s']:.1f} s, data {mem['data_bytes'] / 2**30:.2f} GiB",
              file=sys.stderr, flush=True)

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       memory_limit=args.memory_limit, dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        with_sorted, why = _sorted_usable()
        if not with_sorted:
            print(f"KS/Kuiper on Dask left out: {why}", file=sys.stderr)
        eq = None
        if mem is not None:
            print(f"Dask path, n={args.memory_rows:.0e} ...", file=sys.stderr, flush=True)
            eq = run_dask(client, args.memory_rows, args.block_rows, args.repeat, with_sorted, persist=True)
        print(f"Dask path, n={args.rows:.0e} ...", file=sys.stderr, flush=True)
        big = run_dask(client, args.rows, args.block_rows, args.repeat, with_sorted)
    finally:
        client.close()
        cluster.close()
    load1 = os.getloadavg()

    blk = args.block_rows
    print(f"calstats {calstats.__version__}, dask {dask.__version__}, distributed {distributed.__version__}, "
          f"NumPy {np.__version__}; {os.cpu_count()} cores; LocalCluster(n_workers=2, threads_per_worker=1, "
          f"processes=True, memory_limit={args.memory_limit}); K = {K}; blocks of {blk:,} rows "
          f"({blk * K * 8 / 1e6:.0f} MB of P); {big['blocks']} blocks at n = {args.rows:,}; repeat {args.repeat} "
          f"(minimum); load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end; "
          f"wall {time.time() - t_start:.0f} s.")
    print()
    if mem is None:
        eq = {"n": args.rows, "cases": {}}
        mem = {"n": args.memory_rows, "cases": {}, "generation_s": None, "gen_peak": None}
    print(table(big, eq, mem))
    print()
    gen = big["cases"]["generation only"]["s"]
    print(f"Dask times at n = {args.rows:,} include generating the blocks in the graph ({_sec(gen)} s alone, the "
          "'generation only' row); at the smaller n the blocks are generated once and persisted on the workers "
          "('generation only' is that step), and in memory the arrays exist before the call ('generation only' "
          "is building them), so those two columns time the metrics alone. Peak RSS: VmHWM of each worker "
          "process (reset through /proc/<pid>/clear_refs before each case; with persisted data it includes "
          "the worker's share of it) and of the in-memory process (which holds the data: "
          + (f"{mem['data_bytes'] / 2**20:,.0f} MiB)." if mem.get("data_bytes") else "-)."))
    if eq["cases"] and mem["cases"]:
        diffs = relative_differences(eq["cases"], mem["cases"])
        ece = {k: d for k, d in diffs.items() if k.startswith("ECE")}
        print(f"Same n, Dask against in memory: ECE max relative difference {max(ece.values()):.1e} "
              f"({', '.join(f'{k} {d:.1e}' for k, d in sorted(ece.items()))}); every metric compared: "
              f"max {max(diffs.values()):.1e} ({max(diffs, key=diffs.get)}).")
    sampled = {name: c["sampled"] for name, c in big["cases"].items()}
    print("Sampled RSS maxima per worker (psutil, every 0.5 s), MiB: "
          + "; ".join(f"{k} {' / '.join(_mib(x) for x in v)}" for k, v in sampled.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
