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

The shared sets are read and sampled by common.py (``iter_folder``, ``prepared`` with
per-class sampling: the same rows as before) and both accuracy parts run on
bench_accuracy.cross_validate_models (the same folds as before: StratifiedKFold and
RepeatedStratifiedKFold, shuffled, seed 0; predict times are of ``predict`` alone). The
corrected standard error in brackets now uses the mean fold sizes (n_test / n_train)
instead of 1/4, which differs only where the rows do not divide by 5.

    python benchmarks/bench_forest.py
    python benchmarks/bench_forest.py --data ../shared/datasets --skip-synthetic
    python benchmarks/bench_forest.py --missing --data ../shared/datasets --skip-synthetic
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier as SkTree

from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models, paired  # noqa: E402
from common import best_time as timed  # noqa: E402
from common import (dataset_names, header, iter_folder, prepared,  # noqa: E402
                    select_models, table_head)


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


def shared_sets(folder, max_rows):
    """(name, X, y) of every data set in ``folder``, at most ``max_rows`` rows drawn per
    class in proportion (one generator, seed 0, for all the sets in turn); classes of
    fewer than 3 rows dropped."""
    rng = np.random.default_rng(0)
    for name, X, y in iter_folder(folder):
        yield (name, *prepared(X, y, max_rows, 3, rng, stratify=True))


def real(args):
    if not dataset_names(args.data):
        print(f"\nno .npz data sets in {args.data}")
        return
    print(f"\n## Data sets in {args.data}: at most {args.max_rows:,} rows, stratified "
          f"3-fold CV, {args.n_estimators} trees, n_jobs={args.n_jobs}\n")
    print(table_head(["data set", "rows", "features", "classes", "accuracy ours",
                      "accuracy sklearn", "fit ours (s)", "fit sklearn (s)",
                      "predict ours (s)", "predict sklearn (s)"]))
    registry = select_models(["forest", "sk-forest"], args.n_estimators, args.n_jobs)
    models = {"ours": registry["forest"], "sk": registry["sk-forest"]}
    rows = []

    def row(name, res):
        r = (name, res["rows"], res["features"], res["classes"],
             res["score"]["ours"].mean(), res["score"]["sk"].mean(),
             res["fit"]["ours"].sum(), res["fit"]["sk"].sum(),
             res["predict"]["ours"].sum(), res["predict"]["sk"].sum())
        rows.append(r)
        print(f"| {r[0]} | {r[1]:,} | {r[2]} | {r[3]} | {r[4]:.4f} | {r[5]:.4f} | "
              f"{r[6]:.2f} | {r[7]:.2f} | {r[8]:.3f} | {r[9]:.3f} |", flush=True)

    cross_validate_models(((name, (X, y)) for name, X, y in shared_sets(args.data,
                                                                         args.max_rows)),
                          models, 3, 1, seed=0, nan="none", report=row)
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
    cases = []
    for name, X, y in shared_sets(args.data, args.max_rows):
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
        res = cross_validate_models({name: (X, y)}, models, 5, args.cv_repeats, seed=0,
                                    nan="none")[name]
        means = [res["score"][k].mean() for k in models]
        table.append(means)
        diffs.append((name, len(y), [paired(res, a, b) for a, b in pairs]))
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
            f"{100 * d:+.2f} ± {100 * fold.std(ddof=1) / np.sqrt(len(fold)):.2f} "
            f"({100 * se:.2f})" for fold, d, se in cells) + " |")
    if real.any():
        means = np.array([[d for _, d, _ in cells] for _, _, cells in diffs])[real].mean(axis=0)
        print(f"| **mean of the {real.sum()} with real missing cells** | "
              + " | ".join(f"{100 * d:+.2f}" for d in means) + " |")


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
    print(header("bench_forest"))
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
