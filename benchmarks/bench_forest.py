"""Time and score rotforest's RandomForestClassifier against scikit-learn's, side by side.

Part 1 (always): make_classification with 20 features at 20k and 100k rows; fit and
predict_proba times of both forests with n_jobs=2 and their ratios (ours / scikit-learn's:
below 1 is faster), and our speed-up from n_jobs=1 to n_jobs=2.

Part 2 (with --data FOLDER, e.g. ../shared/datasets): every NAME.npz data set (X, y),
sampled to at most --max-rows rows, scored by stratified 3-fold cross-validation on the
same folds for both forests: accuracy, fit and predict times. Both forests take missing
values (NaN) natively.

Part 3 (with --missing): missing values. Fit times of both trees and both forests on
make_classification with and without 10% of the cells missing (completely at random),
best of --repeat interleaved runs, and the ratio missing / complete. With --data as
well: on every data set with missing cells (those whose source codes them as a value,
pima and adult, with the codes turned into NaN; and, injected, on a few complete ones),
repeated stratified 5-fold accuracy of native NaN handling against median imputation
fitted on the training fold, for both forests and for the rotation forest's two modes,
then the paired difference native - median of each model on the same folds, with its
standard error (--skip-missing-times leaves out the fit times).

    python benchmarks/bench_forest.py
    python benchmarks/bench_forest.py --data ../shared/datasets --skip-synthetic
    python benchmarks/bench_forest.py --missing --data ../shared/datasets --skip-synthetic
"""
import argparse
import glob
import os
import sys
import platform
from datetime import date

import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier as SkTree

from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time as timed  # noqa: E402


def synthetic(args):
    print(f"\n## Synthetic: make_classification, 20 features, {args.n_classes} classes, "
          f"{args.n_estimators} trees, n_jobs={args.n_jobs}\n")
    print("| n | fit ours (s) | fit sklearn (s) | fit ratio | predict_proba ours (s) "
          "| predict_proba sklearn (s) | predict ratio | ours n_jobs=1 (s) | speed-up 1 to "
          f"{args.n_jobs} | accuracy ours / sklearn (held out) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in args.sizes:
        X, y = make_classification(n_samples=n + 10_000, n_features=20, n_informative=10,
                                   n_redundant=4, n_classes=args.n_classes, random_state=0)
        X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
        kw = dict(n_estimators=args.n_estimators, random_state=0)
        r = args.repeat
        t_ours, ours = timed(lambda: RandomForestClassifier(n_jobs=args.n_jobs, **kw).fit(X, y), r)
        t_sk, sk = timed(lambda: SkForest(n_jobs=args.n_jobs, **kw).fit(X, y), r)
        t_one, _ = timed(lambda: RandomForestClassifier(n_jobs=1, **kw).fit(X, y), r)
        ours.predict_proba(Xt[:10])   # first call lays out each tree for prediction
        p_ours, po = timed(lambda: ours.predict_proba(Xt), r)
        p_sk, ps = timed(lambda: sk.predict_proba(Xt), r)
        acc_o = np.mean(ours.classes_[po.argmax(1)] == yt)
        acc_s = np.mean(sk.classes_[ps.argmax(1)] == yt)
        print(f"| {n:,} | {t_ours:.2f} | {t_sk:.2f} | {t_ours / t_sk:.3f} | {p_ours:.3f} "
              f"| {p_sk:.3f} | {p_ours / p_sk:.2f} | {t_one:.2f} | {t_one / t_ours:.2f} "
              f"| {acc_o:.4f} / {acc_s:.4f} |", flush=True)


def load(path, max_rows, rng):
    data = np.load(path, allow_pickle=False)
    X, y = data["X"].astype(np.float64), data["y"]
    if len(y) > max_rows:
        # stratified sample: the same fraction of every class, at least 3 of each
        keep = []
        for c in np.unique(y):
            idx = np.flatnonzero(y == c)
            k = max(min(3, len(idx)), int(round(len(idx) * max_rows / len(y))))
            keep.append(rng.choice(idx, size=k, replace=False))
        keep = np.sort(np.concatenate(keep))
        X, y = X[keep], y[keep]
    # classes with fewer members than folds cannot be stratified: drop them
    classes, counts = np.unique(y, return_counts=True)
    ok = np.isin(y, classes[counts >= 3])
    return X[ok], y[ok]


def real(args):
    paths = sorted(glob.glob(os.path.join(args.data, "*.npz")))
    if not paths:
        print(f"\nno .npz data sets in {args.data}")
        return
    print(f"\n## Data sets in {args.data}: at most {args.max_rows:,} rows, stratified "
          f"3-fold CV, {args.n_estimators} trees, n_jobs={args.n_jobs}\n")
    print("| data set | rows | features | classes | accuracy ours | accuracy sklearn "
          "| fit ours (s) | fit sklearn (s) | predict ours (s) | predict sklearn (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    rows = []
    for path in paths:
        name = os.path.basename(path)[:-4]
        X, y = load(path, args.max_rows, rng)
        folds = StratifiedKFold(3, shuffle=True, random_state=0).split(X, y)
        acc = {"ours": [], "sk": []}
        fit = {"ours": 0.0, "sk": 0.0}
        pred = {"ours": 0.0, "sk": 0.0}
        for train, test in folds:
            Xa, Xb = X[train], X[test]
            for key, cls in (("ours", RandomForestClassifier), ("sk", SkForest)):
                model = cls(n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                            random_state=0)
                t, _ = timed(lambda: model.fit(Xa, y[train]))
                fit[key] += t
                t, p = timed(lambda: model.predict(Xb))
                pred[key] += t
                acc[key].append(np.mean(p == y[test]))
        r = (name, len(y), X.shape[1], len(np.unique(y)), np.mean(acc["ours"]),
             np.mean(acc["sk"]), fit["ours"], fit["sk"], pred["ours"], pred["sk"])
        rows.append(r)
        print(f"| {r[0]} | {r[1]:,} | {r[2]} | {r[3]} | {r[4]:.4f} | {r[5]:.4f} | "
              f"{r[6]:.2f} | {r[7]:.2f} | {r[8]:.3f} | {r[9]:.3f} |", flush=True)
    a = np.array([r[4:] for r in rows])
    print(f"| **mean** ({len(rows)} data sets) | | | | {a[:, 0].mean():.4f} | "
          f"{a[:, 1].mean():.4f} | {a[:, 2].sum():.1f} total | {a[:, 3].sum():.1f} total | "
          f"{a[:, 4].sum():.2f} total | {a[:, 5].sum():.2f} total |")
    print(f"\nmean accuracy difference (ours - sklearn): "
          f"{100 * (a[:, 0].mean() - a[:, 1].mean()):+.2f} points; "
          f"fit time ratio over all data sets: {a[:, 2].sum() / a[:, 3].sum():.3f}")


def missing_times(args):
    n = args.missing_rows
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                               n_redundant=4, random_state=0)
    Xm = X.copy()
    Xm[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    print(f"\n## Missing values: fit time, {n:,} x 20, 10% of cells missing at random; "
          f"best of {args.repeat} interleaved runs\n")
    print("| model | complete (s) | 10% missing (s) | ratio missing / complete |")
    print("|---|---:|---:|---:|")
    kw = dict(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=0)
    models = [("rotforest DecisionTreeClassifier", lambda: DecisionTreeClassifier(random_state=0)),
              ("scikit-learn DecisionTreeClassifier", lambda: SkTree(random_state=0)),
              (f"rotforest RandomForestClassifier ({args.n_estimators} trees)",
               lambda: RandomForestClassifier(**kw)),
              (f"scikit-learn RandomForestClassifier ({args.n_estimators} trees)",
               lambda: SkForest(**kw))]
    for name, make in models:
        best = {"complete": np.inf, "missing": np.inf}
        for _ in range(args.repeat):
            for key, data in (("complete", X), ("missing", Xm)):
                t, _ = timed(lambda: make().fit(data, y))
                best[key] = min(best[key], t)
        print(f"| {name} | {best['complete']:.3f} | {best['missing']:.3f} | "
              f"{best['missing'] / best['complete']:.2f} |", flush=True)


# Shared data sets whose source writes a missing cell as an ordinary value: the columns
# and the code. Pima's zeros in glucose, blood pressure, skin fold, insulin and BMI are
# not measurements (nobody alive has a blood pressure of 0); adult's code 0 in workclass,
# occupation and native-country is the source's "?" (2,799, 2,809 and 857 rows, the
# counts of "?" in the UCI files).
DISGUISED_MISSING = {"pima": ([1, 2, 3, 4, 5], 0.0), "adult": ([1, 6, 13], 0.0)}


def decode_missing(name, X):
    """X with the cells that ``DISGUISED_MISSING`` names for this data set set to NaN (a
    copy), or X itself for the other data sets."""
    if name not in DISGUISED_MISSING:
        return X
    columns, code = DISGUISED_MISSING[name]
    X = X.copy()
    for j in columns:
        X[X[:, j] == code, j] = np.nan
    return X


def missing_accuracy(args):
    paths = sorted(glob.glob(os.path.join(args.data, "*.npz")))
    rng = np.random.default_rng(0)
    cases = []
    for path in paths:
        name = os.path.basename(path)[:-4]
        X, y = load(path, args.max_rows, rng)
        if np.isnan(X).any():
            cases.append((name, X, y, False))
        elif name in DISGUISED_MISSING and not args.keep_codes:
            cases.append((name + " (coded missing cells as NaN)", decode_missing(name, X), y,
                          False))
        elif name in args.inject:
            X = X.copy()
            X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
            cases.append((name + " (10% injected)", X, y, True))
    if not cases:
        print(f"\nno data set with missing values in {args.data}")
        return
    T = args.n_estimators
    med = lambda est: make_pipeline(SimpleImputer(strategy="median"), est)  # noqa: E731
    models = {
        "ours RF native": lambda: RandomForestClassifier(T, n_jobs=args.n_jobs, random_state=0),
        "ours RF median": lambda: med(RandomForestClassifier(T, n_jobs=args.n_jobs, random_state=0)),
        "sklearn RF native": lambda: SkForest(T, n_jobs=args.n_jobs, random_state=0),
        "sklearn RF median": lambda: med(SkForest(T, n_jobs=args.n_jobs, random_state=0)),
        "RoF route": lambda: RotationForestClassifier(T, missing="route", n_jobs=args.n_jobs,
                                                      random_state=0),
        "RoF impute": lambda: RotationForestClassifier(T, missing="impute", n_jobs=args.n_jobs,
                                                       random_state=0),
        "RoF median": lambda: med(RotationForestClassifier(T, n_jobs=args.n_jobs,
                                                           random_state=0)),
    }
    print(f"\n## Missing values: accuracy, stratified 5-fold CV repeated "
          f"{args.cv_repeats} times (same folds for all), {T} trees\n")
    print("| data set | rows | missing cells | " + " | ".join(models) + " |")
    print("|---|---:|---:|" + "---:|" * len(models))
    table = []
    diffs = []
    pairs = [("ours RF native", "ours RF median"), ("sklearn RF native", "sklearn RF median"),
             ("RoF route", "RoF median")]
    for name, X, y, _ in cases:
        cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=args.cv_repeats, random_state=0)
        acc = {k: [] for k in models}
        for train, test in cv.split(X, y):
            for key, make in models.items():
                model = make().fit(X[train], y[train])
                acc[key].append(np.mean(model.predict(X[test]) == y[test]))
        means = [np.mean(acc[k]) for k in models]
        table.append(means)
        diffs.append((name, len(y), [paired_difference(acc[a], acc[b]) for a, b in pairs]))
        print(f"| {name} | {len(y):,} | {np.isnan(X).mean():.1%} | "
              + " | ".join(f"{m:.4f}" for m in means) + " |", flush=True)
    real = np.array([not injected for *_, injected in cases])
    print("| **mean** | | | " + " | ".join(f"{m:.4f}" for m in np.mean(table, axis=0)) + " |")
    if real.any() and not real.all():
        print(f"| **mean of the {real.sum()} with real missing cells** | | | "
              + " | ".join(f"{m:.4f}" for m in np.mean(np.array(table)[real], axis=0)) + " |")
    print("\nnative - median, paired over the same folds, in accuracy points: mean difference "
          "± standard error of the mean over the folds (in brackets: Nadeau and Bengio's "
          "corrected standard error, which allows for the overlap of the training folds)\n")
    print("| data set | " + " | ".join(f"{a} - {b.split()[-1]}" for a, b in pairs) + " |")
    print("|---|" + "---:|" * len(pairs))
    for name, n, cells in diffs:
        print(f"| {name} | " + " | ".join(
            f"{100 * d:+.2f} ± {100 * se:.2f} ({100 * se * np.sqrt(1 + len(fold) / 4):.2f})"
            for d, se, fold in cells) + " |")
    if real.any():
        means = np.array([[d for d, _, _ in cells] for _, _, cells in diffs])[real].mean(axis=0)
        print(f"| **mean of the {real.sum()} with real missing cells** | "
              + " | ".join(f"{100 * d:+.2f}" for d in means) + " |")


def paired_difference(a, b):
    """Mean of the per-fold differences a - b, its standard error over the folds, and the
    differences themselves."""
    d = np.asarray(a) - np.asarray(b)
    return d.mean(), d.std(ddof=1) / np.sqrt(len(d)), d


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--n-classes", type=int, default=2,
                        help="classes of the synthetic data")
    parser.add_argument("--data", help="folder of NAME.npz data sets (X, y)")
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--repeat", type=int, default=2,
                        help="synthetic part: best of this many runs")
    parser.add_argument("--missing", action="store_true",
                        help="part 3: missing values (times; accuracy with --data)")
    parser.add_argument("--missing-rows", type=int, default=100_000)
    parser.add_argument("--skip-missing-times", action="store_true",
                        help="part 3: accuracy only, without the fit times")
    parser.add_argument("--cv-repeats", type=int, default=3)
    parser.add_argument("--inject", nargs="*", default=["australian", "wine_quality_white"],
                        help="complete data sets that get 10%% of their cells removed")
    parser.add_argument("--keep-codes", action="store_true",
                        help="part 3: leave the missing-value codes of pima and adult as "
                             "they are (by default they become NaN: DISGUISED_MISSING)")
    args = parser.parse_args(argv)
    print(f"# bench_forest: {date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, scikit-learn {sklearn.__version__}, "
          f"numpy {np.__version__}")
    if not args.skip_synthetic:
        synthetic(args)
    if args.missing:
        if not args.skip_missing_times:
            missing_times(args)
        if args.data:
            missing_accuracy(args)
    elif args.data:
        real(args)


if __name__ == "__main__":
    main()
