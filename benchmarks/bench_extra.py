"""rotforest's extra trees against scikit-learn's, side by side in one run.

Models: rotforest's ExtraTreesClassifier / ExtraTreesRegressor ("extra") and
scikit-learn's ("sk-extra"), --n-estimators trees (100), --n-jobs threads (2),
random_state=0, everything else at each library's defaults (no bootstrap; max_features
"sqrt" for classification, all features for regression).

Three parts (all by default; --parts picks):

- ``speed``: make_classification and make_regression data of --rows rows (100,000) and
  20 features (10 informative), plus 10,000 held-out rows: fit times (best of
  --repeat, ours and scikit-learn's alternating), their ratio, and the held-out
  accuracy or R^2.  The issue's target: fit at most 0.5x scikit-learn's.
- ``wide``: shared classification sets of several widths (adult 14 features,
  credit_default_taiwan 23, covertype_50k 54, optdigits 64, bio_kdd2004 74) and the
  wide ones (semeion 256, isolet 617, mnist_test10k 784, cnae9 856, hiva 1,617,
  olivetti_faces 4,096, arcene 10,000), at most --wide-rows rows (stratified), and
  make_classification data with 2,000 features (2,000 rows): one stratified 2/3-1/3
  split each (seed 0), fit time (best of --repeat, the two alternating), ratio and test
  accuracy.
- ``accuracy``: repeated stratified K-fold (--folds 5, --repeats 2, seed 0) on every
  shared classification set (at most --max-rows rows, 3,000) and K-fold on every shared
  regression set: the mean accuracy (R^2) of both, the mean paired difference in points
  with its standard error over the sets, and how many sets each is more than two
  corrected standard errors better on (Nadeau and Bengio's correction; see
  bench_accuracy.py).  The target: accuracy within 0.25 points of scikit-learn's on
  average.

    python benchmarks/bench_extra.py                       # the full run (about 20 min)
    python benchmarks/bench_extra.py --parts speed --rows 20000 --n-estimators 10 \\
        --repeat 1                                          # a quick look
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification, make_regression

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models, cross_validate_one, versus  # noqa: E402
from common import (best_time, header, iter_folder, markdown_table,  # noqa: E402
                    prepared, select_models)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(REPO), "shared")
WIDTHS = ("adult", "credit_default_taiwan", "covertype_50k", "optdigits", "bio_kdd2004",
          "isolet", "semeion", "cnae9", "mnist_test10k", "hiva", "arcene", "olivetti_faces")
PARTS = ("speed", "wide", "accuracy")


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--wide-rows", type=int, default=10_000)
    ap.add_argument("--synthetic-features", type=int, default=2_000)
    ap.add_argument("--max-rows", type=int, default=3_000)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--data", default=os.path.join(SHARED, "datasets"))
    ap.add_argument("--regression-data", default=os.path.join(SHARED, "datasets_regression"))
    ap.add_argument("--datasets", nargs="*", default=None,
                    help="only these shared sets (all parts)")
    return ap.parse_args(argv)


def _alternating(models, X, y, repeat):
    """Best fit time of each model over ``repeat`` rounds, the models alternating
    within a round (this machine's timings drift), and the last fitted models."""
    times = {k: np.inf for k in models}
    fitted = {}
    for _ in range(repeat):
        for key, (_, make) in models.items():
            t, est = best_time(lambda: make().fit(X, y))
            times[key] = min(times[key], t)
            fitted[key] = est
    return times, fitted


def speed(args):
    rows = []
    for task in ("classification", "regression"):
        n = args.rows + 10_000
        if task == "classification":
            X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                                       random_state=0)
        else:
            X, y = make_regression(n_samples=n, n_features=20, n_informative=10,
                                   noise=10.0, random_state=0)
        X_test, y_test, X, y = X[args.rows:], y[args.rows:], X[:args.rows], y[:args.rows]
        models = select_models(["extra", "sk-extra"], args.n_estimators, args.n_jobs, task)
        times, fitted = _alternating(models, X, y, args.repeat)
        score = {k: fitted[k].score(X_test, y_test) for k in models}
        rows.append([task, f"{args.rows:,} x 20", f"{times['extra']:.2f}",
                     f"{times['sk-extra']:.2f}", f"**{times['extra'] / times['sk-extra']:.3f}**",
                     f"{score['extra']:.4f}", f"{score['sk-extra']:.4f}"])
    print(f"\n## Fit at {args.rows:,} rows x 20 features ({args.n_estimators} trees, "
          f"n_jobs={args.n_jobs}; best of {args.repeat}, alternating)\n")
    print(markdown_table(["task", "data", "fit ours (s)", "fit sklearn (s)", "ratio",
                          "held out ours", "held out sklearn"], rows))


def wide(args):
    data = [(name, X, y) for name, X, y in iter_folder(args.data, args.datasets)
            if name in WIDTHS] if os.path.isdir(args.data) else []
    data.sort(key=lambda item: item[1].shape[1])
    if args.synthetic_features:
        X, y = make_classification(n_samples=2_000, n_features=args.synthetic_features,
                                   n_informative=20, n_redundant=20, n_classes=3,
                                   random_state=0)
        data.append((f"synthetic {args.synthetic_features} features", X, y))
    models = select_models(["extra", "sk-extra"], args.n_estimators, args.n_jobs)
    rows, ratios = [], []
    for name, X, y in data:
        X, y = prepared(X, y, args.wide_rows, 3, np.random.default_rng(0), stratify=True)
        fit = {k: np.inf for k in models}
        for _ in range(args.repeat):        # (the models alternate within a round)
            r = cross_validate_one(models, X, y, folds=None, seed=0)
            fit = {k: min(fit[k], float(r["fit"][k].mean())) for k in models}
        acc = {k: float(r["score"][k].mean()) for k in models}
        ratios.append(fit["extra"] / fit["sk-extra"])
        rows.append([name, f"{X.shape[0]:,} x {X.shape[1]:,}", f"{fit['extra']:.2f}",
                     f"{fit['sk-extra']:.2f}", f"**{ratios[-1]:.3f}**",
                     f"{acc['extra']:.4f}", f"{acc['sk-extra']:.4f}"])
    if not rows:
        return
    print(f"\n## Shared data of several widths, and wide data ({args.n_estimators} trees, "
          f"n_jobs={args.n_jobs}; one stratified 2/3-1/3 split, best of {args.repeat})\n")
    print(markdown_table(["data set", "rows x features", "fit ours (s)", "fit sklearn (s)",
                          "ratio", "accuracy ours", "accuracy sklearn"], rows))
    print(f"\nGeometric mean fit ratio: {np.exp(np.mean(np.log(ratios))):.3f}; "
          f"largest {max(ratios):.3f}")


def accuracy(args):
    for task, folder in (("classification", args.data),
                         ("regression", args.regression_data)):
        if not os.path.isdir(folder):
            print(f"\n(no {task} sets at {folder}: skipped)")
            continue
        models = select_models(["extra", "sk-extra"], args.n_estimators, args.n_jobs, task)
        data = [(name, (X, y)) for name, X, y in iter_folder(folder, args.datasets)]
        if not data:
            continue
        results = cross_validate_models(data, models, folds=args.folds,
                                        repeats=args.repeats, seed=0,
                                        max_rows=args.max_rows, task=task)
        v = versus(results, "extra", "sk-extra")
        what = "accuracy" if task == "classification" else "R^2"
        rows = [[name, f"{r['rows']:,} x {r['features']:,}",
                 f"{r['score']['extra'].mean():.4f}", f"{r['score']['sk-extra'].mean():.4f}",
                 f"{100 * m:+.2f} ± {100 * s:.2f}"]
                for (name, r), m, s in zip(results.items(), v["means"], v["ses"])]
        mean = {k: np.mean([r["score"][k].mean() for r in results.values()])
                for k in models}
        print(f"\n## {what.capitalize()} on the shared {task} sets ({args.folds}-fold x "
              f"{args.repeats}, at most {args.max_rows:,} rows, {args.n_estimators} trees)\n")
        print(markdown_table(["data set", "rows x features", f"{what} ours",
                              f"{what} sklearn", "ours - sklearn (points, corrected SE)"],
                             rows))
        print(f"\nMean {what}: ours {mean['extra']:.4f}, scikit-learn {mean['sk-extra']:.4f}; "
              f"difference {100 * v['means'].mean():+.2f} ± {100 * v['se_sets']:.2f} points "
              f"over {len(results)} sets; ours better on {v['better']}, worse on "
              f"{v['worse']} (2 corrected SE)")


def main(argv=None):
    args = parse(argv)
    print(header("bench_extra"))
    for part in args.parts:
        globals()[part](args)


if __name__ == "__main__":
    main()
