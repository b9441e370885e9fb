"""The node methods forced, beside the builder's own choice: the check of its cost model.

Each node of a tree either partitions the presorted lists for its children or lets them
sort the features they scan (see the trees guide, "Presorted lists or sorting in the
node"). The choice follows a cost model whose two constants (GATHER_COST, DIGIT_COST in
rotforest/_method.pxi) were fitted to fits with each method forced. This script
repeats those fits: for each configuration it fits with every node partitioning its
lists ("presort"), with every node sorting ("sort") and with the builder's choice
("auto"), and prints the best of --repeat times of each, sort / presort and auto / the
faster of the two. Both methods grow the same trees, so only the times differ. The
configurations cover every feature scanned (a tree, a random forest of all features,
rotation forests) and a share drawn (random forests with half or the square root of the
features), on columns of many and of few values.

Data: make_classification (20,000 rows x 20 features; "rounded": np.round(10 X), about
a hundred values a column) and shared data sets (--data, default ../shared/datasets beside
the repository) sampled to at most --max-rows rows; configurations whose data set is
missing are skipped. The shared sets are read and sampled (per class in proportion) by
common.py, as bench_forest.py's loader did before.

    python benchmarks/bench_methods.py
    python benchmarks/bench_methods.py --only rotation   # configurations whose label has it
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time, header, iter_folder, prepared, table_head, table_row  # noqa: E402,E501

from rotforest import (DecisionTreeClassifier, RandomForestClassifier,  # noqa: E402
                       RotationForestClassifier, _builder)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def configurations(n_jobs):
    def rf(n, **kw):
        return lambda: RandomForestClassifier(n, n_jobs=n_jobs, random_state=0, **kw)

    def rof(n):
        return lambda: RotationForestClassifier(n, n_jobs=n_jobs, random_state=0)

    return [
        ("tree, all features", "rounded", lambda: DecisionTreeClassifier(random_state=0)),
        ("random forest, all features", "digits", rf(100, max_features=None)),
        ("random forest, half", "covertype_50k", rf(100, max_features=0.5)),
        ("random forest, sqrt", "synthetic", rf(100)),
        ("random forest, sqrt", "rounded", rf(100)),
        ("random forest, sqrt", "covertype_50k", rf(100)),
        ("random forest, sqrt", "optdigits", rf(100)),
        ("random forest, sqrt", "mnist_test10k", rf(50)),
        ("rotation forest", "kddcup99_10pct", rof(100)),
        ("rotation forest", "optdigits", rof(50)),
        ("rotation forest", "semeion", rof(50)),
    ]


def get_data(name, folder, max_rows):
    if name in ("synthetic", "rounded"):
        X, y = make_classification(20_000, 20, n_informative=10, random_state=0)
        return (np.round(X * 10) if name == "rounded" else X), y
    for _, X, y in iter_folder(folder, [name]):
        return prepared(X, y, max_rows, 3, np.random.default_rng(0), stratify=True)
    return None


def timed(make, X, y, method, repeat):
    previous = _builder._set_node_method(method)
    try:
        models = iter([make() for _ in range(repeat)])   # made outside the timings
        best, _ = best_time(lambda: next(models).fit(X, y), repeat)
    finally:
        _builder._set_node_method(previous)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--max-rows", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fits")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--only", help="run the configurations whose label has this text")
    args = parser.parse_args(argv)
    print(header("bench_methods"))
    print(f"# best of {args.repeat} fits, n_jobs={args.n_jobs}, at most {args.max_rows:,} "
          "rows of the shared data sets\n")
    print(table_head(["configuration", "data", "presort (s)", "sort (s)", "auto (s)",
                      "sort / presort", "auto / faster"], "llrrrrr"))
    for label, name, make in configurations(args.n_jobs):
        if args.only and args.only not in label:
            continue
        data = get_data(name, args.data, args.max_rows)
        if data is None:
            print(f"| {label} | {name} | missing | | | | |")
            continue
        X, y = data
        t = {m: timed(make, X, y, m, args.repeat) for m in ("presort", "sort", "auto")}
        print(table_row([label, name, f"{t['presort']:.3f}", f"{t['sort']:.3f}",
                         f"{t['auto']:.3f}", f"{t['sort'] / t['presort']:.2f}",
                         f"{t['auto'] / min(t['presort'], t['sort']):.2f}"]), flush=True)


if __name__ == "__main__":
    main()
