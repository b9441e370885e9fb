"""Multi-output targets (y of shape (n, k)): rotforest's forests and trees against
scikit-learn's, side by side in one run.

Synthetic data, 20 Gaussian features, --rows training rows and --test-rows held out:

``forest-regression``      RandomForestRegressor on 3 correlated continuous targets (a
                           shared nonlinear signal, a part of each target's own and
                           correlated noise); fit and predict times, and R^2 on the held-out
                           rows (the mean over the targets, scikit-learn's default).
``forest-classification``  RandomForestClassifier on 3 outputs of 3, 4 and 2 classes
                           (noisy nonlinear functions of the features cut at quantiles);
                           times and the held-out accuracy, averaged over the outputs.
``trees``                  DecisionTreeRegressor and DecisionTreeClassifier, fully grown, on
                           the same data: times and held-out scores.

Both libraries get the same parameters (--n-estimators trees, --n-jobs threads,
random_state=0, each library's default max_features: all features for regression,
sqrt of them for classification).  Times are the best of --repeat runs; ratios are ours /
scikit-learn's (below 1 is faster).  ``--quick``: small sizes for a smoke run.
``--sides sklearn`` (or ``ours``) times one library alone.

    python benchmarks/bench_multioutput.py                       # 80,000 x 20 x 3, 50 trees
    python benchmarks/bench_multioutput.py --quick
    python benchmarks/bench_multioutput.py --parts trees --rows 200000
"""
import argparse
import os
import sys

import numpy as np
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor
from sklearn.metrics import r2_score
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time, header, markdown_table  # noqa: E402

PARTS = ("forest-regression", "forest-classification", "trees")
SIDES = ("both", "ours", "sklearn")


def _signals(X, rng):
    """Three nonlinear functions of the first features, sharing a common part."""
    common = 2.0 * X[:, 0] + np.sin(3.0 * X[:, 1]) + X[:, 2] * X[:, 3]
    return np.column_stack([
        common + 0.5 * X[:, 4] ** 2,
        0.7 * common - 1.5 * X[:, 5] + np.abs(X[:, 6]),
        -0.5 * common + np.cos(2.0 * X[:, 7]) * X[:, 8] + X[:, 9],
    ])


def regression_data(n, n_features=20, seed=0):
    """X (n, n_features) Gaussian; y (n, 3): the signals plus noise correlated across the
    targets (correlation 0.5)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    cov = np.full((3, 3), 0.5) + 0.5 * np.eye(3)
    noise = rng.multivariate_normal(np.zeros(3), cov, size=n)
    return X, _signals(X, rng) + noise


def classification_data(n, n_features=20, seed=0, n_classes=(3, 4, 2)):
    """X as for regression_data; y (n, 3) of integer labels, output k with n_classes[k]
    classes: its noisy signal cut at the quantiles of the signal's distribution."""
    X, y = regression_data(n, n_features, seed)
    ref = regression_data(20_000, n_features, seed=12345)[1]     # the same cut points
    labels = np.empty(y.shape, dtype=np.int64)                   # whatever n is
    for k, c in enumerate(n_classes):
        labels[:, k] = np.digitize(y[:, k], np.quantile(ref[:, k], np.arange(1, c) / c))
    return X, labels


def mean_accuracy(y_true, y_pred):
    return float(np.mean([np.mean(y_true[:, k] == y_pred[:, k])
                          for k in range(y_true.shape[1])]))


def measure(make, X, y, Xt, yt, score, repeat):
    """Best fit time of ``repeat`` fits, the predict time of the last model on Xt, and
    its held-out score."""
    fit_time, model = best_time(lambda: make().fit(X, y), repeat)
    model.predict(Xt[:10])                  # a first call may lay the trees out
    predict_time, pred = best_time(lambda: model.predict(Xt), repeat)
    assert pred.shape == yt.shape, (type(model).__name__, pred.shape, yt.shape)
    return fit_time, predict_time, score(yt, pred)


def cases(args):
    """(part, label, ours factory, scikit-learn factory, data, score name, score)."""
    n, m = args.rows, args.test_rows
    forest = dict(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=0)
    out = []
    if "forest-regression" in args.parts or "trees" in args.parts:
        X, y = regression_data(n + m, seed=0)
        reg = (X[:n], y[:n], X[n:], y[n:])
    if "forest-classification" in args.parts or "trees" in args.parts:
        X, y = classification_data(n + m, seed=1)
        clf = (X[:n], y[:n], X[n:], y[n:])
    if "forest-regression" in args.parts:
        out.append(("forest-regression",
                    f"RandomForestRegressor ({args.n_estimators} trees, n_jobs={args.n_jobs})",
                    lambda: RandomForestRegressor(max_features=1.0, **forest),
                    lambda: SkForestRegressor(max_features=1.0, **forest),
                    reg, "R^2", r2_score))
    if "forest-classification" in args.parts:
        out.append(("forest-classification",
                    f"RandomForestClassifier ({args.n_estimators} trees, n_jobs={args.n_jobs})",
                    lambda: RandomForestClassifier(max_features="sqrt", **forest),
                    lambda: SkForestClassifier(max_features="sqrt", **forest),
                    clf, "mean accuracy", mean_accuracy))
    if "trees" in args.parts:
        out.append(("trees", "DecisionTreeRegressor",
                    lambda: DecisionTreeRegressor(random_state=0),
                    lambda: SkTreeRegressor(random_state=0), reg, "R^2", r2_score))
        out.append(("trees", "DecisionTreeClassifier",
                    lambda: DecisionTreeClassifier(random_state=0),
                    lambda: SkTreeClassifier(random_state=0), clf, "mean accuracy",
                    mean_accuracy))
    return out


def _cell(value, fmt):
    return "-" if value is None else format(value, fmt)


def run(args):
    rows = []
    for part, label, ours, theirs, data, score_name, score in cases(args):
        X, y, Xt, yt = data
        result = {}
        for side, make in (("ours", ours), ("sklearn", theirs)):
            if args.sides in ("both", side):
                result[side] = measure(make, X, y, Xt, yt, score, args.repeat)
        fit_o, pred_o, score_o = result.get("ours", (None, None, None))
        fit_s, pred_s, score_s = result.get("sklearn", (None, None, None))
        both = "ours" in result and "sklearn" in result
        row = [label, f"{len(X):,} x {X.shape[1]} x {y.shape[1]}",
               _cell(fit_o, ".3f"), _cell(fit_s, ".3f"),
               _cell(fit_o / fit_s if both else None, ".3f"),
               _cell(pred_o, ".4f"), _cell(pred_s, ".4f"),
               _cell(pred_o / pred_s if both else None, ".2f"),
               f"{score_name}: {_cell(score_o, '.4f')} / {_cell(score_s, '.4f')}"]
        rows.append(row)
        print(f"  {label}: done", file=sys.stderr, flush=True)
    columns = ["model", "train rows x features x outputs", "fit ours (s)",
               "fit sklearn (s)", "fit ratio", "predict ours (s)", "predict sklearn (s)",
               "predict ratio", f"held out ({args.test_rows:,} rows) ours / sklearn"]
    print(f"\n## Multi-output targets: best of {args.repeat} fits; ratios ours / "
          "scikit-learn's\n")
    print(markdown_table(columns, rows, align="l" + "r" * 7 + "l"))
    return rows


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated, among {', '.join(PARTS)}")
    parser.add_argument("--rows", type=int, default=80_000, help="training rows")
    parser.add_argument("--test-rows", type=int, default=20_000, help="held-out rows")
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="best of this many fits")
    parser.add_argument("--sides", choices=SIDES, default="both",
                        help="time both libraries, or one of them alone")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 4,000 + 1,000 rows, 10 trees, one fit each")
    args = parser.parse_args(argv)
    args.parts = [p for p in args.parts.split(",") if p]
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown parts {unknown}; choose among {list(PARTS)}")
    if args.quick:
        args.rows, args.test_rows, args.n_estimators, args.repeat = 4_000, 1_000, 10, 1
    return args


def main(argv=None):
    args = parse(argv)
    print(header("bench_multioutput"))
    return run(args)


if __name__ == "__main__":
    main()
