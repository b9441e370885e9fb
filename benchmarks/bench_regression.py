"""rotforest's regressors against scikit-learn's, side by side in one run.

Three parts (choose with --parts):

``tree``    DecisionTreeRegressor fit and predict against scikit-learn's on 20 Gaussian
            features with a smooth target plus noise, at --sizes rows, for each of
            --criteria; ratios are ours / scikit-learn's (below 1 is faster).
``forest``  RandomForestRegressor against scikit-learn's (100 trees, n_jobs=2 by default)
            at --forest-sizes rows of the same data.
``suite``   Repeated K-fold R^2 on the shared regression data sets (--data, default
            ../shared/datasets_regression beside the project): our random forest and
            rotation forest against scikit-learn's random forest, extra trees and
            histogram gradient boosting (and aeon's RotationForestRegressor when aeon is
            installed and --aeon is given; Yggdrasil Decision Forests' random forest,
            axis-aligned and sparse oblique, with --ydf), each data set's mean R^2, the
            models' mean
            R^2 and mean rank, fit times, and paired differences (ours against theirs)
            with the Nadeau-Bengio corrected standard error of each data set's folds.
            Missing cells are left as NaN for the models that take them and imputed with
            the training means for the others.

    python benchmarks/bench_regression.py --parts tree --sizes 10000 100000 1000000
    python benchmarks/bench_regression.py --parts forest --forest-sizes 100000
    python benchmarks/bench_regression.py --parts suite --repeats 2 --folds 3
"""
import argparse
import glob
import os
import platform
import time
from datetime import date

import numpy as np
import sklearn
from sklearn.ensemble import (ExtraTreesRegressor, HistGradientBoostingRegressor,
                              RandomForestRegressor as SkForest)
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RepeatedKFold
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeRegressor as SkTree

from rotforest import (DecisionTreeRegressor, RandomForestRegressor,
                       RotationForestRegressor)

from bench_accuracy import corrected_se   # (benchmarks/ is on the path when a
from bench_tree import best_time          #  script runs)
from compare import YdfForest

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared",
                            "datasets_regression")


def make_data(n, seed=0, n_features=20):
    """Gaussian features; a smooth target of five of them plus noise (positive for the
    Poisson criterion: its exponential)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (2.0 * X[:, 0] + np.sin(3.0 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.5 * X[:, 4] ** 2
         + rng.normal(size=n))
    return X, y


def tree_part(sizes, criteria, repeat):
    print("\n## DecisionTreeRegressor, fully grown, 20 features\n")
    print("| rows | criterion | ours fit (s) | sklearn fit (s) | fit ratio | "
          "ours predict (s) | sklearn predict (s) | predict ratio | same predictions |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for n in sizes:
        X, y = make_data(n)
        for criterion in criteria:
            target = np.exp(y / 3.0) if criterion == "poisson" else y
            sk_repeat = 1 if n >= 500_000 else repeat
            a, ours = best_time(lambda: DecisionTreeRegressor(criterion=criterion,
                                                              random_state=0).fit(X, target),
                                repeat)
            b, theirs = best_time(lambda: SkTree(criterion=criterion,
                                                 random_state=0).fit(X, target), sk_repeat)
            pa, p1 = best_time(lambda: ours.predict(X), repeat)
            pb, p2 = best_time(lambda: theirs.predict(X), repeat)
            same = np.allclose(p1, p2)
            print(f"| {n:,} | {criterion} | {a:.3f} | {b:.3f} | {a / b:.3f} | {pa:.3f} | "
                  f"{pb:.3f} | {pa / pb:.2f} | {'yes' if same else 'no'} |", flush=True)


def forest_part(sizes, n_estimators, n_jobs):
    print(f"\n## RandomForestRegressor, {n_estimators} trees, n_jobs={n_jobs}, "
          "20 features\n")
    print("| rows | ours fit (s) | sklearn fit (s) | fit ratio | ours predict (s) | "
          "sklearn predict (s) | R^2 ours | R^2 sklearn (held-out 20%) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        X, y = make_data(n + n // 4)
        Xt, yt, X, y = X[n:], y[n:], X[:n], y[:n]
        a, ours = best_time(lambda: RandomForestRegressor(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0).fit(X, y), 1)
        b, theirs = best_time(lambda: SkForest(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0).fit(X, y), 1)
        pa, _ = best_time(lambda: ours.predict(Xt), 1)
        pb, _ = best_time(lambda: theirs.predict(Xt), 1)
        print(f"| {n:,} | {a:.2f} | {b:.2f} | {a / b:.3f} | {pa:.3f} | {pb:.3f} | "
              f"{ours.score(Xt, yt):.4f} | {theirs.score(Xt, yt):.4f} |", flush=True)


def suite_models(n_estimators, n_jobs, aeon, ydf=False):
    imputed = lambda est: make_pipeline(SimpleImputer(), est)  # noqa: E731
    models = {
        "rotforest RF": lambda: RandomForestRegressor(n_estimators=n_estimators,
                                                      n_jobs=n_jobs, random_state=0),
        "rotforest RoF": lambda: RotationForestRegressor(n_estimators=n_estimators,
                                                         n_jobs=n_jobs, random_state=0),
        "sklearn RF": lambda: SkForest(n_estimators=n_estimators, n_jobs=n_jobs,
                                       random_state=0),
        "sklearn ET": lambda: imputed(ExtraTreesRegressor(n_estimators=n_estimators,
                                                          n_jobs=n_jobs, random_state=0)),
        "sklearn HGB": lambda: HistGradientBoostingRegressor(random_state=0),
    }
    if aeon:
        from aeon.regression.sklearn import RotationForestRegressor as AeonRotation
        models["aeon RotF"] = lambda: imputed(AeonRotation(n_estimators=n_estimators,
                                                           n_jobs=n_jobs, random_state=0))
    if ydf:
        models["ydf RF"] = lambda: YdfForest(n_estimators, task="regression", n_jobs=n_jobs)
        models["ydf oblique"] = lambda: YdfForest(n_estimators, oblique=True,
                                                  task="regression", n_jobs=n_jobs)
    return models


def load_suite(folder, max_rows):
    data = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.npz"))):
        with np.load(path, allow_pickle=False) as f:
            X, y = f["X"].astype(np.float64), f["y"].astype(np.float64)
        if max_rows and len(y) > max_rows:
            keep = np.random.default_rng(0).choice(len(y), max_rows, replace=False)
            keep.sort()
            X, y = X[keep], y[keep]
        data[os.path.basename(path)[:-4]] = (X, y)
    return data


def suite_part(folder, names, folds, repeats, n_estimators, n_jobs, max_rows, aeon,
               ydf=False):
    if not os.path.isdir(folder):
        print(f"\n(no regression data sets at {folder}: suite skipped)")
        return None
    data = load_suite(folder, max_rows)
    if names:
        data = {k: v for k, v in data.items() if k in names}
    models = suite_models(n_estimators, n_jobs, aeon, ydf)
    print(f"\n## Shared regression suite: R^2 of {repeats} x {folds}-fold CV, "
          f"{n_estimators} trees, n_jobs={n_jobs}, at most {max_rows:,} rows a set\n")
    print("| data set | rows | features | " + " | ".join(models) + " | "
          + " | ".join(f"{m} fit (s)" for m in models) + " |")
    print("|---|---:|---:|" + "---:|" * (2 * len(models)))
    scores = {m: [] for m in models}
    folds_of = {m: [] for m in models}       # every data set's fold scores
    fits = {m: 0.0 for m in models}
    for name, (X, y) in data.items():
        cv = RepeatedKFold(n_splits=folds, n_repeats=repeats, random_state=0)
        row = {m: [] for m in models}
        times = {m: 0.0 for m in models}
        for train, test in cv.split(X):
            for m, make in models.items():
                est = make()
                t = time.perf_counter()
                est.fit(X[train], y[train])
                times[m] += time.perf_counter() - t
                row[m].append(est.score(X[test], y[test]))
        for m in models:
            scores[m].append(np.mean(row[m]))
            folds_of[m].append(np.array(row[m]))
            fits[m] += times[m]
        print(f"| {name} | {len(y):,} | {X.shape[1]} | "
              + " | ".join(f"{np.mean(row[m]):.4f}" for m in models) + " | "
              + " | ".join(f"{times[m]:.1f}" for m in models) + " |", flush=True)
    table = np.array([scores[m] for m in models])          # models x data sets
    ranks = np.mean([np.argsort(np.argsort(-table[:, j])) + 1
                     for j in range(table.shape[1])], axis=0)
    print("\n| model | mean R^2 | mean rank | total fit (s) |\n|---|---:|---:|---:|")
    for i, m in enumerate(models):
        print(f"| {m} | {table[i].mean():.4f} | {ranks[i]:.2f} | {fits[m]:.1f} |")
    print("\n| ours - theirs | mean R^2 difference | sets better / worse | significantly "
          "better / worse (corrected) | fit time ratio |\n|---|---:|---:|---:|---:|")
    pairs = [("rotforest RF", "sklearn RF"), ("rotforest RoF", "sklearn RF"),
             ("rotforest RoF", "sklearn ET"), ("rotforest RoF", "aeon RotF"),
             ("rotforest RF", "ydf RF"), ("rotforest RoF", "ydf oblique")]
    for ours, theirs in pairs:
        if ours not in models or theirs not in models:
            continue
        diffs = [a - b for a, b in zip(folds_of[ours], folds_of[theirs])]
        means = np.array([d.mean() for d in diffs])
        # a K-fold test set is 1/K of the data, its training set (K - 1)/K
        se = np.array([corrected_se(d, folds - 1, 1) for d in diffs])
        print(f"| {ours} - {theirs} | {means.mean():+.4f} | {np.sum(means > 0)} / "
              f"{np.sum(means < 0)} | {np.sum(means > 2 * se)} / {np.sum(means < -2 * se)} "
              f"| {fits[ours] / fits[theirs]:.3f} |")
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="tree,forest,suite")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--criteria", default="squared_error,poisson,absolute_error")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forest-sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--datasets", default="", help="comma-separated names (default all)")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--aeon", action="store_true", help="add aeon's rotation forest")
    parser.add_argument("--ydf", action="store_true",
                        help="add Yggdrasil Decision Forests' random forests (ydf)")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    print(f"# bench_regression: {date.today()}, {platform.machine()} "
          f"({os.cpu_count()} cores), Python {platform.python_version()}, "
          f"scikit-learn {sklearn.__version__}")
    if "tree" in parts:
        tree_part(args.sizes, args.criteria.split(","), args.repeat)
    if "forest" in parts:
        forest_part(args.forest_sizes, args.n_estimators, args.n_jobs)
    if "suite" in parts:
        names = [s for s in args.datasets.split(",") if s]
        suite_part(args.data, names, args.folds, args.repeats, args.n_estimators,
                   args.n_jobs, args.max_rows, args.aeon, args.ydf)


if __name__ == "__main__":
    main()
