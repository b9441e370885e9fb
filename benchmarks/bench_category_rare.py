"""Rare categorical levels pooled (setting 0, the default) or each alone with its
statistic shrunk towards the node's (setting 1), paired on the same folds.

In a node, a level with fewer than ``min_category_samples`` samples (default 10) is
rare.  In the searches of an order (two classes, regression, more classes with more
than 10 levels) setting 0 pools the rare levels into one level that goes to one side as
a whole; setting 1 places every level in the order by (s_j + a p_node) / (n_j + a),
a = min_category_samples, and scores every cut with the true sums.  The switch is the
private ``rotforest._builder._set_category_rare(k)``, set before every fit.  (Extra
trees draw their categorical splits at random and never read it: they are not run.)

Models, at their defaults otherwise (categorical_set_fraction 0.5 for the forests,
min_category_samples 10): rotforest's RandomForestClassifier / RandomForestRegressor
(--n-estimators trees, n_jobs=1) and DecisionTreeClassifier / DecisionTreeRegressor.
Every model is fitted on the same repeated (stratified) K-fold splits (bench_accuracy's
``cross_validate_one``, --repeats x --folds), once with each setting, with the same
random_state; the paired difference 1 - 0 (accuracy, or R^2, in points) carries the
Nadeau-Bengio corrected standard error of its folds.

Data:

(a) ``shared-clf`` / ``shared-reg``: every shared data set whose ``categorical`` array
    marks a column (classification in --data, regression in --data-regression), read by
    bench_categorical's ``load`` (at most --max-rows rows, a stratified subsample);
    skipped when the folders are absent.

(b) synthetic families, each at two sizes and --seeds seeds (seed s makes data set s;
    the folds and models use seed 0).  "num" is 10 standard normal columns and
    score = num_0 - 0.8 num_1 + 0.6 num_2 num_3; Zipf(e) draws level k with probability
    proportional to 1 / (k + 1) ** e; an effect is one normal draw a level.

    ``zipf-clf``      bench_sparse's ``categorical_frame``: num, city 2,000 levels
                      Zipf(1), product 300 Zipf(0.7), plan 20 uniform, effects sd 1,
                      0.8, 0.6; y = score + effects + N(0, 0.5^2) > 0
    ``zipf-reg``      the same columns, y = score + effects + N(0, 0.5^2)
    ``uniform500``    5 numeric columns, one 500-level uniform column with effects
                      sd 1.5 and a 20-level one with sd 0.6;
                      y = 0.5 (x_0 - x_1) + effects + N(0, 0.5^2) > 0
    ``few-clf``       num, columns of 5, 10 and 20 uniform levels (all frequent),
                      effects sd 1, 0.8, 0.6; binary as zipf-clf
    ``few-reg``       the same, regression
    ``noise-clf``     num, city 2,000 Zipf(1), product 300 Zipf(0.7), a 500-level
                      uniform column and plan 20 uniform, NO effect of any level:
                      y = score + N(0, 0.5^2) > 0
    ``noise-reg``     the same, y = score + N(0, 0.5^2)
    ``rare-tail``     city 2,000 Zipf(1) whose 30 most frequent levels have effects
                      sd 1 and all the others one shared effect +1 (the rare levels
                      are what matters in common), product and plan as zipf-clf;
                      y = score + effects + N(0, 0.5^2) > 0.5
    ``multi300``      4 classes: class c's score is num_0..3 @ w_c (w_c ~ N(0, 0.7^2))
                      plus a 300-level Zipf(0.7) column's effect (sd 1, one per level
                      and class) and a 20-level uniform one's (sd 0.6);
                      y = argmax over classes of score + Gumbel(0.5)

Printed: the header, one progress line per data set, then a table per data set (the
synthetic ones per family and size, the seeds pooled: mean over seeds, standard error
sqrt(sum se^2) / seeds) with both settings' mean score, the difference 1 - 0 in points
± its corrected standard error, the number of data sets better / worse by more than 2
standard errors and the mean fit time (s) of each setting; then per family the average
difference (the same pooled standard error).

    python benchmarks/bench_category_rare.py --repeats 2 --folds 3 --seeds 3 \\
        --n-estimators 100
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, cross_validate_one  # noqa: E402
from bench_categorical import load  # noqa: E402
from bench_sparse import _zipf, categorical_frame  # noqa: E402
from common import dataset_names, header, markdown_table  # noqa: E402

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,  # noqa: E402
                       RandomForestClassifier, RandomForestRegressor, _builder)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"rf": (RandomForestClassifier, RandomForestRegressor),
          "dt": (DecisionTreeClassifier, DecisionTreeRegressor)}
SETTINGS = (0, 1)


# ------------------------------------------------------------------------------ models


def _maker(cls, params, rare):
    def make():
        _builder._set_category_rare(rare)     # read when each tree is built
        return cls(**params)
    return make


def makers(mask, regression, kinds, n_estimators, seed=0):
    """(model, setting) -> a maker that sets the switch and returns a fresh model."""
    out = {}
    for kind in kinds:
        params = dict(categorical_features=mask, random_state=seed)
        if kind == "rf":
            params.update(n_estimators=n_estimators, n_jobs=1)
        for rare in SETTINGS:
            out[kind, rare] = _maker(MODELS[kind][regression], params, rare)
    return out


# ------------------------------------------------------------------------------ data


def _numeric(rng, n, width=10):
    X = rng.normal(size=(n, width))
    return X, X[:, 0] - 0.8 * X[:, 1] + 0.6 * X[:, 2] * X[:, 3]


def _columns(rng, n, spec):
    """Codes (n x len(spec)) and the summed level effects of columns spec = ((levels,
    Zipf exponent, effect sd), ...)."""
    codes, effect = np.empty((n, len(spec))), np.zeros(n)
    for j, (k, exponent, sd) in enumerate(spec):
        c = rng.choice(k, size=n, p=_zipf(k, exponent))
        effect += rng.normal(scale=sd, size=k)[c] if sd > 0 else 0.0
        codes[:, j] = c
    return codes, effect


def _join(num, codes):
    X = np.hstack([num, codes])
    mask = np.r_[np.zeros(num.shape[1], bool), np.ones(codes.shape[1], bool)]
    return X, mask


def zipf_clf(n, seed):
    frame, y = categorical_frame(n, seed=seed)
    num = frame[[c for c in frame.columns if c.startswith("num_")]].to_numpy(float)
    codes = np.column_stack([frame[c].cat.codes.to_numpy(float)
                             for c in ("city", "product", "plan")])
    return (*_join(num, codes), y)


def _labelled(rng, score, regression, threshold=0.0):
    y = score + rng.normal(scale=0.5, size=len(score))
    return y if regression else (y > threshold).astype(np.int64)


def zipf_reg(n, seed):
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    codes, effect = _columns(rng, n, ((2000, 1.0, 1.0), (300, 0.7, 0.8), (20, 0.0, 0.6)))
    return (*_join(num, codes), _labelled(rng, score + effect, True))


def uniform500(n, seed):
    rng = np.random.default_rng(seed)
    num = rng.normal(size=(n, 5))
    codes, effect = _columns(rng, n, ((500, 0.0, 1.5), (20, 0.0, 0.6)))
    return (*_join(num, codes), _labelled(rng, 0.5 * (num[:, 0] - num[:, 1]) + effect,
                                          False))


def few(n, seed, regression):
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    codes, effect = _columns(rng, n, ((5, 0.0, 1.0), (10, 0.0, 0.8), (20, 0.0, 0.6)))
    return (*_join(num, codes), _labelled(rng, score + effect, regression))


def noise(n, seed, regression):
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    codes, _ = _columns(rng, n, ((2000, 1.0, 0.0), (300, 0.7, 0.0), (500, 0.0, 0.0),
                                 (20, 0.0, 0.0)))
    return (*_join(num, codes), _labelled(rng, score, regression))


def rare_tail(n, seed):
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    city = rng.choice(2000, size=n, p=_zipf(2000, 1.0))
    head = np.full(2000, 1.0)                 # the tail: one shared effect
    head[:30] = rng.normal(size=30)           # the 30 most frequent levels: their own
    codes, effect = _columns(rng, n, ((300, 0.7, 0.8), (20, 0.0, 0.6)))
    X, mask = _join(num, np.column_stack([city, codes]))
    return X, mask, _labelled(rng, score + head[city] + effect, False, threshold=0.5)


def multi300(n, seed, classes=4):
    rng = np.random.default_rng(seed)
    num = rng.normal(size=(n, 10))
    scores = num[:, :4] @ rng.normal(scale=0.7, size=(4, classes))
    codes = np.empty((n, 2))
    for j, (k, exponent, sd) in enumerate(((300, 0.7, 1.0), (20, 0.0, 0.6))):
        c = rng.choice(k, size=n, p=_zipf(k, exponent))
        scores += rng.normal(scale=sd, size=(k, classes))[c]
        codes[:, j] = c
    y = np.argmax(scores + rng.gumbel(scale=0.5, size=scores.shape), axis=1)
    return (*_join(num, codes), y.astype(np.int64))


# name -> (generator(n, seed) -> (X, mask, y), regression, sizes)
FAMILIES = {
    "zipf-clf": (zipf_clf, False, (10_000, 20_000)),
    "zipf-reg": (zipf_reg, True, (10_000, 20_000)),
    "uniform500": (uniform500, False, (5_000, 20_000)),
    "few-clf": (lambda n, s: few(n, s, False), False, (2_000, 10_000)),
    "few-reg": (lambda n, s: few(n, s, True), True, (2_000, 10_000)),
    "noise-clf": (lambda n, s: noise(n, s, False), False, (5_000, 20_000)),
    "noise-reg": (lambda n, s: noise(n, s, True), True, (5_000, 20_000)),
    "rare-tail": (rare_tail, False, (5_000, 20_000)),
    "multi300": (multi300, False, (5_000, 20_000)),
}


def shared_sets(folder, regression, max_rows, only):
    """(name, X, y, mask) of the shared data sets with categorical columns."""
    if not os.path.isdir(folder):
        print(f"({folder} absent: skipped)")
        return
    for name in dataset_names(folder):
        if only is not None and name not in only:
            continue
        path = os.path.join(folder, name + ".npz")
        with np.load(path, allow_pickle=False) as d:
            if "categorical" not in d.files or not d["categorical"].any():
                continue
        X, y, mask = load(path, max_rows, regression)
        yield name, X, y, mask


# ------------------------------------------------------------------------------ runs


def evaluate(X, y, mask, regression, args):
    """Per model: the fold scores of each setting, the paired differences, their
    corrected SE and the mean fit time of each setting."""
    res = cross_validate_one(makers(mask, regression, args.models, args.n_estimators),
                             X, y, args.folds, args.repeats, 0,
                             "regression" if regression else "classification")
    out = {}
    for kind in args.models:
        s0, s1 = res["score"][kind, 0], res["score"][kind, 1]
        delta = s1 - s0
        out[kind] = dict(s0=s0.mean(), s1=s1.mean(), d=delta.mean(),
                         se=corrected_se(delta, res["n_train"], res["n_test"]),
                         t0=res["fit"][kind, 0].mean(), t1=res["fit"][kind, 1].mean())
    return out


def pooled(entries):
    """Mean over independent data sets, SE sqrt(sum se^2) / count, better / worse."""
    d = np.array([e["d"] for e in entries])
    se = np.array([e["se"] for e in entries])
    return dict(s0=np.mean([e["s0"] for e in entries]),
                s1=np.mean([e["s1"] for e in entries]),
                d=d.mean(), se=float(np.sqrt(np.sum(se ** 2)) / len(d)),
                better=int(np.sum(d > 2 * se)), worse=int(np.sum(d < -2 * se)), k=len(d),
                t0=np.mean([e["t0"] for e in entries]),
                t1=np.mean([e["t1"] for e in entries]))


def _row(label, kind, p):
    return [*label, kind, p["k"], f"{p['s0']:.4f}", f"{p['s1']:.4f}",
            f"{100 * p['d']:+.2f} ± {100 * p['se']:.2f}", f"{p['better']} / {p['worse']}",
            f"{p['t0']:.3f}", f"{p['t1']:.3f}"]


def data_arguments(parser, seeds):
    """The options this benchmark shares with bench_category_support.py: where the
    shared sets are and how many rows of them, the folds, the seeds of the synthetic
    families (``seeds`` by default) and the forests' size."""
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--data-regression",
                        default=os.path.join(REPO, "..", "shared", "datasets_regression"))
    parser.add_argument("--max-rows", type=int, default=5_000)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=seeds,
                        help="data sets a family and size")
    parser.add_argument("--n-estimators", type=int, default=100)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_arguments(parser, 3)
    parser.add_argument("--models", default="rf,dt", help="comma-separated among rf, dt")
    parser.add_argument("--families", default="shared," + ",".join(FAMILIES),
                        help="comma-separated among shared and " + ", ".join(FAMILIES))
    parser.add_argument("--only", default=None, help="comma-separated shared set names")
    args = parser.parse_args(argv)
    args.models = args.models.split(",")
    families = args.families.split(",")
    only = None if args.only is None else set(args.only.split(","))
    print(header("bench_category_rare.py"))
    print(f"# setting 1 (rare levels shrunk) vs 0 (pooled): {args.repeats} x {args.folds}"
          f"-fold, {args.n_estimators} trees, n_jobs=1, shared sets at most "
          f"{args.max_rows} rows, {args.seeds} seeds a synthetic family and size\n")
    previous = _builder._set_category_rare(0)
    rows = {}          # (family, data set label) -> {kind: result}
    try:
        if "shared" in families:
            for folder, regression, family in ((args.data, False, "shared-clf"),
                                               (args.data_regression, True, "shared-reg")):
                for name, X, y, mask in shared_sets(folder, regression, args.max_rows,
                                                    only):
                    res = evaluate(X, y, mask, regression, args)
                    rows[family, name, len(y)] = [res]
                    print(f"{family} {name} {X.shape} {int(mask.sum())} categorical: "
                          + ", ".join(f"{k} {100 * r['d']:+.2f} ± {100 * r['se']:.2f}"
                                      for k, r in res.items()), flush=True)
        for family in FAMILIES:
            if family not in families:
                continue
            generate, regression, sizes = FAMILIES[family]
            for n in sizes:
                for seed in range(args.seeds):
                    X, mask, y = generate(n, seed)
                    res = evaluate(X, y, mask, regression, args)
                    rows.setdefault((family, f"n={n}", n), []).append(res)
                    print(f"{family} n={n} seed {seed}: " + ", ".join(
                        f"{k} {r['s0']:.4f} -> {r['s1']:.4f} ({100 * r['d']:+.2f} ± "
                        f"{100 * r['se']:.2f})" for k, r in res.items()), flush=True)
    finally:
        _builder._set_category_rare(previous)
    if not rows:
        raise SystemExit("nothing measured")

    columns = ["family", "data set", "rows", "model", "sets", "score 0", "score 1",
               "1 - 0 (points)", "better / worse (2 SE)", "fit 0 (s)", "fit 1 (s)"]
    table, summary = [], []
    for kind in args.models:
        for (family, label, n), results in rows.items():
            table.append(_row((family, label, n), kind,
                              pooled([r[kind] for r in results])))
        for family in dict.fromkeys(f for f, _, _ in rows):
            entries = [r[kind] for (f, _, _), results in rows.items() if f == family
                       for r in results]
            summary.append(_row((family,), kind, pooled(entries)))
    print("\n## Per data set (synthetic: per family and size, seeds pooled)\n")
    print(markdown_table(columns, table, align="lllllrrrrrr"))
    print("\n## Per family (every data set of the family)\n")
    print(markdown_table([columns[0], *columns[3:]], summary, align="lllrrrrrr"))
    return rows


if __name__ == "__main__":
    main()
