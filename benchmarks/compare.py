"""Cross-validated comparison of rotforest's estimators with scikit-learn's (and aeon's).

Every model is scored by ``cross_validate_models`` of bench_accuracy.py, the benchmarks'
one cross-validation function, on the same stratified, shuffled folds of every data set
(StratifiedKFold(shuffle=True, random_state=0): the folds of scikit-learn's
``cross_validate`` with that splitter, and the same scores; it also records the fit and
predict times: predict alone, where this script used to report ``cross_validate``'s
score time, prediction plus scoring). The script prints two markdown tables: accuracy per data
set (mean and standard deviation over the folds) and a summary per model (mean accuracy,
mean spread, mean rank, total fit and predict times). With matplotlib installed it also
saves a figure whose title states the machine and the date.

Models: rotforest's DecisionTreeClassifier, RandomForestClassifier and
RotationForestClassifier; scikit-learn's DecisionTreeClassifier, RandomForestClassifier
and ExtraTreesClassifier; aeon's RotationForestClassifier when aeon is installed, and
Yggdrasil Decision Forests' random forest, axis-aligned and sparse oblique (keys
ydf-forest and ydf-oblique), when ``ydf`` is installed, and treeple's oblique random forest
(treeple-oblique) when treeple imports (0.10.3 needs scikit-learn 1.6). Forests
have ``--n-estimators`` trees (100) and use ``--n-jobs`` threads (2); everything else is
left at each library's defaults, with ``random_state=0``.

Data: without ``--data``, the data sets that scikit-learn ships (iris, wine, breast
cancer, digits) and four synthetic ones generated on the spot (no download). With
``--data FOLDER``, every ``NAME.npz`` in it, each holding ``X`` (float64, NaN for missing
cells) and ``y`` (integer labels), the format of the project's shared data sets;
``--save-data FOLDER`` writes the default data sets in that format. ``--max-rows`` samples
large data sets. Cells that are missing are median-imputed inside each training fold, for
every model alike; ``--nan native`` passes them to every model that handles NaN itself
(rotforest's three estimators and scikit-learn's trees and forests) and imputes only for
the others.

With ``--task regression`` the same comparison runs for the regressors (rotforest's
DecisionTreeRegressor, RandomForestRegressor and RotationForestRegressor against
scikit-learn's tree, random forest and extra trees, and aeon's RotationForestRegressor),
scored by R^2 on shuffled K-fold splits; the built-in data are scikit-learn's diabetes
data and synthetic regression problems, and ``--data`` folders hold a float ``y``.

    python benchmarks/compare.py                          # the benchmarks page's table
    python benchmarks/compare.py --task regression
    python benchmarks/compare.py --data ../shared/datasets --max-rows 5000 --cv 3
"""
import argparse
import os
import sys
from datetime import date

import numpy as np
from scipy.stats import rankdata
from sklearn.datasets import (load_breast_cancer, load_diabetes, load_digits, load_iris,
                              load_wine, make_classification, make_friedman1,
                              make_friedman2, make_friedman3, make_moons, make_regression)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models  # noqa: E402
from common import (VARIANTS, available_models, header, installed,  # noqa: E402
                    load_folder, machine_description, prepared, table_head, table_row)

# ------------------------------------------------------------------------------- data


def circles_sine_line(n_samples=2000, noise=0.1, random_state=0):
    """The 2-D test function of the documentation's decision-surface example.

    Points are uniform on [0, 1]^2. Class 1: inside either of two circles, or below a
    sine wave on the left half, or above a diagonal line on the right half; class 0
    elsewhere. Then a fraction ``noise`` of the labels, drawn at random, is flipped.
    """
    rng = np.random.default_rng(random_state)
    X = rng.random((n_samples, 2))
    a, b = X[:, 0], X[:, 1]
    in_circles = (((a - 0.28) ** 2 + (b - 0.72) ** 2 < 0.15 ** 2)
                  | ((a - 0.70) ** 2 + (b - 0.35) ** 2 < 0.12 ** 2))
    under_sine = (a < 0.5) & (b < 0.25 + 0.12 * np.sin(4 * np.pi * a))
    over_line = (a >= 0.5) & (b > 1.45 - 0.9 * a)
    y = (in_circles | under_sine | over_line).astype(np.int64)
    flip = rng.random(n_samples) < noise
    y[flip] = 1 - y[flip]
    return X, y


def junk_features(n_samples=1500, random_state=0):
    """5 informative features and 45 of pure noise."""
    X, y = make_classification(n_samples=n_samples, n_features=5, n_informative=5,
                               n_redundant=0, random_state=random_state)
    noise = np.random.default_rng(random_state).normal(size=(n_samples, 45))
    return np.hstack([X, noise]), y


def default_datasets():
    """name -> (X, y): scikit-learn's bundled data sets and four synthetic ones."""
    out = {}
    for name, loader in [("iris", load_iris), ("wine", load_wine),
                         ("breast_cancer", load_breast_cancer), ("digits", load_digits)]:
        X, y = loader(return_X_y=True)
        out[name] = (X.astype(np.float64), y.astype(np.int64))
    out["classification_20f"] = make_classification(
        n_samples=3000, n_features=20, n_informative=10, n_redundant=4, random_state=0)
    out["moons_noisy"] = make_moons(n_samples=1500, noise=0.3, random_state=0)
    out["circles_sine_line"] = circles_sine_line(2000, noise=0.1, random_state=0)
    out["junk_features"] = junk_features(1500, random_state=0)
    return {k: (np.asarray(X, np.float64), np.asarray(y, np.int64))
            for k, (X, y) in out.items()}


def default_regression_datasets():
    """name -> (X, y): scikit-learn's diabetes data and synthetic regression problems
    (Friedman's three, a sparse linear one, an oblique one and one with junk features)."""
    rng = np.random.default_rng(0)
    out = {"diabetes": load_diabetes(return_X_y=True)}
    out["friedman1"] = make_friedman1(2000, noise=1.0, random_state=0)
    out["friedman2"] = make_friedman2(2000, noise=50.0, random_state=0)
    out["friedman3"] = make_friedman3(2000, noise=0.1, random_state=0)
    out["linear_20f"] = make_regression(2000, 20, n_informative=8, noise=10.0,
                                        random_state=0)[:2]
    X = rng.normal(size=(2000, 8))
    out["oblique_sum"] = (X, np.tanh(X[:, :4].sum(axis=1)) + rng.normal(0, 0.1, 2000))
    X = rng.normal(size=(1500, 40))
    out["junk_features"] = (X, X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(0, 0.2, 1500))
    return {k: (np.asarray(X, np.float64), np.asarray(y, np.float64))
            for k, (X, y) in out.items()}


def save_datasets(datasets, folder):
    """Write each data set as NAME.npz with X, y, feature_names and class_names."""
    os.makedirs(folder, exist_ok=True)
    for name, (X, y) in datasets.items():
        np.savez_compressed(
            os.path.join(folder, name + ".npz"), X=X, y=y,
            feature_names=np.array([f"x{j}" for j in range(X.shape[1])]),
            **({} if y.dtype.kind == "f" else
               {"class_names": np.array([str(c) for c in np.unique(y)])}))


# ----------------------------------------------------------------------------- run


def evaluate(models, datasets, n_folds, nan_mode, verbose=True, task="classification"):
    """acc[d, m, fold] (accuracy, or R^2 for regression), fit[d, m], predict[d, m] (mean
    seconds per fold), by bench_accuracy.cross_validate_models on shuffled (stratified)
    K-fold, seed 0."""
    names = list(datasets)
    acc = np.full((len(names), len(models), n_folds), np.nan)
    fit = np.full((len(names), len(models)), np.nan)
    pred = np.full((len(names), len(models)), np.nan)
    labels = {k: label for k, (label, _) in models.items()}

    def progress(name, key, entry):
        print(f"  {name:<28} {labels[key]:<28} {entry['score'].mean():.4f} "
              f"({entry['seconds']:.1f} s)", flush=True)

    results = cross_validate_models(datasets, models, n_folds, 1, seed=0, task=task,
                                    nan="impute" if nan_mode == "impute" else "native",
                                    progress=progress if verbose else None)
    for d, name in enumerate(names):
        for m, key in enumerate(models):
            acc[d, m] = results[name]["score"][key]
            fit[d, m] = results[name]["fit"][key].mean()
            pred[d, m] = results[name]["predict"][key].mean()
    return acc, fit, pred


def markdown(labels, info, acc, fit, pred, metric="accuracy"):
    """The per-data-set and summary tables; ``info`` maps each data set's name to its
    (rows, features, classes); classes are 0 for regression."""
    names = list(info)
    mean = acc.mean(axis=2)
    ranks = np.array([rankdata(-np.round(row, 10)) for row in mean])
    shape_head = "rows x features" + (", classes" if any(c for *_, c in info.values())
                                      else "")
    lines = [table_head(["data set", shape_head, *labels], "ll" + "r" * len(labels))]
    for d, name in enumerate(names):
        rows, features, classes = info[name]
        best = f"{mean[d].max():.3f}"
        cells = []
        for m in range(len(labels)):
            cell = f"{mean[d, m]:.3f} ± {acc[d, m].std():.3f}"
            cells.append(f"**{cell}**" if f"{mean[d, m]:.3f}" == best else cell)
        shape = f"{rows} x {features}" + (f", {classes}" if classes else "")
        lines.append(table_row([name, shape, *cells]))
    table = "\n".join(lines)
    lines = [table_head(["model", f"mean {metric}", "mean spread (std over folds)",
                         "mean rank", "fit, total (s)", "predict, total (s)"])]
    for m in np.argsort(ranks.mean(axis=0), kind="stable"):
        lines.append(table_row([labels[m], f"{mean[:, m].mean():.4f}",
                                f"{acc[:, m].std(axis=1).mean():.4f}",
                                f"{ranks[:, m].mean():.2f}", f"{fit[:, m].sum():.2f}",
                                f"{pred[:, m].sum():.2f}"]))
    return table, "\n".join(lines), ranks


def plot(path, keys, labels, names, acc, fit, pred, ranks, title, metric="accuracy"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.patches import Patch

    mean = acc.mean(axis=2)
    order = np.argsort(ranks.mean(axis=0), kind="stable")
    colors = plt.get_cmap("tab10")
    fig, axes = plt.subplots(1, 3, figsize=(15, 0.3 * len(names) + 4.2),
                             gridspec_kw=dict(width_ratios=[2.2, 1, 1.2]))
    # accuracy relative to a reference model, in points: differences between forests
    # are a point or two, and would vanish on a 0-to-1 scale beside the single trees
    ref = list(keys).index("sk-forest") if "sk-forest" in keys else 0
    diff = 100 * (mean - mean[:, [ref]])
    low = max(diff.min() - 0.3, -6.0)
    high = max(diff.max() + 0.3, 1.0)
    ax = axes[0]
    rows = np.arange(len(names))
    width = 0.8 / len(labels)
    ax.axvline(0, color="0.5", lw=0.8)
    for i, m in enumerate(order):
        at = rows + (i - (len(labels) - 1) / 2) * width
        inside = diff[:, m] >= low
        ax.plot(diff[inside, m], at[inside], "o", ms=4, color=colors(m), label=labels[m])
        ax.plot(np.full((~inside).sum(), low), at[~inside], "<", ms=6, color=colors(m))
    ax.set_xlim(low - 0.2, high)
    ax.set_yticks(rows, names, fontsize=8 if len(names) > 12 else 10)
    ax.set_ylim(len(names) - 0.5, -0.5)
    unit = "points" if metric == "accuracy" else "x 100"
    ax.set_xlabel(f"{metric} minus {labels[ref]}'s ({unit}; ◀ = further left)")
    ax.grid(axis="x", alpha=0.3)
    handles, names_ = ax.get_legend_handles_labels()

    ax = axes[1]
    ax.barh(np.arange(len(order)), ranks.mean(axis=0)[order], color=[colors(m) for m in order])
    ax.set_yticks(np.arange(len(order)), [labels[m] for m in order], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"mean rank over {len(names)} data sets (1 = best)")

    ax = axes[2]
    y = np.arange(len(order))
    ax.barh(y - 0.2, fit.sum(axis=0)[order], 0.4, color=[colors(m) for m in order],
            label="fit")
    ax.barh(y + 0.2, pred.sum(axis=0)[order], 0.4, color=[colors(m) for m in order],
            alpha=0.45, label="predict")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_yticks(y, [labels[m] for m in order], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("seconds per fold, summed over data sets")
    ax.legend([Patch(color="0.3"), Patch(color="0.3", alpha=0.45)], ["fit", "predict"],
              fontsize=8, loc="lower right")
    fig.suptitle(title, fontsize=10)
    fig.legend(handles, names_, loc="lower center", ncol=min(4, len(names_)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of NAME.npz data sets (default: "
                        "scikit-learn's bundled data sets and synthetic ones)")
    parser.add_argument("--max-rows", type=int, default=None,
                        help="sample larger data sets down to this many rows")
    parser.add_argument("--task", choices=["classification", "regression"],
                        default="classification", help="classifiers (default) or regressors")
    parser.add_argument("--cv", type=int, default=5,
                        help="folds (5; stratified for classification)")
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--models", help="comma-separated keys among tree, sk-tree, "
                        "forest, sk-forest, sk-extra, rotation, aeon, ydf-forest, ydf-oblique, "
                        "treeple-oblique (default: all present), and sk-hgb, rotation-gaussian, "
                        "rotation-all, rotation-sqrt, rotation-third, rotation-range (classification) or "
                        "rotation-std (regression)")
    parser.add_argument("--nan", choices=["impute", "native"], default="impute",
                        help="median-impute missing cells per training fold for every "
                        "model (default), or pass them to the models that handle NaN "
                        "(imputing only for the others)")
    parser.add_argument("--plot", default="compare.png",
                        help="figure path (needs matplotlib; 'none' to skip)")
    parser.add_argument("--machine", help="machine description for the table and figure "
                        "(default: detected)")
    parser.add_argument("--save-data", metavar="FOLDER",
                        help="write the data sets used as NAME.npz into FOLDER")
    parser.add_argument("--save-results", metavar="FILE.npz",
                        help="save the scores and times, to redraw the tables and figure")
    parser.add_argument("--from-results", metavar="FILE.npz",
                        help="redraw the tables and figure of a saved run (no fitting)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)

    if args.from_results:
        with np.load(args.from_results, allow_pickle=False) as saved:
            run = {k: saved[k] for k in saved.files}
        run["header"] = [str(line) for line in run["header"]]
        run["title"] = str(run["title"])
    else:
        run = run_comparison(args, parser)
        if args.save_results:
            np.savez(args.save_results, **run)
    if args.from_results or args.quiet:       # otherwise printed before the progress
        print("\n".join(run["header"]), flush=True)
    keys, labels = [str(k) for k in run["keys"]], [str(x) for x in run["labels"]]
    names = [str(n) for n in run["names"]]
    info = dict(zip(names, (tuple(int(v) for v in row) for row in run["shapes"])))
    acc, fit, pred = run["acc"], run["fit"], run["pred"]
    metric = "R^2" if str(run.get("task", "classification")) == "regression" else "accuracy"
    per_dataset, summary, ranks = markdown(labels, info, acc, fit, pred, metric)
    print(f"\n## {metric[0].upper() + metric[1:]} per data set (mean ± std over folds; "
          "best in bold)\n")
    print(per_dataset)
    print("\n## Summary (fit and predict: mean seconds per fold, summed over data sets)\n")
    print(summary)

    if args.plot and args.plot.lower() != "none":
        if not installed("matplotlib"):
            print("\n(matplotlib is not installed: no figure)")
        else:
            plot(args.plot, keys, labels, names, acc, fit, pred, ranks, run["title"],
                 metric)
            print(f"\nfigure saved to {args.plot}")


def run_comparison(args, parser):
    """Load the data, run every model, and return the results with their description."""
    models = available_models(args.n_estimators, args.n_jobs, args.task)
    if args.models:
        keys = [k.strip() for k in args.models.split(",")]
        unknown = [k for k in keys if k not in models]
        if unknown:
            parser.error(f"unknown or unavailable models: {unknown}; "
                         f"available: {list(models)}")
        models = {k: models[k] for k in keys}
    else:       # the rotation forest's other settings and sk-hgb only on request
        for key in (*VARIANTS, "sk-hgb"):
            models.pop(key, None)
    source = args.data or "built-in (scikit-learn's bundled and synthetic data sets)"
    regression = args.task == "regression"
    raw = (load_folder(args.data) if args.data else
           default_regression_datasets() if regression else default_datasets())
    rng = np.random.default_rng(0)
    datasets = {name: prepared(X, y, args.max_rows, args.cv, rng, args.task)
                for name, (X, y) in raw.items()}
    if args.save_data:
        save_datasets(datasets, args.save_data)

    machine = args.machine or machine_description()
    today = date.today().isoformat()
    lines = [header("compare", machine),
             f"# data: {source}; {len(datasets)} data sets"
             + (f", at most {args.max_rows} rows each" if args.max_rows else "")
             + f"; {'' if regression else 'stratified '}{args.cv}-fold CV "
             "(shuffled, random_state=0); "
             f"{args.n_estimators} trees per forest, n_jobs={args.n_jobs}; "
             f"missing cells: {args.nan}"]
    if not args.quiet:
        print("\n".join(lines), flush=True)
    acc, fit, pred = evaluate(models, datasets, args.cv, args.nan, not args.quiet,
                              args.task)
    title = (f"{args.cv}-fold CV {'R²' if regression else 'accuracy'}, "
             f"{len(datasets)} data sets "
             f"({args.data if args.data else 'built-in'}"
             f"{f', at most {args.max_rows} rows' if args.max_rows else ''}), "
             f"{args.n_estimators} trees per forest, n_jobs={args.n_jobs}\n"
             f"{machine}; {today}")
    shapes = np.array([[X.shape[0], X.shape[1], 0 if regression else len(np.unique(y))]
                       for X, y in datasets.values()])
    return dict(acc=acc, fit=fit, pred=pred, keys=np.array(list(models)),
                labels=np.array([label for label, _ in models.values()]),
                names=np.array(list(datasets)), shapes=shapes,
                header=np.array(lines), title=np.array(title),
                task=np.array(args.task))


if __name__ == "__main__":
    main()
