"""Accuracy of the forests by repeated stratified K-fold, with paired, corrected errors.

Every model is fitted on the same folds of every data set (RepeatedStratifiedKFold,
seed 0). For each model and data set the script prints the mean accuracy and its paired
difference from a reference model (--reference, scikit-learn's random forest by
default) with Nadeau and Bengio's corrected standard error, which allows for the overlap
of the training sets of K-fold: the variance of the J per-fold differences is scaled by
(1/J + n_test/n_train) instead of 1/J. A difference larger than twice that error is
marked significant. The summary gives each model's mean accuracy, its mean difference
from the reference with the standard error over data sets, how many data sets are
significantly better or worse, its mean rank (1 = best; ties share the mean rank), the
hindsight oracle (the best model of each data set, picked after the fact) and the total
fit time.

Models (keys for --models): those of compare.py (forest, sk-forest, sk-extra, rotation,
tree, sk-tree, and aeon where installed) plus sk-hgb (scikit-learn's
HistGradientBoostingClassifier). Models whose scikit-learn tags say they do not take NaN
get median imputation fitted on each training part.

    python benchmarks/bench_accuracy.py --models forest,sk-forest --folds 5 --repeats 2
"""
import argparse
import glob
import os
import sys
import time
from datetime import date

import numpy as np
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_forest import load  # noqa: E402
from compare import (accepts_nan, available_models, machine_description,  # noqa: E402
                     versions)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corrected_se(diffs, n_train, n_test):
    """Nadeau and Bengio's corrected standard error of the mean of J paired per-fold
    differences from repeated K-fold (training sets of n_train rows, test sets of n_test)."""
    diffs = np.asarray(diffs, dtype=float)
    if len(diffs) < 2:
        return np.nan
    return float(np.sqrt((1.0 / len(diffs) + n_test / n_train) * np.var(diffs, ddof=1)))


def models_for(keys, n_estimators, n_jobs):
    known = available_models(n_estimators, n_jobs)
    known["sk-hgb"] = ("sklearn hist gradient boosting",
                       lambda: HistGradientBoostingClassifier(random_state=0))
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise SystemExit(f"unknown model keys {unknown}; choose among {sorted(known)}")
    return {k: known[k] for k in keys}


def evaluate(models, X, y, folds, repeats):
    """acc[model] (one accuracy a fold), fit seconds per model, and the fold sizes."""
    cv = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=0)
    acc = {k: [] for k in models}
    fit = {k: 0.0 for k in models}
    sizes = []
    has_nan = bool(np.isnan(X).any())
    for train, test in cv.split(X, y):
        sizes.append((len(train), len(test)))
        for key, (_, make) in models.items():
            model = make()
            if has_nan and not accepts_nan(model):
                model = make_pipeline(SimpleImputer(strategy="median"), model)
            t = time.perf_counter()
            model.fit(X[train], y[train])
            fit[key] += time.perf_counter() - t
            acc[key].append(float(np.mean(model.predict(X[test]) == y[test])))
    return {k: np.array(v) for k, v in acc.items()}, fit, np.mean(sizes, axis=0)


def summary(names, keys, labels, reference, results):
    """The summary table's lines: results[name] = (acc, fit, (n_train, n_test))."""
    mean = np.array([[results[d][0][k].mean() for k in keys] for d in names])
    ranks = np.array([rankdata(-row) for row in mean])
    lines = ["| model | mean accuracy | vs reference (points) | better / worse (2 SE) "
             "| mean rank | fit total (s) |", "|---|---:|---:|---:|---:|---:|"]
    for j, k in enumerate(keys):
        diffs, better, worse = [], 0, 0
        for d in names:
            acc, _, (n_train, n_test) = results[d]
            delta = acc[k] - acc[reference]
            diffs.append(delta.mean())
            se = corrected_se(delta, n_train, n_test)
            better += bool(delta.mean() > 2 * se)
            worse += bool(delta.mean() < -2 * se)
        diffs = np.array(diffs)
        se_sets = diffs.std(ddof=1) / np.sqrt(len(diffs)) if len(diffs) > 1 else np.nan
        fit = sum(results[d][1][k] for d in names)
        lines.append(f"| {labels[k]} | {mean[:, j].mean():.4f} | {100 * diffs.mean():+.2f} "
                     f"± {100 * se_sets:.2f} | {better} / {worse} | "
                     f"{ranks[:, j].mean():.2f} | {fit:.1f} |")
    lines.append(f"| hindsight oracle (best model of each data set) | "
                 f"{mean.max(axis=1).mean():.4f} | | | | |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--datasets", nargs="+", help="only these data sets of the folder")
    parser.add_argument("--models", default="forest,sk-forest")
    parser.add_argument("--reference", default="sk-forest")
    parser.add_argument("--max-rows", type=int, default=5000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args(argv)
    keys = args.models.split(",")
    if args.reference not in keys:
        keys.append(args.reference)
    models = models_for(keys, args.n_estimators, args.n_jobs)
    labels = {k: v[0] for k, v in models.items()}
    paths = sorted(glob.glob(os.path.join(args.data, "*.npz")))
    if args.datasets:
        paths = [p for p in paths if os.path.basename(p)[:-4] in args.datasets]
    if not paths:
        print(f"no data sets in {args.data}")
        return
    print(f"# bench_accuracy: {date.today()}; {machine_description()}; {versions()}")
    print(f"# {args.folds}-fold stratified CV x {args.repeats} repeats (seed 0, same folds "
          f"for every model), at most {args.max_rows:,} rows, {args.n_estimators} trees, "
          f"n_jobs={args.n_jobs}; reference: {labels[args.reference]}\n")
    others = [k for k in keys if k != args.reference]
    print("| data set | rows | features | classes | "
          + " | ".join(f"{labels[k]}" for k in keys) + " | "
          + " | ".join(f"{labels[k]} - reference (points, corrected SE)" for k in others)
          + " |")
    print("|---|---:|---:|---:|" + "---:|" * (len(keys) + len(others)))
    results, names = {}, []
    for path in paths:
        name = os.path.basename(path)[:-4]
        X, y = load(path, args.max_rows, np.random.default_rng(0))
        acc, fit, sizes = evaluate(models, X, y, args.folds, args.repeats)
        results[name] = (acc, fit, sizes)
        names.append(name)
        cells = [f"{acc[k].mean():.4f}" for k in keys]
        for k in others:
            delta = acc[k] - acc[args.reference]
            se = corrected_se(delta, *sizes)
            mark = " *" if abs(delta.mean()) > 2 * se else ""
            cells.append(f"{100 * delta.mean():+.2f} ± {100 * se:.2f}{mark}")
        print(f"| {name} | {len(y):,} | {X.shape[1]} | {len(np.unique(y))} | "
              + " | ".join(cells) + " |", flush=True)
    print("\n(* : more than two corrected standard errors from the reference)\n")
    print(f"## Summary over {len(names)} data sets\n")
    print("\n".join(summary(names, keys, labels, args.reference, results)))


if __name__ == "__main__":
    main()
