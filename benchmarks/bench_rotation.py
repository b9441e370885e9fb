"""RotationForestClassifier against random forests, side by side in one run.

Compares rotforest's RotationForestClassifier (Gaussian and PCA rotations of groups of 3
features), rotforest's and scikit-learn's RandomForestClassifier, scikit-learn's
ExtraTreesClassifier, and aeon's RotationForestClassifier when aeon is installed (an
optional extra of this benchmark only): 100 trees, n_jobs=2.

1. Fit and predict times on make_classification 20k x 20 (held-out accuracy on 10k rows).
2. Stratified 3-fold accuracy on the junk-feature case (5 informative + 45 noise
   features) and, with --data FOLDER, on every NAME.npz data set there (sampled to at
   most --max-rows rows; missing cells median-imputed), with each model's mean rank.

    python benchmarks/bench_rotation.py --data ../shared/datasets
"""
import argparse
import glob
import os
import platform
import time
from datetime import date

import numpy as np
import sklearn
from scipy.stats import rankdata
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold

from rotforest import RandomForestClassifier, RotationForestClassifier


def models(n_estimators, n_jobs):
    out = {
        "rotforest rotation (gaussian)": lambda: RotationForestClassifier(
            n_estimators, rotation="gaussian", n_jobs=n_jobs, random_state=0),
        "rotforest rotation (pca)": lambda: RotationForestClassifier(
            n_estimators, rotation="pca", n_jobs=n_jobs, random_state=0),
        "rotforest random forest": lambda: RandomForestClassifier(
            n_estimators, n_jobs=n_jobs, random_state=0),
        "sklearn random forest": lambda: SkForest(n_estimators, n_jobs=n_jobs,
                                                  random_state=0),
        "sklearn extra trees": lambda: ExtraTreesClassifier(n_estimators, n_jobs=n_jobs,
                                                            random_state=0),
    }
    try:
        from aeon.classification.sklearn import RotationForestClassifier as AeonRotation
        out["aeon rotation forest"] = lambda: AeonRotation(n_estimators=n_estimators,
                                                           n_jobs=n_jobs, random_state=0)
    except ImportError:
        pass
    return out


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def speed(make):
    X, y = make_classification(n_samples=30_000, n_features=20, n_informative=10,
                               n_redundant=4, random_state=0)
    Xa, Xb, ya, yb = X[:20_000], X[20_000:], y[:20_000], y[20_000:]
    print("\n## 20k x 20 (make_classification), held-out accuracy on 10k rows\n")
    print("| model | fit (s) | predict (s) | accuracy |")
    print("|---|---:|---:|---:|")
    for name, factory in make.items():
        model = factory()
        t_fit, _ = timed(lambda: model.fit(Xa, ya))
        t_pred, pred = timed(lambda: model.predict(Xb))
        print(f"| {name} | {t_fit:.2f} | {t_pred:.3f} | {np.mean(pred == yb):.4f} |",
              flush=True)


def junk_case():
    X, y = make_classification(n_samples=3000, n_features=5, n_informative=5,
                               n_redundant=0, random_state=1)
    X = np.hstack([X, np.random.default_rng(0).normal(size=(3000, 45))])
    return X, y


def load(path, max_rows, rng):
    data = np.load(path, allow_pickle=False)
    X, y = data["X"].astype(np.float64), data["y"]
    if len(y) > max_rows:
        keep = np.sort(rng.choice(len(y), max_rows, replace=False))
        X, y = X[keep], y[keep]
    classes, counts = np.unique(y, return_counts=True)
    ok = np.isin(y, classes[counts >= 3])
    return X[ok], y[ok]


def accuracy(make, datasets):
    names = list(make)
    print("\n## Stratified 3-fold accuracy\n")
    print("| data set | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    table = []
    for label, (X, y) in datasets:
        scores = []
        for name in names:
            acc = []
            for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
                Xa, Xb = X[train], X[test]
                if np.isnan(X).any():
                    imp = SimpleImputer(strategy="median").fit(Xa)
                    Xa, Xb = imp.transform(Xa), imp.transform(Xb)
                model = make[name]()
                acc.append(np.mean(model.fit(Xa, y[train]).predict(Xb) == y[test]))
            scores.append(np.mean(acc))
        table.append(scores)
        print(f"| {label} | " + " | ".join(f"{s:.4f}" for s in scores) + " |", flush=True)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of NAME.npz data sets (X, y)")
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--speed-only", action="store_true",
                        help="only the fit and predict times on 20k x 20")
    args = parser.parse_args()
    print(f"# bench_rotation: {date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"scikit-learn {sklearn.__version__}, numpy {np.__version__}")
    make = models(args.n_estimators, args.n_jobs)
    if not args.skip_speed:
        speed(make)
    if args.speed_only:
        return
    datasets = [("junk features (5 + 45 noise)", junk_case())]
    if args.data:
        rng = np.random.default_rng(0)
        for path in sorted(glob.glob(os.path.join(args.data, "*.npz"))):
            datasets.append((os.path.basename(path)[:-4], load(path, args.max_rows, rng)))
    accuracy(make, datasets)


if __name__ == "__main__":
    main()
