"""Pruning speed and effect, ours against scikit-learn's, side by side in one run.

1. On a fully grown tree of 100k rows (make_classification, 20 features, 5% label noise):
   the time to compute the cost-complexity pruning path of the fitted tree, and to prune
   it at one alpha, for both libraries (the fit itself is not timed).
2. On 20% flipped labels: leaves and held-out accuracy of the unpruned tree, of
   reduced-error pruning (30% held out) and of cost-complexity pruning with ccp_alpha
   chosen by 5-fold cross-validation on the path.
3. Does pruning each forest tree on its out-of-bag samples help? RandomForestClassifier
   with and without ``oob_pruning`` on the noisy data, and with ``--data FOLDER`` by
   stratified 3-fold CV on every NAME.npz there (at most --max-rows rows, median
   imputation of missing cells), by bench_accuracy.py's ``cross_validate_models`` (the
   same folds as before; the shared sets read and sampled by common.py).

    python benchmarks/bench_pruning.py
    python benchmarks/bench_pruning.py --data ../shared/datasets
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.tree._tree import ccp_pruning_path as sk_path   # scikit-learn's own kernel

from rotforest import DecisionTreeClassifier, RandomForestClassifier
from rotforest.pruning import cost_complexity_path, prune_cost_complexity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models  # noqa: E402
from common import (header, iter_folder, prepared, table_head,  # noqa: E402
                    table_row)
from common import best_time as timed  # noqa: E402


def best_time(fn, repeat=5):
    """The best of ``repeat`` wall times of fn (common.best_time without the result)."""
    return timed(fn, repeat)[0]


def speed(n):
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, flip_y=0.05,
                               random_state=0)
    ours = DecisionTreeClassifier(random_state=0).fit(X, y)
    sk = SkTree(random_state=0).fit(X, y)
    alphas = cost_complexity_path(ours.tree_)[0]
    alpha = float(np.quantile(alphas, 0.9))
    t_path_o = best_time(lambda: cost_complexity_path(ours.tree_))
    t_path_s = best_time(lambda: sk_path(sk.tree_))

    def sk_prune():
        est = SkTree(random_state=0)
        est.__dict__.update(sk.__dict__)
        est.ccp_alpha = alpha
        est._prune_tree()

    t_prune_o = best_time(lambda: prune_cost_complexity(ours.tree_, alpha))
    t_prune_s = best_time(sk_prune)
    print(f"| {n:,} | {ours.tree_.node_count} / {sk.tree_.node_count} | {t_path_o:.4f} "
          f"| {t_path_s:.4f} | {t_path_o / t_path_s:.2f} | {t_prune_o:.4f} | {t_prune_s:.4f} "
          f"| {t_prune_o / t_prune_s:.2f} |")


def effect():
    X, y = make_classification(n_samples=10_000, n_features=10, n_informative=5,
                               flip_y=0.0, random_state=0)
    noisy = np.where(np.random.default_rng(0).random(len(y)) < 0.2, 1 - y, y)
    Xa, Xb, ya, yb = train_test_split(X, noisy, test_size=0.3, random_state=0)
    full = DecisionTreeClassifier(random_state=0).fit(Xa, ya)
    rep = DecisionTreeClassifier(random_state=0, validation_fraction=0.3).fit(Xa, ya)
    alphas = full.cost_complexity_pruning_path(Xa, ya).ccp_alphas
    grid = np.unique(np.quantile(alphas, np.linspace(0.5, 1.0, 26)[:-1]))
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": grid}, cv=5)
    ccp = search.fit(Xa, ya).best_estimator_
    print("| tree | leaves | held-out accuracy (noisy labels) |")
    print("|---|---:|---:|")
    for name, model in (("unpruned", full), ("reduced-error, 30% held out", rep),
                        (f"cost-complexity, ccp_alpha={search.best_params_['ccp_alpha']:.2e} "
                         "(5-fold CV)", ccp)):
        print(f"| {name} | {model.get_n_leaves()} | {model.score(Xb, yb):.4f} |")


def forests(args):
    X, y = make_classification(n_samples=10_000, n_features=10, n_informative=5,
                               flip_y=0.0, random_state=0)
    noisy = np.where(np.random.default_rng(0).random(len(y)) < 0.2, 1 - y, y)
    Xa, Xb, ya, yb = train_test_split(X, noisy, test_size=0.3, random_state=0)
    print("\n| forest (100 trees), 20% flipped labels | mean leaves per tree "
          "| held-out accuracy |")
    print("|---|---:|---:|")
    for flag in (False, True):
        f = RandomForestClassifier(n_jobs=2, random_state=0, oob_pruning=flag).fit(Xa, ya)
        leaves = np.mean([t.get_n_leaves() for t in f.estimators_])
        print(f"| oob_pruning={flag} | {leaves:.0f} | {f.score(Xb, yb):.4f} |")
    if not args.data:
        return
    print("\n" + table_head([f"data set (stratified 3-fold CV, at most {args.max_rows:,} "
                             "rows)", "accuracy", "accuracy with oob_pruning",
                             "mean leaves", "with oob_pruning"]))
    models = {flag: lambda flag=flag: RandomForestClassifier(n_jobs=2, random_state=0,
                                                             oob_pruning=flag)
              for flag in (False, True)}
    diffs = []

    def row(name, res):
        acc, leaves = res["score"], res["measure"]
        diffs.append(acc[True].mean() - acc[False].mean())
        print(table_row([name, f"{acc[False].mean():.4f}", f"{acc[True].mean():.4f}",
                         f"{leaves[False].mean():.0f}", f"{leaves[True].mean():.0f}"]),
              flush=True)

    rng = np.random.default_rng(0)      # one generator for the sets in turn
    sets = ((name, prepared(X, y, args.max_rows, 3, rng))
            for name, X, y in iter_folder(args.data))
    cross_validate_models(sets, models, 3, 1, seed=0, nan="impute", report=row,
                          measure=lambda f: np.mean([t.get_n_leaves()
                                                     for t in f.estimators_]))
    print(f"\nmean accuracy change with oob_pruning: {100 * np.mean(diffs):+.2f} points "
          f"({sum(d > 0 for d in diffs)} data sets better, {sum(d < 0 for d in diffs)} worse)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of NAME.npz data sets (X, y)")
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000],
                        help="rows of the speed part")
    args = parser.parse_args(argv)
    print(header("bench_pruning") + "\n")
    print(table_head(["rows", "nodes ours / sklearn", "path ours (s)", "path sklearn (s)",
                      "ratio", "prune ours (s)", "prune sklearn (s)", "ratio"],
                     "rlrrrrrr"))
    for n in args.sizes:
        speed(n)
    print()
    effect()
    forests(args)


if __name__ == "__main__":
    main()
