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
   imputation of missing cells).

    python benchmarks/bench_pruning.py
    python benchmarks/bench_pruning.py --data ../shared/datasets
"""
import argparse
import glob
import os
import platform
import time
from datetime import date

import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.impute import SimpleImputer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.tree._tree import ccp_pruning_path as sk_path   # scikit-learn's own kernel

from rotforest import DecisionTreeClassifier, RandomForestClassifier
from rotforest.pruning import cost_complexity_path, prune_cost_complexity


def best_time(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


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
    print(f"\n| data set (stratified 3-fold CV, at most {args.max_rows:,} rows) "
          "| accuracy | accuracy with oob_pruning | mean leaves | with oob_pruning |")
    print("|---|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    diffs = []
    for path in sorted(glob.glob(os.path.join(args.data, "*.npz"))):
        data = np.load(path, allow_pickle=False)
        X, y = data["X"].astype(np.float64), data["y"]
        if len(y) > args.max_rows:
            keep = np.sort(rng.choice(len(y), args.max_rows, replace=False))
            X, y = X[keep], y[keep]
        classes, counts = np.unique(y, return_counts=True)
        ok = np.isin(y, classes[counts >= 3])
        X, y = X[ok], y[ok]
        acc = {False: [], True: []}
        leaves = {False: [], True: []}
        for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
            Xa, Xb = X[train], X[test]
            if np.isnan(X).any():
                imp = SimpleImputer(strategy="median").fit(Xa)
                Xa, Xb = imp.transform(Xa), imp.transform(Xb)
            for flag in (False, True):
                f = RandomForestClassifier(n_jobs=2, random_state=0, oob_pruning=flag)
                f.fit(Xa, y[train])
                acc[flag].append(f.score(Xb, y[test]))
                leaves[flag].append(np.mean([t.get_n_leaves() for t in f.estimators_]))
        diffs.append(np.mean(acc[True]) - np.mean(acc[False]))
        print(f"| {os.path.basename(path)[:-4]} | {np.mean(acc[False]):.4f} "
              f"| {np.mean(acc[True]):.4f} | {np.mean(leaves[False]):.0f} "
              f"| {np.mean(leaves[True]):.0f} |", flush=True)
    print(f"\nmean accuracy change with oob_pruning: {100 * np.mean(diffs):+.2f} points "
          f"({sum(d > 0 for d in diffs)} data sets better, {sum(d < 0 for d in diffs)} worse)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of NAME.npz data sets (X, y)")
    parser.add_argument("--max-rows", type=int, default=20_000)
    args = parser.parse_args()
    print(f"# bench_pruning: {date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"scikit-learn {sklearn.__version__}, numpy {np.__version__}\n")
    print("| rows | nodes ours / sklearn | path ours (s) | path sklearn (s) | ratio "
          "| prune ours (s) | prune sklearn (s) | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in (10_000, 100_000):
        speed(n)
    print()
    effect()
    forests(args)


if __name__ == "__main__":
    main()
