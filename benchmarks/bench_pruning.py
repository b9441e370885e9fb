"""Pruning speed and effect, ours against scikit-learn's, side by side in one run.

1. On a fully grown tree of 100k rows (make_classification, 20 features, 5% label noise):
   the time to compute the cost-complexity pruning path of the fitted tree, and to prune
   it at one alpha, for both libraries (the fit itself is not timed).
2. On 20% flipped labels: leaves and held-out accuracy of the unpruned tree, of
   reduced-error pruning (30% held out) and of cost-complexity pruning with ccp_alpha
   chosen by 5-fold cross-validation on the path.

    python benchmarks/bench_pruning.py
"""
import os
import platform
import time
from datetime import date

import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.tree._tree import ccp_pruning_path as sk_path   # scikit-learn's own kernel

from rotforest import DecisionTreeClassifier
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


def main():
    print(f"# bench_pruning: {date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"scikit-learn {sklearn.__version__}, numpy {np.__version__}\n")
    print("| rows | nodes ours / sklearn | path ours (s) | path sklearn (s) | ratio "
          "| prune ours (s) | prune sklearn (s) | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in (10_000, 100_000):
        speed(n)
    print()
    effect()


if __name__ == "__main__":
    main()
