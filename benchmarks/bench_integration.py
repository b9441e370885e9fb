"""Nested parallelism: GridSearchCV(n_jobs=outer) over a forest with n_jobs=inner, for
rotforest's RandomForestClassifier and scikit-learn's, against the sequential run (1/1).

GridSearchCV's default joblib backend runs the candidates in loky worker processes; a
forest inside a worker builds its trees in ``inner`` threads, so outer=2, inner=2 runs 4
busy threads at a time. On a machine with 2 cores that is twice as many threads as cores:
this script measures whether that costs anything against outer=2, inner=1, and checks that
every configuration finds the same best parameters and scores as the sequential run.

    python benchmarks/bench_integration.py                # 20k x 20, 50 trees, 3-fold, 4 candidates
    python benchmarks/bench_integration.py --n 5000 --repeat 1

Timings on a shared machine are noisy: the configurations take turns in ``--repeat``
rounds and the best time of each is reported, after one untimed search that starts the
loky workers.
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from rotforest import RandomForestClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time, header, table_head, table_row  # noqa: E402

CONFIGS = [(1, 1), (1, 2), (2, 1), (2, 2)]
GRID = {"max_depth": [8, None], "min_samples_leaf": [1, 5]}


def search(make, outer, inner, X, y, args):
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(make(n_estimators=args.trees, n_jobs=inner, random_state=0), GRID,
                      cv=cv, n_jobs=outer)
    return best_time(lambda: gs.fit(X, y))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--trees", type=int, default=50)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)

    print(header("bench_integration"))
    print(f"# make_classification {args.n:,} x 20, GridSearchCV over {GRID} "
          f"(4 candidates x 3 folds = 12 fits + 1 refit), {args.trees} trees, best of "
          f"{args.repeat}\n")
    X, y = make_classification(n_samples=args.n, n_features=20, n_informative=10,
                               n_redundant=4, random_state=0)
    # start the loky workers once, outside the timings
    GridSearchCV(RandomForestClassifier(n_estimators=2), {"max_depth": [2, 3]}, cv=2,
                 n_jobs=2).fit(X[:200], y[:200])

    # the configurations take turns within every round, so that a change in the load of
    # a shared machine affects them alike; the best round of each is reported
    times, results = {}, {}
    for _ in range(args.repeat):
        for label, make in (("ours", RandomForestClassifier), ("sklearn", SkForest)):
            for outer, inner in CONFIGS:
                t, gs = search(make, outer, inner, X, y, args)
                times[label, outer, inner] = min(t, times.get((label, outer, inner), np.inf))
                results[label, outer, inner] = (gs.best_params_, gs.best_score_,
                                                gs.cv_results_["mean_test_score"])

    print(table_head(["GridSearchCV n_jobs", "forest n_jobs", "busy threads", "ours (s)",
                      "ours speed-up vs 1/1", "sklearn (s)", "sklearn speed-up vs 1/1",
                      "ours / sklearn"], "r" * 8))
    for outer, inner in CONFIGS:
        o, s = times["ours", outer, inner], times["sklearn", outer, inner]
        print(table_row([outer, inner, outer * inner, f"{o:.2f}",
                         f"{times['ours', 1, 1] / o:.2f}", f"{s:.2f}",
                         f"{times['sklearn', 1, 1] / s:.2f}", f"{o / s:.3f}"]))
    print()
    for label in ("ours", "sklearn"):
        nested, flat = times[label, 2, 2], times[label, 2, 1]
        print(f"{label}: nested 2x2 takes {nested / flat:.2f} x the time of 2x1 "
              f"(above 1: oversubscription costs), {nested / times[label, 1, 1]:.2f} x the "
              "sequential time")
    for label in ("ours", "sklearn"):
        ref = results[label, 1, 1]
        same = all(results[label, o, i][0] == ref[0] and results[label, o, i][1] == ref[1]
                   and np.array_equal(results[label, o, i][2], ref[2]) for o, i in CONFIGS)
        print(f"{label}: best params {ref[0]}, best score {ref[1]:.4f}; identical in every "
              f"configuration: {same}")


if __name__ == "__main__":
    main()
