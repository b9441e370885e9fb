"""Millions of rows: rotforest's random forest against the random-forest modes that
users pick for large data, XGBoost's ``XGBRFClassifier`` (histogram ``tree_method=
"hist"``) and LightGBM's ``boosting_type="rf"`` (and scikit-learn's forest, optionally).

Every model fits in a fresh process, on the same generated data
(``make_classification`` with its defaults, ``--features`` columns, ``--test``
held-out rows), with the
same forest: ``--trees`` trees of depth ``--depth``, ``--n-jobs`` threads, square root
of the features at each split (a node's sample for XGBoost and LightGBM, as their
random-forest modes draw them), bootstrap-sized bags (LightGBM: 63.2% of the rows
without replacement, XGBoost: its default 80% subsample). Reported: fit and predict
(held-out rows) wall times, held-out accuracy, and peak memory of the fit above the
data (peak resident set after the data was built, minus the resident set then; Linux).
Ratios are against the faster of XGBoost and LightGBM.

    python benchmarks/bench_large.py                          # 1M rows, 100 trees
    python benchmarks/bench_large.py --rows 1000000 4000000
    python benchmarks/bench_large.py --models rotforest xgboost --rows 200000
    python benchmarks/bench_large.py --depth 0                # full depth
    python benchmarks/bench_large.py --quick                  # small, for the tests
    python benchmarks/bench_large.py --rows 4000000 --repeat 3  # models in turns

With ``--repeat K`` the models run in turns K times (each in a fresh process) and the
table gives each model's median; the last column's ratio is the median of the rounds'
ratios (each against that round's faster peer), firmer than one run on a machine whose
speed drifts.

The peers are the ``benchmark`` extra (``pip install ".[benchmark]"``); a model whose
package is missing is left out and said so.
"""
import argparse
import json
import subprocess
import sys
import time

import numpy as np

from common import header, installed, markdown_table, reset_peak, status_kb

MODELS = ("rotforest", "xgboost", "lightgbm", "sklearn")
PACKAGES = {"rotforest": "rotforest", "xgboost": "xgboost", "lightgbm": "lightgbm",
            "sklearn": "sklearn"}


def make_model(name, args, n_features):
    """The forest ``name`` with the benchmark's settings (``--depth 0``: full depth,
    as far as each peer can grow: XGBoost without a depth limit grows leaf by leaf,
    LightGBM up to its largest leaf count, 131,072)."""
    share = max(1, int(np.sqrt(n_features))) / n_features
    full = args.depth == 0
    depth = None if full else args.depth
    if name == "rotforest":
        from rotforest import RandomForestClassifier
        return RandomForestClassifier(n_estimators=args.trees, max_depth=depth,
                                      n_jobs=args.n_jobs, random_state=0)
    if name == "sklearn":
        from sklearn.ensemble import RandomForestClassifier
        return RandomForestClassifier(n_estimators=args.trees, max_depth=depth,
                                      n_jobs=args.n_jobs, random_state=0)
    if name == "xgboost":
        from xgboost import XGBRFClassifier
        extra = dict(max_depth=0, grow_policy="lossguide") if full else dict(
            max_depth=depth)
        return XGBRFClassifier(n_estimators=args.trees, **extra,
                               tree_method="hist", colsample_bynode=share,
                               n_jobs=args.n_jobs, random_state=0)
    if name == "lightgbm":
        from lightgbm import LGBMClassifier
        return LGBMClassifier(boosting_type="rf", n_estimators=args.trees,
                              max_depth=-1 if full else depth,
                              num_leaves=131072 if full else 2 ** depth,
                              bagging_freq=1, bagging_fraction=0.632,
                              feature_fraction_bynode=share, n_jobs=args.n_jobs,
                              random_state=0, verbose=-1)
    raise ValueError(f"unknown model {name!r}")


def data(rows, args):
    from sklearn.datasets import make_classification
    X, y = make_classification(rows + args.test, args.features, random_state=0)
    return X[:rows], y[:rows], X[rows:], y[rows:]


def child(name, rows, args):
    """One model's run, in this (fresh) process: a JSON line."""
    X, y, Xt, yt = data(rows, args)
    model = make_model(name, args, X.shape[1])
    reset_peak()
    rss0 = status_kb("VmRSS")
    start = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - start
    peak = status_kb("VmHWM") - rss0
    start = time.perf_counter()
    pred = model.predict(Xt)
    predict = time.perf_counter() - start
    print(json.dumps({"fit": fit, "predict": predict,
                      "accuracy": float(np.mean(pred == yt)), "peak_mb": peak / 1024}))


def run(name, rows, args):
    cmd = [sys.executable, __file__, "--child", name, "--rows", str(rows)] + [
        f"--{k}={getattr(args, k.replace('-', '_'))}"
        for k in ("features", "test", "trees", "depth", "n-jobs")]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--test", type=int, default=200_000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--depth", type=int, default=12, help="0: full depth")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--models", nargs="+", default=["rotforest", "xgboost",
                                                        "lightgbm"], choices=MODELS)
    parser.add_argument("--quick", action="store_true",
                        help="5,000 rows, 1,000 held out, 10 trees of depth 6")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the models in turns this many times: medians")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.rows[0], args)
    if args.quick:
        args.rows, args.test, args.trees, args.depth = [5000], 1000, 10, 6
    models = [m for m in args.models if installed(PACKAGES[m])]
    print(header("bench_large.py"))
    missing = sorted(set(args.models) - set(models))
    if missing:
        print(f"not installed, left out: {', '.join(missing)}")
    print(f"make_classification x {args.features} features, {args.test:,} held out; "
          f"{args.trees} trees of "
          f"{'full depth' if args.depth == 0 else f'depth {args.depth}'}, "
          f"n_jobs={args.n_jobs}; one fresh "
          "process a model")
    for rows in args.rows:
        rounds = [{name: run(name, rows, args) for name in models}
                  for _ in range(max(1, args.repeat))]
        table = []
        for name in models:
            runs = [r[name] for r in rounds]
            ratios = [r[name]["fit"] / best for r in rounds
                      if (best := _faster_peer(r)) is not None]
            fits = ", ".join(f"{r['fit']:.1f}" for r in runs)
            table.append([name, f"{_median(runs, 'fit'):.2f} s"
                          + (f" ({fits})" if len(runs) > 1 else ""),
                          f"{np.median(ratios):.2f}" if ratios else "",
                          f"{_median(runs, 'predict'):.2f} s",
                          f"{_median(runs, 'accuracy'):.4f}",
                          f"{_median(runs, 'peak_mb'):.0f} MB"])
        print(f"\n{rows:,} rows" + (f", median of {len(rounds)} rounds" if len(rounds) > 1
                                    else "") + ":\n")
        print(markdown_table(["model", "fit", "fit / faster peer", "predict",
                              "accuracy", "fit peak over data"], table, pad=True))


def _faster_peer(results):
    peers = [results[p]["fit"] for p in ("xgboost", "lightgbm") if p in results]
    return min(peers) if peers else None


def _median(runs, key):
    return float(np.median([r[key] for r in runs]))


if __name__ == "__main__":
    main()
