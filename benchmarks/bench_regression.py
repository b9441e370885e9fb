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
            the training means for the others. The models are common.py's registry
            entries, the data sets read and sampled by common.py (uniformly, seed 0
            for every set: the rows as before), the folds and fits
            bench_accuracy.py's ``cross_validate_models`` (RepeatedKFold, seed 0: the
            folds as before); the corrected standard error now uses the mean fold
            sizes rather than 1 / (folds - 1), the same up to rounding, and tied
            scores share their mean rank.

    python benchmarks/bench_regression.py --parts tree --sizes 10000 100000 1000000
    python benchmarks/bench_regression.py --parts forest --forest-sizes 100000
    python benchmarks/bench_regression.py --parts suite --repeats 2 --folds 3
"""
import argparse
import os
import sys

import numpy as np
from sklearn.ensemble import RandomForestRegressor as SkForest
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeRegressor as SkTree

from rotforest import DecisionTreeRegressor, RandomForestRegressor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_accuracy import cross_validate_models, mean_ranks, versus  # noqa: E402
from common import (available_models, best_time, header, iter_folder,  # noqa: E402
                    prepared, table_head, table_row)

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


# this script's labels of common.py's registry keys (regressors)
SUITE = {"forest": "rotforest RF", "rotation": "rotforest RoF", "sk-forest": "sklearn RF",
         "sk-extra": "sklearn ET", "sk-hgb": "sklearn HGB", "aeon": "aeon RotF",
         "ydf-forest": "ydf RF", "ydf-oblique": "ydf oblique"}
# the models whose missing cells are imputed with the training means
MEAN_IMPUTED = ("sk-extra", "aeon")


def suite_models(n_estimators, n_jobs, aeon, ydf=False):
    """label -> factory of the suite's models: common.py's registry entries."""
    known = available_models(n_estimators, n_jobs, task="regression")
    keys = ["forest", "rotation", "sk-forest", "sk-extra", "sk-hgb"]
    if aeon:
        if "aeon" not in known:
            raise SystemExit("--aeon: aeon is not installed")
        keys.append("aeon")
    if ydf:
        if "ydf-forest" not in known:
            raise SystemExit("--ydf: ydf is not installed")
        keys += ["ydf-forest", "ydf-oblique"]
    models = {}
    for key in keys:
        make = known[key][1]
        if key in MEAN_IMPUTED:
            models[SUITE[key]] = lambda make=make: make_pipeline(SimpleImputer(), make())
        else:
            models[SUITE[key]] = make
    return models


def load_suite(folder, max_rows):
    """name -> (X, y) of the regression sets, at most max_rows rows drawn uniformly
    (seed 0 afresh for every data set)."""
    return {name: prepared(X, y, max_rows, None, np.random.default_rng(0), "regression")
            for name, X, y in iter_folder(folder)}


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
    print(table_head(["data set", "rows", "features", *models,
                      *(f"{m} fit (s)" for m in models)]))

    def row(name, res):
        print(table_row([name, f"{res['rows']:,}", res["features"],
                         *(f"{res['score'][m].mean():.4f}" for m in models),
                         *(f"{res['fit'][m].sum():.1f}" for m in models)]), flush=True)

    results = cross_validate_models(data, models, folds, repeats, seed=0,
                                    task="regression", nan="none", report=row)
    if not results:
        return None
    fits = {m: sum(r["fit"][m].sum() for r in results.values()) for m in models}
    ranks, table = mean_ranks(results, list(models))       # data sets x models
    print("\n" + table_head(["model", "mean R^2", "mean rank", "total fit (s)"]))
    for i, m in enumerate(models):
        print(table_row([m, f"{table[:, i].mean():.4f}", f"{ranks[i]:.2f}",
                         f"{fits[m]:.1f}"]))
    print("\n" + table_head(["ours - theirs", "mean R^2 difference", "sets better / worse",
                             "significantly better / worse (corrected)",
                             "fit time ratio"]))
    pairs = [("rotforest RF", "sklearn RF"), ("rotforest RoF", "sklearn RF"),
             ("rotforest RoF", "sklearn ET"), ("rotforest RoF", "aeon RotF"),
             ("rotforest RF", "ydf RF"), ("rotforest RoF", "ydf oblique")]
    for ours, theirs in pairs:
        if ours not in models or theirs not in models:
            continue
        v = versus(results, ours, theirs)
        means = v["means"]
        print(table_row([f"{ours} - {theirs}", f"{means.mean():+.4f}",
                         f"{np.sum(means > 0)} / {np.sum(means < 0)}",
                         f"{v['better']} / {v['worse']}",
                         f"{fits[ours] / fits[theirs]:.3f}"]))
    return table.T


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
    print(header("bench_regression"))
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
