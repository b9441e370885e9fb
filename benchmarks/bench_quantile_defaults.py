"""The rotation quantile forest's defaults (``min_samples_leaf=2, group_size=2``) against
its regressor's (1 and 3), by repeated K-fold with paired, corrected standard errors, on
synthetic families of the kinds of data a user may hold and on the shared regression
sets.

For each data set both settings fit on the same folds (--folds-fold K-fold repeated
--repeats times, seed 0; --n-estimators trees, n_jobs=2, random_state=0), and the
score is the mean pinball loss over the 5%, 50% and 95% quantiles on the held-out fold.
The table gives the paired difference of the log losses as a percentage (negative: the
defaults are better), its corrected standard error (Nadeau and Bengio; see
bench_accuracy.py) and the verdict at two standard errors.  The families (--rows rows
each): a sparse signal among noise (Friedman's first function and 95 noise features),
counts (a Poisson target), few-valued columns, a heteroscedastic smooth curve, and wide
linear data (200 features, 10 informative).

    python benchmarks/bench_quantile_defaults.py                 # the guide's table
    python benchmarks/bench_quantile_defaults.py --quick         # seconds
"""
import argparse
import os
import sys

import numpy as np
from sklearn.metrics import mean_pinball_loss

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, splits  # noqa: E402
from common import header, iter_folder, markdown_table, prepared  # noqa: E402

from rotforest import RotationForestQuantileRegressor  # noqa: E402

LEVELS = (0.05, 0.5, 0.95)
SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "shared", "datasets_regression")
FAMILIES = ("sparse signal among noise", "counts", "few-valued columns",
            "heteroscedastic smooth", "wide linear")


def family(kind, n, rng):
    """X, y of one synthetic family."""
    if kind == "sparse signal among noise":       # Friedman #1 and 95 noise features
        X = rng.uniform(size=(n, 100))
        y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2
             + 10 * X[:, 3] + 5 * X[:, 4] + rng.normal(size=n))
    elif kind == "counts":
        X = rng.normal(size=(n, 10))
        y = rng.poisson(np.exp(0.5 * X[:, 0] + 0.3 * X[:, 1])).astype(float)
    elif kind == "few-valued columns":
        X = rng.integers(0, 4, size=(n, 20)).astype(float)
        y = X[:, 0] * X[:, 1] - X[:, 2] + rng.normal(size=n) * (1 + X[:, 3])
    elif kind == "heteroscedastic smooth":
        X = rng.uniform(0, 10, size=(n, 5))
        y = np.sin(X[:, 0]) + rng.normal(size=n) * (0.1 + 0.1 * X[:, 0])
    else:                                         # wide linear
        X = rng.normal(size=(n, 200))
        y = X[:, :10] @ rng.normal(size=10) + rng.normal(size=n)
    return X, y


def _loss(params, n_estimators, X, y, train, test):
    model = RotationForestQuantileRegressor(n_estimators=n_estimators, n_jobs=2,
                                            random_state=0, **params)
    pred = model.fit(X[train], y[train]).predict(X[test], quantiles=list(LEVELS))
    return np.mean([mean_pinball_loss(y[test], pred[:, j], alpha=a)
                    for j, a in enumerate(LEVELS)])


def compare(X, y, args):
    """The paired log-loss differences (defaults minus the regressor's settings) over
    the folds, their mean and corrected standard error."""
    parts = splits(y, args.folds, args.repeats, seed=0, task="regression")
    d = np.array([np.log(_loss({}, args.n_estimators, X, y, a, b)
                         / _loss({"min_samples_leaf": 1, "group_size": 3},
                                 args.n_estimators, X, y, a, b)) for a, b in parts])
    se = corrected_se(d, np.mean([len(a) for a, _ in parts]),
                      np.mean([len(b) for _, b in parts]))
    return float(d.mean()), se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-estimators", type=int, default=50)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--rows", type=int, default=1500)
    ap.add_argument("--max-rows", type=int, default=2000)
    ap.add_argument("--data", default=SHARED)
    ap.add_argument("--quick", action="store_true", help="small: 5 trees, 300 rows")
    args = ap.parse_args(argv)
    if args.quick:
        args.n_estimators, args.rows, args.max_rows, args.repeats = 5, 300, 300, 1
    print(header("bench_quantile_defaults"))
    rng = np.random.default_rng(0)
    rows, shared = [], []
    data = [(kind, *family(kind, args.rows, rng)) for kind in FAMILIES]
    if os.path.isdir(args.data) and not args.quick:
        data += [(name, *prepared(X, y, args.max_rows, args.folds,
                                  np.random.default_rng(0), task="regression"))
                 for name, X, y in iter_folder(args.data)]
    for name, X, y in data:
        mean, se = compare(X, y, args)
        if name not in FAMILIES:
            shared.append((mean, se))
        verdict = "worse" if mean > 2 * se else ("better" if mean < -2 * se else "noise")
        rows.append([name, f"{X.shape[0]:,} x {X.shape[1]}",
                     f"{100 * (np.exp(mean) - 1):+.1f}%", f"{100 * se:.1f}%", verdict])
    print(f"\n## The rotation quantile forest's defaults against (1, 3): pinball loss "
          f"({args.folds}-fold x {args.repeats}, {args.n_estimators} trees)\n")
    print(markdown_table(["data", "rows x features", "defaults vs (1, 3)",
                          "corrected SE", "at 2 SE"], rows))
    if shared:
        m = np.array([a for a, _ in shared])
        print(f"\nShared sets: mean {100 * (np.exp(m.mean()) - 1):+.2f}% "
              f"± {100 * m.std(ddof=1) / np.sqrt(len(m)):.2f}%; worse on "
              f"{sum(a > 2 * s for a, s in shared)}, better on "
              f"{sum(a < -2 * s for a, s in shared)} (2 corrected SE)")
    return rows


if __name__ == "__main__":
    main()
