"""RotationForestClassifier against random forests, side by side in one run.

Compares rotforest's RotationForestClassifier (Gaussian and PCA rotations of groups of 3
features), rotforest's and scikit-learn's RandomForestClassifier, scikit-learn's
ExtraTreesClassifier, and aeon's RotationForestClassifier when aeon is installed (an
optional extra of this benchmark only): 100 trees, n_jobs=2.

1. Fit and predict times on make_classification 20k x 20 (held-out accuracy on 10k rows).
2. Stratified 3-fold accuracy on the junk-feature case (5 informative + 45 noise
   features) and, with --data FOLDER, on every NAME.npz data set there (sampled to at
   most --max-rows rows; missing cells median-imputed), with each model's mean rank.
   The folds and fits are bench_accuracy.py's ``cross_validate_models`` (the same folds
   as before: StratifiedKFold, shuffled, seed 0); the models are common.py's registry
   entries under this script's labels.

    python benchmarks/bench_rotation.py --data ../shared/datasets
"""
import argparse
import os
import sys

import numpy as np
from scipy.stats import rankdata
from sklearn.datasets import make_classification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models  # noqa: E402
from common import (available_models, header, iter_folder, prepared,  # noqa: E402
                    table_head, table_row)
from common import best_time as timed  # noqa: E402

# this script's labels of common.py's registry keys (the rotation forest's default
# rotation is PCA)
LABELS = {"rotation-gaussian": "rotforest rotation (gaussian)",
          "rotation": "rotforest rotation (pca)",
          "forest": "rotforest random forest",
          "sk-forest": "sklearn random forest",
          "sk-extra": "sklearn extra trees",
          "aeon": "aeon rotation forest"}


def models(n_estimators, n_jobs):
    """label -> factory of the models compared (aeon's where installed)."""
    known = available_models(n_estimators, n_jobs)
    return {label: known[key][1] for key, label in LABELS.items() if key in known}


def speed(make):
    X, y = make_classification(n_samples=30_000, n_features=20, n_informative=10,
                               n_redundant=4, random_state=0)
    Xa, Xb, ya, yb = X[:20_000], X[20_000:], y[:20_000], y[20_000:]
    print("\n## 20k x 20 (make_classification), held-out accuracy on 10k rows\n")
    print(table_head(["model", "fit (s)", "predict (s)", "accuracy"]))
    for name, factory in make.items():
        model = factory()
        t_fit, _ = timed(lambda: model.fit(Xa, ya))
        t_pred, pred = timed(lambda: model.predict(Xb))
        print(table_row([name, f"{t_fit:.2f}", f"{t_pred:.3f}",
                         f"{np.mean(pred == yb):.4f}"]), flush=True)


def junk_case():
    X, y = make_classification(n_samples=3000, n_features=5, n_informative=5,
                               n_redundant=0, random_state=1)
    X = np.hstack([X, np.random.default_rng(0).normal(size=(3000, 45))])
    return X, y


def accuracy(make, datasets):
    names = list(make)
    print("\n## Stratified 3-fold accuracy\n")
    print(table_head(["data set", *names]))
    table = []

    def row(label, res):
        table.append([res["score"][name].mean() for name in names])
        print(table_row([label, *(f"{s:.4f}" for s in table[-1])]), flush=True)

    cross_validate_models(datasets, make, 3, 1, seed=0, nan="impute", report=row)
    table = np.array(table)
    ranks = np.array([rankdata(-row) for row in table])
    print("| **mean accuracy** | " + " | ".join(f"{m:.4f}" for m in table.mean(0)) + " |")
    print("| **mean rank** | " + " | ".join(f"{r:.2f}" for r in ranks.mean(0)) + " |")
    # what no model of this run can beat on average: the best column of every row, picked
    # with hindsight (how far a target "mean accuracy above model X" is within reach)
    best = table.max(axis=1).mean()
    print(f"\nbest model of every data set, picked with hindsight: mean accuracy {best:.4f}")
    for name, m in zip(names, table.mean(0)):
        print(f"- the hindsight pick is {100 * (best - m):.2f} points above {name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of NAME.npz data sets (X, y)")
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--speed-only", action="store_true",
                        help="only the fit and predict times on 20k x 20")
    args = parser.parse_args(argv)
    print(header("bench_rotation"))
    make = models(args.n_estimators, args.n_jobs)
    if not args.skip_speed:
        speed(make)
    if args.speed_only:
        return
    datasets = [("junk features (5 + 45 noise)", junk_case())]
    if args.data:
        rng = np.random.default_rng(0)      # one generator for the sets in turn
        for name, X, y in iter_folder(args.data):
            datasets.append((name, prepared(X, y, args.max_rows, 3, rng)))
    accuracy(make, datasets)


if __name__ == "__main__":
    main()
