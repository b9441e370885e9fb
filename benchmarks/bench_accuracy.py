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

Models (keys for --models): those of the registry in common.py (forest, sk-forest,
sk-extra, rotation, tree, sk-tree, sk-hgb for scikit-learn's
HistGradientBoostingClassifier, the rotation-* settings, and aeon, ydf-forest,
ydf-oblique, treeple-oblique where installed). Models whose scikit-learn tags say they
do not take NaN get median imputation fitted on each training part.

Data: every NAME.npz of --data (or those of --datasets), at most --max-rows rows drawn
per class in proportion (seed 0, afresh for every data set); classes with fewer rows
than max(3, --folds) are dropped (before the shared function existed the rule was fewer
than 3, whatever --folds: the same for the documented 3-fold runs).

This script is also the one place where the benchmarks measure accuracy (or R^2) by
cross-validation: ``cross_validate_models`` (and ``cross_validate_one`` for one data
set) fit every model on the same folds and return the per-fold scores, fit and predict
times, and ``paired`` / ``versus`` give the paired difference of two models with its
corrected standard error. compare.py, bench_forest.py, bench_wide.py,
bench_wide_default.py, bench_categorical.py, bench_pruning.py, bench_regression.py and
bench_rotation.py call them.

    python benchmarks/bench_accuracy.py --models forest,sk-forest --folds 5 --repeats 2
"""
import argparse
import itertools
import os
import sys
import time

import numpy as np
from scipy.stats import rankdata
from sklearn.impute import SimpleImputer
from sklearn.metrics import r2_score
from sklearn.model_selection import (RepeatedKFold, RepeatedStratifiedKFold,
                                     train_test_split)
from sklearn.pipeline import make_pipeline

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (accepts_nan, header, iter_folder, prepared, select_models,  # noqa: E402
                    table_head, table_row)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------- the shared CV function


def corrected_se(diffs, n_train, n_test):
    """Nadeau and Bengio's corrected standard error of the mean of J paired per-fold
    differences from repeated K-fold (training sets of n_train rows, test sets of n_test)."""
    diffs = np.asarray(diffs, dtype=float)
    if len(diffs) < 2:
        return np.nan
    return float(np.sqrt((1.0 / len(diffs) + n_test / n_train) * np.var(diffs, ddof=1)))


def splits(y, folds, repeats=1, seed=0, task="classification"):
    """The (train, test) index pairs of a data set with labels or targets ``y``: K-fold
    (``folds`` = K), stratified for classification, shuffled, repeated ``repeats``
    times, seeded by ``seed`` (RepeatedStratifiedKFold / RepeatedKFold, whose first
    repeat is StratifiedKFold / KFold(shuffle=True, random_state=seed)); or, with
    ``folds=None``, one 2/3-1/3 split (stratified for classification)."""
    index = np.arange(len(y))
    stratified = task != "regression"
    if folds is None:
        return [tuple(train_test_split(index, test_size=1 / 3, random_state=seed,
                                       stratify=y if stratified else None))]
    cv = (RepeatedStratifiedKFold if stratified else RepeatedKFold)(
        n_splits=folds, n_repeats=repeats, random_state=seed)
    return list(cv.split(index, y))


def _factory(model):
    """A registry entry (label, factory) or a bare factory: the factory."""
    return model[1] if isinstance(model, tuple) else model


def _final(model):
    return model.steps[-1][1] if hasattr(model, "steps") else model


def cross_validate_one(models, X, y, folds=5, repeats=1, seed=0, task="classification",
                       nan="native", on_error="raise", measure=None, progress=None,
                       name=""):
    """Fit every model on the same folds of one data set (see ``splits``).

    models: key -> (label, factory) as in common.available_models, or key -> factory;
    every fold fits a fresh model. nan: "native" median-imputes the missing cells
    (fitted on each training part, inside the timed fit) for the models whose
    scikit-learn tags say they do not take NaN, "impute" for every model, "none" for
    none (the factories see to it). on_error="record" keeps going when a model fails
    and records why under "errors". measure(fitted model) -> float is recorded per fold
    under "measure" (e.g. leaves per tree). progress(name, key, entry) is called after
    each model.

    Returns a dict: score[key], fit[key], predict[key] (arrays, one value a fold:
    accuracy or R^2, seconds of fit, seconds of predict), measure[key] when asked,
    errors (key -> repr of the exception), n_train and n_test (mean fold sizes), rows,
    features, classes (0 for regression)."""
    if nan not in ("native", "impute", "none"):
        raise ValueError(f"nan must be native, impute or none, not {nan!r}")
    regression = task == "regression"
    parts = splits(y, folds, repeats, seed, task)
    has_nan = nan != "none" and bool(np.isnan(X).any())
    out = dict(score={}, fit={}, predict={}, measure={}, errors={},
               n_train=float(np.mean([len(a) for a, _ in parts])),
               n_test=float(np.mean([len(b) for _, b in parts])),
               rows=len(y), features=X.shape[1],
               classes=0 if regression else len(np.unique(y)))
    for key, model in models.items():
        make = _factory(model)
        score, fit, predict, measured = [], [], [], []
        start = time.perf_counter()
        try:
            for train, test in parts:
                est = make()
                if has_nan and (nan == "impute" or not accepts_nan(est)):
                    est = make_pipeline(SimpleImputer(strategy="median"), est)
                t = time.perf_counter()
                est.fit(X[train], y[train])
                fit.append(time.perf_counter() - t)
                t = time.perf_counter()
                p = est.predict(X[test])
                predict.append(time.perf_counter() - t)
                score.append(float(r2_score(y[test], p)) if regression
                             else float(np.mean(p == y[test])))
                if measure is not None:
                    measured.append(float(measure(_final(est))))
        except Exception as exc:  # noqa: BLE001 -- a long run keeps the other models
            if on_error != "record":
                raise
            out["errors"][key] = repr(exc)
            continue
        out["score"][key] = np.array(score)
        out["fit"][key] = np.array(fit)
        out["predict"][key] = np.array(predict)
        if measure is not None:
            out["measure"][key] = np.array(measured)
        if progress is not None:
            progress(name, key, dict(score=out["score"][key], fit=out["fit"][key],
                                     seconds=time.perf_counter() - start))
    return out


def cross_validate_models(datasets, models, folds=5, repeats=1, seed=0, max_rows=None,
                          task="classification", nan="native", report=None, **options):
    """``cross_validate_one`` on every data set: name -> its result.

    datasets: name -> (X, y), or (name, (X, y)) pairs. With ``max_rows``, each data set
    is first sampled with ``common.prepared`` (per class in proportion for
    classification, seed ``seed`` afresh for every data set; classes of fewer rows than
    max(3, folds) dropped); without, the data sets are used as given. report(name,
    result) is called after each data set (to print its row as it comes). Other
    keywords go to ``cross_validate_one``."""
    items = datasets.items() if hasattr(datasets, "items") else datasets
    results = {}
    for name, (X, y) in items:
        if max_rows is not None:
            X, y = prepared(X, y, max_rows, max(3, folds or 3),
                            np.random.default_rng(seed), task, stratify=True)
        results[name] = cross_validate_one(models, X, y, folds, repeats, seed, task, nan,
                                           name=name, **options)
        if report is not None:
            report(name, results[name])
    return results


def paired(result, a, b):
    """The per-fold differences a - b of one data set's result, their mean and Nadeau
    and Bengio's corrected standard error."""
    delta = result["score"][a] - result["score"][b]
    return delta, float(delta.mean()), corrected_se(delta, result["n_train"],
                                                    result["n_test"])


def versus(results, a, b):
    """Model a against model b over data sets (results as cross_validate_models returns
    them): the per-set mean differences and corrected standard errors (arrays), the
    numbers of sets where a is more than two corrected standard errors above and below
    b, and the standard error of the mean difference over the sets."""
    means, ses = [], []
    for result in results.values():
        _, mean, se = paired(result, a, b)
        means.append(mean)
        ses.append(se)
    means, ses = np.array(means), np.array(ses)
    se_sets = means.std(ddof=1) / np.sqrt(len(means)) if len(means) > 1 else np.nan
    return dict(means=means, ses=ses, better=int(np.sum(means > 2 * ses)),
                worse=int(np.sum(means < -2 * ses)), se_sets=se_sets)


def mean_ranks(results, keys):
    """Each model's mean rank over the data sets by mean score (1 = best; ties share
    the mean rank) and the sets x models table of mean scores."""
    mean = np.array([[r["score"][k].mean() for k in keys] for r in results.values()])
    return np.array([rankdata(-row) for row in mean]).mean(axis=0), mean


# ---------------------------------------------------------------------- this script


def summary(keys, labels, reference, results):
    """The summary table's lines."""
    ranks, mean = mean_ranks(results, keys)
    lines = [table_head(["model", "mean accuracy", "vs reference (points)",
                         "better / worse (2 SE)", "mean rank", "fit total (s)"])]
    for j, k in enumerate(keys):
        v = versus(results, k, reference)
        fit = sum(r["fit"][k].sum() for r in results.values())
        lines.append(table_row([labels[k], f"{mean[:, j].mean():.4f}",
                                f"{100 * v['means'].mean():+.2f} ± {100 * v['se_sets']:.2f}",
                                f"{v['better']} / {v['worse']}", f"{ranks[j]:.2f}",
                                f"{fit:.1f}"]))
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
    models = select_models(keys, args.n_estimators, args.n_jobs)
    labels = {k: v[0] for k, v in models.items()}
    datasets = ((name, (X, y)) for name, X, y in iter_folder(args.data, args.datasets))
    first = next(datasets, None)
    if first is None:
        print(f"no data sets in {args.data}")
        return
    print(header("bench_accuracy"))
    print(f"# {args.folds}-fold stratified CV x {args.repeats} repeats (seed 0, same folds "
          f"for every model), at most {args.max_rows:,} rows, {args.n_estimators} trees, "
          f"n_jobs={args.n_jobs}; reference: {labels[args.reference]}\n")
    others = [k for k in keys if k != args.reference]
    print(table_head(["data set", "rows", "features", "classes"]
                     + [labels[k] for k in keys]
                     + [f"{labels[k]} - reference (points, corrected SE)" for k in others]))

    def row(name, result):
        cells = [name, f"{result['rows']:,}", result["features"], result["classes"]]
        cells += [f"{result['score'][k].mean():.4f}" for k in keys]
        for k in others:
            _, delta, se = paired(result, k, args.reference)
            mark = " *" if abs(delta) > 2 * se else ""
            cells.append(f"{100 * delta:+.2f} ± {100 * se:.2f}{mark}")
        print(table_row(cells), flush=True)

    results = cross_validate_models(itertools.chain([first], datasets), models,
                                    args.folds, args.repeats, seed=0,
                                    max_rows=args.max_rows, report=row)
    print("\n(* : more than two corrected standard errors from the reference)\n")
    print(f"## Summary over {len(results)} data sets\n")
    print("\n".join(summary(keys, labels, args.reference, results)))


if __name__ == "__main__":
    main()
