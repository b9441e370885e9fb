"""rotforest.dask on a LocalCluster of worker processes with memory limits: data
generated on the workers (never whole anywhere), the fit's time, the bytes the workers
sent during it, whether a worker was lost or paused, held-out accuracy against the same forest
fitted locally on one worker's share of the rows, and XGBoost's Dask random forest
(``DaskXGBRFClassifier``, ``tree_method="hist"``) on the same cluster and data.

The data: ``--rows`` rows of ``--features`` float32 features in partitions of
``--chunk`` rows, each partition drawn on a worker from its own seed; the class is a
noisy function of the first eight features (linear terms, two products and a sine), so
that depth pays.  ``--test`` held-out rows come from the same model, drawn locally.

    python benchmarks/bench_dask.py                       # 12M x 20, 4 workers x 1.5 GiB
    python benchmarks/bench_dask.py --rows 4000000 --whole --seeds 3 --memory 3GiB
    python benchmarks/bench_dask.py --quick               # small, for the tests
    python benchmarks/bench_dask.py --rows 4000000 --sorted --draw-from both --no-xgboost

``--sorted`` makes each partition hold mostly one class (the even partitions class 0,
the odd ones class 1: rows partitioned by class); ``--draw-from all`` (or ``both``) fits
with ``draw_from="all"``, whose trees learn from pools drawn from every partition.

Needs the dask extra (``pip install ".[dask]"``); XGBoost's row is left out when xgboost
is not installed.
"""
import argparse
import os
import pickle
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import header, installed, markdown_table  # noqa: E402


def block(seed, rows, features, sorted_as=None):
    """One partition: X (float32) and y (int8) of the benchmark's model; with
    ``sorted_as`` 0 or 1, the ``rows`` rows of 2 * ``rows`` drawn that are most of that
    class (all of it, then the other)."""
    if sorted_as is not None:
        X, y = block(seed, 2 * rows, features)
        keep = np.argsort(y if sorted_as == 0 else -y.astype(np.int64), kind="stable")
        keep = np.sort(keep[:rows])
        return X[keep], y[keep]
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, features), dtype=np.float32)
    w = np.random.default_rng(12345).normal(size=8)
    z = (X[:, :8] @ w + 1.5 * X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3]
         + 2.0 * np.sin(2.0 * X[:, 4]) + rng.normal(scale=1.0, size=rows))
    return X, (z > 0).astype(np.int8)


def dask_data(rows, features, chunk, seed=0, sorted_rows=False):
    """X and y as dask arrays whose partitions are drawn on the workers (sorted: see
    block)."""
    import dask
    import dask.array as da
    sizes = [min(chunk, rows - a) for a in range(0, rows, chunk)]
    parts = [dask.delayed(block, nout=2, pure=True)(seed * 100003 + i, n, features,
                                                    i % 2 if sorted_rows else None)
             for i, n in enumerate(sizes)]
    X = da.concatenate([da.from_delayed(p[0], (n, features), np.float32)
                        for p, n in zip(parts, sizes)])
    y = da.concatenate([da.from_delayed(p[1], (n,), np.int8)
                        for p, n in zip(parts, sizes)])
    return X, y


def sent_bytes(client):
    """Bytes every worker has sent so far (to other workers and to the client)."""
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
               .values())


def fit_timed(client, model, X, y):
    """The fit's seconds, the bytes the workers sent, and how many workers were lost or
    paused (memory) during it (their states polled every 0.1 s)."""
    import threading
    workers = set(client.scheduler_info()["workers"])
    before = sent_bytes(client)
    troubled, done = set(), threading.Event()

    def watch():
        while not done.wait(0.1):
            info = client.scheduler_info()["workers"]
            troubled.update(w for w in workers if w not in info)
            troubled.update(w for w, i in info.items() if i.get("status") == "paused")

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    try:
        model.fit(X, y)
    finally:
        seconds = time.perf_counter() - start
        done.set()
        watcher.join()
    return seconds, sent_bytes(client) - before, len(troubled)


def xgboost_row(client, args, X, y, Xt, yt):
    """XGBoost's Dask random forest on the same cluster and data, with random_state 0
    to --seeds - 1 as ours: its table row (the best time, the mean accuracy)."""
    import dask.array as da
    from xgboost.dask import DaskXGBRFClassifier
    share = max(1, int(np.sqrt(args.features))) / args.features
    name = "XGBoost DaskXGBRFClassifier"
    times, accuracies = [], []
    for seed in range(args.seeds):
        peer = DaskXGBRFClassifier(n_estimators=args.trees, max_depth=args.depth,
                                   tree_method="hist", colsample_bynode=share,
                                   random_state=seed)
        peer.client = client
        try:
            seconds, sent, troubled = fit_timed(client, peer, X, y)
        except Exception as exc:        # (its workers may run out of memory)
            return [name, "failed: " + str(exc).strip().splitlines()[0][:70], "", "", "",
                    "", ""]
        predicted = peer.predict(da.from_array(Xt, chunks=(50_000, -1))).compute()
        times.append(seconds)
        accuracies.append(float(np.mean(predicted == yt)))
    row = [name, f"{min(times):.2f} s", f"{sent / 1e6:.1f} MB (its own sockets not counted)",
           f"{100 * sent / (args.rows * args.features * 4):.2f}%", "", str(troubled),
           _mean(accuracies)]
    print(row, file=sys.stderr, flush=True)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=1_000_000)
    parser.add_argument("--test", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--memory", default="1.5GiB", help="each worker's memory limit")
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=1,
                        help="fit ours and XGBoost's with this many random_states (the "
                        "best time, the mean accuracy)")
    parser.add_argument("--whole", action="store_true",
                        help="also the local forest on all the rows (data one machine "
                        "can hold), with the same seeds")
    parser.add_argument("--no-xgboost", action="store_true",
                        help="leave XGBoost's Dask random forest out")
    parser.add_argument("--sorted", action="store_true",
                        help="partitions of mostly one class (rows partitioned by class)")
    parser.add_argument("--draw-from", choices=["partition", "all", "both"],
                        default="partition", help="rotforest.dask's draw_from (both: a "
                        "row for each)")
    parser.add_argument("--quick", action="store_true",
                        help="20,000 rows in 4 partitions, 2 workers, 4 trees of depth 4")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.chunk, args.test, args.workers = 20_000, 5_000, 2_000, 2
        args.trees, args.depth, args.memory = 4, 4, "1GiB"
    from distributed import Client, LocalCluster
    from rotforest import RandomForestClassifier as Local
    import rotforest.dask as rd
    print(header("bench_dask.py"))
    data_gb = args.rows * args.features * 4 / 1e9
    print(f"{args.rows:,} x {args.features} float32 ({data_gb:.2f} GB; "
          f"{2 * data_gb:.2f} GB as float64) in partitions of {args.chunk:,} rows, "
          f"drawn on the workers; {args.workers} worker processes x 1 thread x "
          f"{args.memory}; {args.trees} trees of depth {args.depth}; {args.test:,} "
          f"held-out rows{'; partitions sorted by class' if args.sorted else ''}\n")
    Xt, yt = block(999_999_937, args.test, args.features)
    table = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      memory_limit=args.memory, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        X, y = dask_data(args.rows, args.features, args.chunk, sorted_rows=args.sorted)
        X, y = client.persist([X, y])       # drawn on the workers, held there
        from distributed import wait
        wait([X, y])
        draws = ["partition", "all"] if args.draw_from == "both" else [args.draw_from]
        for draw in draws:
            accuracies, times = [], []
            for seed in range(args.seeds):
                forest = rd.RandomForestClassifier(n_estimators=args.trees,
                                                   max_depth=args.depth,
                                                   random_state=seed, draw_from=draw)
                with warnings.catch_warnings():     # (--sorted: the spread warning)
                    warnings.simplefilter("ignore", UserWarning)
                    seconds, sent, lost = fit_timed(client, forest, X, y)
                times.append(seconds)
                accuracies.append(float(np.mean(forest.predict(Xt) == yt)))
            trees_mb = len(pickle.dumps(forest.to_local())) / 1e6
            name = "rotforest.dask" + ("" if draw == "partition" else ", draw_from='all'")
            table.append([name, f"{min(times):.2f} s", f"{sent / 1e6:.1f} MB",
                          f"{100 * sent / (args.rows * args.features * 4):.2f}%",
                          f"{trees_mb:.1f} MB", str(lost), _mean(accuracies)])
            print(table[-1], file=sys.stderr, flush=True)
        if args.whole:
            Xw, yw = client.compute([X, y], sync=True)
            accuracies, times = [], []
            for seed in range(args.seeds):
                start = time.perf_counter()
                local = Local(n_estimators=args.trees, max_depth=args.depth,
                              random_state=seed).fit(Xw, yw)
                times.append(time.perf_counter() - start)
                accuracies.append(float(np.mean(local.predict(Xt) == yt)))
            del Xw, yw
            table.append([f"rotforest, local, all {args.rows:,} rows", f"{min(times):.2f} s",
                          "", "", "", "", _mean(accuracies)])
        if not args.no_xgboost:
            if installed("xgboost"):
                table.append(xgboost_row(client, args, X, y, Xt, yt))
            else:
                print("xgboost not installed: its row left out")
    # the same forest on one worker's share, here
    share_rows = args.rows // args.workers
    Xs, ys = block(424_242, share_rows, args.features)
    start = time.perf_counter()
    local = Local(n_estimators=args.trees, max_depth=args.depth, random_state=0).fit(Xs, ys)
    seconds = time.perf_counter() - start
    table.append([f"rotforest, local, one worker's share ({share_rows:,} rows)",
                  f"{seconds:.2f} s", "", "", "", "",
                  f"{float(np.mean(local.predict(Xt) == yt)):.4f}"])
    print(markdown_table(["model", "fit", "sent by the workers", "of the data",
                          "fitted trees", "workers lost or paused", "held-out accuracy"], table))


def _mean(accuracies):
    text = f"{np.mean(accuracies):.4f}"
    return text + (f" ({', '.join(f'{a:.4f}' for a in accuracies)})"
                   if len(accuracies) > 1 else "")


if __name__ == "__main__":
    main()
