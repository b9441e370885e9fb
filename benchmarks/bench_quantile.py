"""rotforest's quantile regression forests against quantile-forest's, side by side in one
run, on the shared regression data sets (--data, default ../shared/datasets_regression
beside the project).

For every data set (at most --max-rows rows drawn uniformly, seed --seed; --repeats
random 75/25 splits, seeds 100 * --seed + 0, 1, ...) each model is fitted on the
training part and scored on the held-out part:

- the mean pinball loss over the 5%, 50% and 95% quantiles (divided, per data set, by
  quantile-forest's: the ratio column; below 1 is better);
- the coverage (share of held-out targets inside) and mean width of the 5%-95%
  interval: raw (the two quantiles) and calibrated (``predict_interval(X, 0.9)``: out of
  bag with bootstrap, else on ``calibrate`` with a held-out 20% of the training part,
  the forest then fitted on the other 80%);
- fit time and the time of predicting the three quantiles (the ratio to
  quantile-forest's, below 1 is faster).

Models: ``rf`` RandomForestQuantileRegressor, ``rot`` RotationForestQuantileRegressor,
``et`` ExtraTreesQuantileRegressor (when rotforest has it), each with its defaults, and
--variants (``key:Class:param=value,...``) beside them; ``qf`` quantile-forest's
RandomForestQuantileRegressor with its defaults (skipped when quantile-forest is not
installed: ``pip install "rotforest[benchmark]"``). Missing values: imputed with the
training means for quantile-forest, kept as NaN for ours.

    python benchmarks/bench_quantile.py                 # the docs' table
    python benchmarks/bench_quantile.py --quick         # two small sets, 20 trees
    python benchmarks/bench_quantile.py --seed 1        # fresh rows and splits

--seed (default 0) moves the row sample and the splits, not the models' own
``random_state`` (0): ``--seed 1`` gives splits no setting was chosen on, the check of a
choice made on seed 0's.
"""
import argparse
import os
import pickle
import sys
import time

import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.metrics import mean_pinball_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import rotforest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import header, installed, iter_folder, prepared, table_head, table_row  # noqa: E402

DEFAULT_DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared",
                            "datasets_regression")
LEVELS = (0.05, 0.5, 0.95)
COVERAGE = 0.9


def models(n_estimators, n_jobs, variants=()):
    """key -> a function making the model (a fresh one per fit)."""
    out = {"rf": lambda: rotforest.RandomForestQuantileRegressor(
               n_estimators=n_estimators, n_jobs=n_jobs, random_state=0),
           "rot": lambda: rotforest.RotationForestQuantileRegressor(
               n_estimators=n_estimators, n_jobs=n_jobs, random_state=0)}
    if hasattr(rotforest, "ExtraTreesQuantileRegressor"):
        out["et"] = lambda: rotforest.ExtraTreesQuantileRegressor(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0)
    for spec in variants:
        key, cls, *rest = spec.split(":")
        params = {}
        for item in (rest[0].split(",") if rest and rest[0] else []):
            name, value = item.split("=")
            try:
                value = eval(value, {})        # numbers, None, True/False, strings
            except (NameError, SyntaxError):
                pass
            params[name] = value
        out[key] = (lambda cls=cls, params=params: getattr(rotforest, cls)(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0, **params))
    if installed("quantile_forest"):
        from quantile_forest import RandomForestQuantileRegressor as Peer
        out["qf"] = lambda: make_pipeline(SimpleImputer(), Peer(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0))
    return out


def pinball(y, pred):
    return float(np.mean([mean_pinball_loss(y, pred[:, k], alpha=q)
                          for k, q in enumerate(LEVELS)]))


def coverage_width(y, lo, hi):
    return float(np.mean((y >= lo) & (y <= hi))), float(np.mean(hi - lo))


def evaluate(make, key, X_train, y_train, X_test, y_test):
    """One model on one split: pinball, raw and calibrated coverage and width, fit and
    predict times."""
    model = make()
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    pred = model.predict(X_test, quantiles=list(LEVELS))
    predict = time.perf_counter() - start
    out = {"pinball": pinball(y_test, pred), "fit": fit, "predict": predict}
    out["raw"] = coverage_width(y_test, pred[:, 0], pred[:, 2])
    if key != "qf":
        if not model.bootstrap:          # calibrate on a held-out fifth of the training
            X_fit, X_cal, y_fit, y_cal = train_test_split(X_train, y_train,
                                                          test_size=0.2, random_state=0)
            model = make().fit(X_fit, y_fit).calibrate(X_cal, y_cal)
        interval = model.predict_interval(X_test, coverage=COVERAGE)
        out["calibrated"] = coverage_width(y_test, interval[:, 0], interval[:, 1])
    return out


def geomean(values):
    values = np.asarray(values, dtype=float)
    return float(np.exp(np.mean(np.log(values))))


def run(folder, names, max_rows, repeats, n_estimators, n_jobs, variants=(), seed=0):
    if not os.path.isdir(folder):
        print(f"\n(no regression data sets at {folder}: skipped)")
        return None
    makers = models(n_estimators, n_jobs, variants)
    keys = list(makers)
    if "qf" not in makers:
        print("\n(quantile-forest is not installed: ours alone, no ratios)")
    print(f"\n## Quantile forests: {repeats} split(s) 75/25, {n_estimators} trees, "
          f"n_jobs={n_jobs}, at most {max_rows:,} rows a set"
          + (f", seed {seed}" if seed else "") + "\n")
    print("Mean pinball loss over the 5%, 50% and 95% quantiles (ratio to quantile-forest's"
          " in brackets), coverage of the 5%-95% interval raw / calibrated (90%).\n")
    cols = ["data set", "rows"] + [f"{k} pinball" for k in keys] + \
        [f"{k} coverage" for k in keys]
    print(table_head(cols))
    results = {}
    for name, X, y in iter_folder(folder, names):
        X, y = prepared(X, y, max_rows, None, np.random.default_rng(seed), "regression")
        per = {k: [] for k in keys}
        for r in range(repeats):
            X_train, X_test, y_train, y_test = train_test_split(
                X, y, test_size=0.25, random_state=100 * seed + r)
            for k in keys:
                per[k].append(evaluate(makers[k], k, X_train, y_train, X_test, y_test))
        results[name] = per
        mean = {k: {m: np.mean([o[m] for o in per[k]], axis=0)
                    for m in per[k][0]} for k in keys}
        base = mean["qf"]["pinball"] if "qf" in mean else None
        cells = [name, f"{len(y):,}"]
        for k in keys:
            p = mean[k]["pinball"]
            cells.append(f"{p:.4g}" + (f" ({p / base:.3f})" if base else ""))
        for k in keys:
            raw = mean[k]["raw"][0]
            cal = mean[k].get("calibrated")
            cells.append(f"{raw:.3f}" + (f" / {cal[0]:.3f}" if cal is not None else ""))
        print(table_row(cells), flush=True)
    if not results:
        return None
    summary(results, keys)
    return results


def summary(results, keys):
    def mean_of(k, m, part=None):
        vals = [np.mean([o[m] if part is None else o[m][part] for o in per[k]])
                for per in results.values()]
        return vals

    has_qf = "qf" in keys
    print("\n" + table_head(["model", "pinball ratio (geometric mean)",
                             "sets better / worse", "raw coverage", "raw width ratio",
                             "calibrated coverage", "calibrated width ratio",
                             "fit (s)", "fit ratio", "predict 3 quantiles (s)",
                             "predict ratio"]))
    qf = {m: mean_of("qf", m) for m in ("pinball", "fit", "predict")} if has_qf else None
    qf_width = mean_of("qf", "raw", 1) if has_qf else None
    for k in keys:
        pin = mean_of(k, "pinball")
        fit, pred = mean_of(k, "fit"), mean_of(k, "predict")
        raw_cov, raw_w = mean_of(k, "raw", 0), mean_of(k, "raw", 1)
        calibrated = "calibrated" in next(iter(results.values()))[k][0]
        cal_cov = mean_of(k, "calibrated", 0) if calibrated else None
        cal_w = mean_of(k, "calibrated", 1) if calibrated else None
        ratio = (lambda a, b: f"{geomean(np.divide(a, b)):.3f}") if has_qf else \
            (lambda a, b: "")
        better = (f"{int(np.sum(np.array(pin) < qf['pinball']))} / "
                  f"{int(np.sum(np.array(pin) > qf['pinball']))}") if has_qf else ""
        print(table_row([
            k, ratio(pin, qf["pinball"]) if has_qf else "", better,
            f"{np.mean(raw_cov):.3f}", ratio(raw_w, qf_width) if has_qf else "",
            f"{np.mean(cal_cov):.3f}" if calibrated else "",
            ratio(cal_w, qf_width) if calibrated and has_qf else "",
            f"{np.sum(fit):.1f}", ratio(fit, qf["fit"]) if has_qf else "",
            f"{np.sum(pred):.2f}", ratio(pred, qf["predict"]) if has_qf else ""]))
    print("\nRatios are geometric means over the data sets of ours / quantile-forest's; "
          "widths are the intervals' mean widths; times are summed over the data sets "
          "(mean of the splits).")


def memory(n_estimators):
    """Bytes a fitted forest's leaf lists take, per training row and tree."""
    from sklearn.datasets import make_friedman1
    print("\n## Memory of the leaves' training rows (bytes per training row per tree)\n")
    print(table_head(["model", "rows", "min_samples_leaf", "bytes / row / tree",
                      "the trees' own (pickled forest without the lists)"]))
    for n in (2_000, 20_000):
        X, y = make_friedman1(n, random_state=0)
        for key, make in (("rf", rotforest.RandomForestQuantileRegressor),
                          ("rot", rotforest.RotationForestQuantileRegressor)):
            for leaf in (1, 5):
                model = make(n_estimators=n_estimators, min_samples_leaf=leaf,
                             random_state=0).fit(X, y)
                per = model._leaf_lists.nbytes / (n * n_estimators)
                lists, model._leaf_lists = model._leaf_lists, None
                trees = len(pickle.dumps(model)) / (n * n_estimators)
                model._leaf_lists = lists
                print(table_row([key, f"{n:,}", leaf, f"{per:.2f}", f"{trees:.1f}"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--datasets", default="", help="comma-separated names (default all)")
    parser.add_argument("--max-rows", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0,
                        help="rows drawn with this seed, splits with 100 * seed + 0, 1...")
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--variants", nargs="*", default=[],
                        help="extra models key:Class:param=value,...")
    parser.add_argument("--quick", action="store_true",
                        help="two small data sets, 20 trees, 1,000 rows")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--machine", default=None)
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n] or None
    if args.quick:
        names = names or ["diabetes", "concrete"]
        args.n_estimators, args.max_rows = 20, 1_000
    print(header("bench_quantile", args.machine))
    results = run(args.data, names, args.max_rows, args.repeats, args.n_estimators,
                  args.n_jobs, args.variants, args.seed)
    if not args.no_memory:
        memory(10 if args.quick else args.n_estimators)
    return results


if __name__ == "__main__":
    main()
