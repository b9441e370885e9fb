"""Native categorical splits against one-hot and ordinal encodings, side by side.

On the shared data sets with categorical columns (each file's ``categorical`` array
marks them; classification in --data, regression in --data-regression), every model is
fitted on the same repeated (stratified) K-fold splits, with at most --max-rows rows a
data set (a stratified or uniform subsample):

``ours-rf``   rotforest's random forest        native / one-hot / ordinal codes, and
              sets (categorical_set_fraction=1.0: sets in every tree; native is
              its default, sets in half of the trees and codes in the others)
``ours-rof``  rotforest's rotation forest      native / one-hot / ordinal codes
              (its native default rotates the codes: the same trees as ordinal)
``sk-rf``     scikit-learn's random forest     one-hot / ordinal codes
``sk-hgb``    scikit-learn's histogram gradient boosting with its native categories

One-hot is a ``Pipeline`` of a ``ColumnTransformer`` (``OneHotEncoder`` on the
categorical columns, the rest passed through) and the forest; ordinal is the forest on
the codes as numbers.  Printed: each data set's mean accuracy (R^2 for regression) and
fit time per model, then per forest the paired difference native minus the better of
one-hot and ordinal (per data set, with the Nadeau-Bengio corrected standard error of
its folds; averaged over data sets) and the fit time of native over one-hot.

The folds and fits are bench_accuracy.py's ``cross_validate_one`` (the same folds as
before). The data sets are read here, not by common.py's loader: this benchmark needs
each file's ``categorical`` array, and merges classes too small for stratified folds.

    python benchmarks/bench_categorical.py --repeats 2 --folds 3
"""
import argparse
import os
import sys
from datetime import date

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                              RandomForestClassifier as SkForestClassifier,
                              RandomForestRegressor as SkForestRegressor)
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, cross_validate_one  # noqa: E402
from common import (dataset_names, machine_description, table_head,  # noqa: E402
                    table_row, versions)

from rotforest import (RandomForestClassifier, RandomForestRegressor,  # noqa: E402
                       RotationForestClassifier, RotationForestRegressor)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORESTS = ("ours-rf", "ours-rof", "sk-rf")


def _one_hot(mask, model, impute):
    cat = np.flatnonzero(mask)
    encoder = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cat)],
        remainder=SimpleImputer(strategy="median") if impute else "passthrough")
    return make_pipeline(encoder, model)


def models(mask, regression, n_estimators, n_jobs, has_nan, seed=0):
    """(key, encoding) -> a maker of the model."""
    common = dict(n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
    ours = {"ours-rf": RandomForestRegressor if regression else RandomForestClassifier,
            "ours-rof": RotationForestRegressor if regression else RotationForestClassifier}
    sk = SkForestRegressor if regression else SkForestClassifier
    hgb = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    out = {}
    for key, cls in ours.items():
        out[key, "native"] = lambda cls=cls: cls(categorical_features=mask, **common)
        out[key, "one-hot"] = lambda cls=cls: _one_hot(
            mask, cls(categorical_features=None, **common), False)
        out[key, "ordinal"] = lambda cls=cls: cls(categorical_features=None, **common)
    out["ours-rf", "sets"] = lambda: ours["ours-rf"](categorical_features=mask,
                                                     categorical_set_fraction=1.0, **common)
    out["sk-rf", "one-hot"] = lambda: _one_hot(mask, sk(**common), has_nan)
    out["sk-rf", "ordinal"] = lambda: (make_pipeline(SimpleImputer(strategy="median"),
                                                     sk(**common)) if has_nan else sk(**common))
    out["sk-hgb", "native"] = lambda: hgb(categorical_features=mask, random_state=seed)
    return out


def load(path, max_rows, regression, seed=0):
    with np.load(path, allow_pickle=False) as d:
        X, y, mask = d["X"].astype(np.float64), d["y"], d["categorical"].astype(bool)
    if len(y) > max_rows:
        rng = np.random.RandomState(seed)
        if regression:
            keep = np.sort(rng.choice(len(y), max_rows, replace=False))
        else:
            keep, _ = train_test_split(np.arange(len(y)), train_size=max_rows,
                                       stratify=y, random_state=seed)
            keep = np.sort(keep)
        X, y = X[keep], y[keep]
    if not regression:
        y = np.unique(y, return_inverse=True)[1]
        # classes too small for stratified folds are merged into the largest
        counts = np.bincount(y)
        y = np.where(counts[y] < 10, np.argmax(counts), y)
        y = np.unique(y, return_inverse=True)[1]
    return X, y.astype(np.float64) if regression else y, mask


def evaluate(makers, X, y, regression, folds, repeats, seed=0):
    """Per model: the fold scores, the total fit time and the mean fold sizes
    (bench_accuracy.cross_validate_one: repeated (stratified) K-fold; the makers see to
    missing cells themselves)."""
    res = cross_validate_one(makers, X, y, folds, repeats, seed,
                             "regression" if regression else "classification", nan="none")
    return (res["score"], {k: float(v.sum()) for k, v in res["fit"].items()},
            (res["n_train"], res["n_test"]))


def report(results, keys):
    """The per-data-set table and the summary lines."""
    lines = [table_head(["data set", "task", *(f"{m} {e}" for m, e in keys)],
                        "ll" + "r" * len(keys))]
    for name, (task, score, fit, _) in results.items():
        lines.append(table_row([name, task, *(f"{score[k].mean():.4f} ({fit[k]:.1f} s)"
                                              for k in keys)]))
    lines += ["", table_head(["forest", "native - best encoding (points)",
                              "data sets better / worse (2 SE)", "fit native / one-hot",
                              "fit native / ordinal"])]
    for forest in FORESTS:
        if (forest, "native") not in keys:
            continue
        diffs, better, worse, t_native, t_onehot, t_ordinal = [], 0, 0, 0.0, 0.0, 0.0
        for name, (task, score, fit, (n_train, n_test)) in results.items():
            best = max(("one-hot", "ordinal"), key=lambda e: score[forest, e].mean())
            delta = score[forest, "native"] - score[forest, best]
            se = corrected_se(delta, n_train, n_test)
            diffs.append(delta.mean())
            better += bool(delta.mean() > 2 * se)
            worse += bool(delta.mean() < -2 * se)
            t_native += fit[forest, "native"]
            t_onehot += fit[forest, "one-hot"]
            t_ordinal += fit[forest, "ordinal"]
        diffs = np.array(diffs)
        se_sets = diffs.std(ddof=1) / np.sqrt(len(diffs)) if len(diffs) > 1 else np.nan
        lines.append(f"| {forest} | {100 * diffs.mean():+.2f} ± {100 * se_sets:.2f} | "
                     f"{better} / {worse} | {t_native / t_onehot:.2f} | "
                     f"{t_native / t_ordinal:.2f} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--data-regression",
                        default=os.path.join(REPO, "..", "shared", "datasets_regression"))
    parser.add_argument("--max-rows", type=int, default=10_000)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--models", default="ours-rf,ours-rof,sk-rf,sk-hgb",
                        help="comma-separated among ours-rf, ours-rof, sk-rf, sk-hgb")
    parser.add_argument("--only", default=None, help="comma-separated data set names")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the row subsample, the folds and the models")
    args = parser.parse_args(argv)
    wanted = set(args.models.split(","))
    only = None if args.only is None else set(args.only.split(","))
    print(f"# native categorical splits vs encodings ({date.today()}; "
          f"{machine_description()}; {versions()}; {args.repeats} x {args.folds}-fold, "
          f"at most {args.max_rows} rows, {args.n_estimators} trees, n_jobs={args.n_jobs}, "
          f"seed {args.seed})")
    results, keys = {}, None
    for folder, regression in ((args.data, False), (args.data_regression, True)):
        for name in dataset_names(folder):
            path = os.path.join(folder, name + ".npz")
            if only is not None and name not in only:
                continue
            with np.load(path, allow_pickle=False) as d:
                if "categorical" not in d.files or not d["categorical"].any():
                    continue
            X, y, mask = load(path, args.max_rows, regression, args.seed)
            makers = {k: m for k, m in models(mask, regression, args.n_estimators,
                                                args.n_jobs, bool(np.isnan(X).any()),
                                                args.seed).items()
                      if k[0] in wanted}
            keys = list(makers)
            score, fit, sizes = evaluate(makers, X, y, regression, args.folds, args.repeats,
                                         args.seed)
            results[name] = ("R^2" if regression else "accuracy", score, fit, sizes)
            print(f"{name}: {X.shape}, {int(mask.sum())} categorical; " + ", ".join(
                f"{m} {e} {score[m, e].mean():.4f}" for m, e in keys), flush=True)
    if not results:
        raise SystemExit("no data set with categorical columns found")
    print()
    print("\n".join(report(results, keys)))
    return results


if __name__ == "__main__":
    main()
