"""Native categories against the one-hot pipeline, over independent draws of
bench_sparse.py's categorical data: held-out accuracy and fit time, paired per seed.

For each seed s in --seeds, bench_sparse's ``categorical_frame(--rows, (2000, 300, 20),
s)`` (10 numeric columns; city, product and plan of 2,000, 300 and 20 levels as pandas
``category`` columns; a binary target) is split 75 / 25 (random_state=s) and three
rotforest random forests of --trees trees (n_jobs=--n-jobs, random_state=0) are fitted:

``one-hot``  the forest in bench_sparse's one-hot pipeline (OneHotEncoder, sparse)
``native``   the forest on the DataFrame, native categories at the defaults
``sets``     native, ``categorical_set_fraction=1.0`` and ``min_category_samples=3``

Printed: each seed's accuracies and fit times, then the mean difference of each native
model against one-hot in points with the standard error of the seeds' differences
(the seeds are independent data sets, so no correction is needed).

    python benchmarks/bench_native_onehot.py            # 5 seeds, 100 trees
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sparse import categorical_frame, make_model  # noqa: E402
from common import header, markdown_table  # noqa: E402

import rotforest  # noqa: E402


def main(argv=None):
    from sklearn.model_selection import train_test_split
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--rows", type=int, default=40_000)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)
    print(header("bench_native_onehot.py"))
    print(f"# {args.rows:,} rows a seed, {args.trees} trees, n_jobs={args.n_jobs}\n")
    forest = dict(n_estimators=args.trees, n_jobs=args.n_jobs, random_state=0)
    keys = ("one-hot", "native", "sets")
    rows, scores = [], []
    for seed in [int(s) for s in args.seeds.split(",")]:
        X, y = categorical_frame(args.rows, (2000, 300, 20), seed)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed)
        models = {"one-hot": make_model("onehot", "ours", args, Xtr),
                  "native": rotforest.RandomForestClassifier(**forest),
                  "sets": rotforest.RandomForestClassifier(
                      categorical_set_fraction=1.0, min_category_samples=3, **forest)}
        row, acc = [str(seed)], []
        for key in keys:
            start = time.perf_counter()
            models[key].fit(Xtr, ytr)
            fit = time.perf_counter() - start
            acc.append(100 * models[key].score(Xte, yte))
            row += [f"{acc[-1]:.2f}", f"{fit:.2f}"]
        rows.append(row)
        scores.append(acc)
    print(markdown_table(["seed", *(f"{k} {w}" for k in keys for w in ("accuracy", "fit (s)"))],
                         rows))
    scores = np.array(scores)
    print()
    for j, key in enumerate(keys[1:], start=1):
        d = scores[:, j] - scores[:, 0]
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        print(f"{key} - one-hot: {d.mean():+.2f} ± {se:.2f} points over {len(d)} seeds")
    return scores


if __name__ == "__main__":
    main()
