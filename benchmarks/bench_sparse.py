"""Sparse and high-cardinality categorical input: rotforest's forests against
scikit-learn's, side by side in one run, with the fit time, the peak memory of the fit
and the held-out accuracy.

All data is generated here from --seed (0); every part splits its rows 75 / 25 into
training and held-out rows (``train_test_split``, random_state=--seed).

``onehot``  A "one-hot pipeline".  --rows rows (40,000) of a pandas DataFrame: 10 numeric
            columns ``num_0`` .. ``num_9`` (standard normal floats) and three categorical
            columns (pandas ``category`` dtype): ``city`` of 2,000 levels with Zipf-like
            frequencies (level k drawn with probability proportional to 1 / (k + 1)),
            ``product`` of 300 levels (proportional to 1 / (k + 1) ** 0.7) and ``plan`` of
            20 levels (uniform); --levels changes the counts.  The target is binary:

                score = num_0 - 0.8 num_1 + 0.6 num_2 num_3
                        + city effect + product effect + plan effect + N(0, 0.5^2)
                y = score > 0

            with one random effect a level, drawn N(0, 1), N(0, 0.8^2) and N(0, 0.6^2)
            for city, product and plan, so that the categories matter.  The fitted thing
            is scikit-learn's ``Pipeline([("encode", ColumnTransformer([("num",
            "passthrough", numeric), ("cat", OneHotEncoder(categories=<every level>,
            handle_unknown="ignore"), categorical)])), ("forest", forest)])``, whose
            encoder hands the forest a CSR matrix of 10 + 2,000 + 300 + 20 = 2,330
            columns (every declared level has its column, seen in training or not).
            Forests: rotforest's RandomForestClassifier and scikit-learn's, in that same
            pipeline.
``native``  The same data with its NATIVE categories: rotforest's RandomForestClassifier
            (``categorical_features="from_dtype"``) given the DataFrame itself (any
            number of levels), against scikit-learn's
            ``HistGradientBoostingClassifier(categorical_features="from_dtype")`` (its
            defaults otherwise: 100 iterations, early stopping above 10,000 rows), which
            takes at most 255 levels a categorical column and is expected to refuse the
            2,000-level city: the table then says "refused" with the first line of the
            error.  ``ours-sets``: ours with sets on the categories in every tree
            (``categorical_set_fraction=1.0``) and ``min_category_samples=3``.
            A second pair of rows gives both models the columns of more than 255
            levels as their integer codes (numeric columns: city and product by
            default) and the others as categories (plan).  With the onehot part in the
            same run, the summary also compares our native fit with our one-hot
            pipeline (the issue's target: at most 0.5x its fit time, at least its
            accuracy).
``words``   "Word counts": a CSR matrix of --word-rows rows (15,000) and --word-terms
            terms (20,000) at --word-density (0.2%) of nonzero cells.  Term j (column j)
            is the (j+1)-th most frequent: a document of Poisson(L) tokens draws each
            token's term with probability proportional to 1 / (j + 1) (Zipf), so the
            count of term j in a document is Poisson(L p_j); L is set so that the
            expected share of nonzero cells is the density asked for.  The target: 40
            informative terms among the ranks 5 to 300, each with a weight of random
            sign and size U(0.5, 1.5); score = counts of those terms . weights
            + N(0, 0.5^2), y = score > its median (balanced classes).  rotforest's
            RandomForestClassifier against scikit-learn's, on the CSR matrix.
``large``   "Large word counts", the same generator at --large-rows (100,000) x
            --large-terms (50,000), density --large-density (0.05%): does ours fit, with a
            peak under 4 GB?  scikit-learn's for reference.  Slow: off by default (--large,
            or name it in --parts).

Forests: --trees trees (100), --n-jobs threads (2), random_state=0, each library's
defaults otherwise (sqrt of the features at each node).  The thread pools of scikit-learn
(OpenMP) and BLAS are limited to --n-jobs as well.

What is measured.  Every model is fitted in a fresh child process, forked by a
multiprocessing "forkserver" that has imported the libraries once (and nothing else),
which generates its part's data from the seed itself (only the options go to it, and
only a few numbers come back), so that the peak memory is the fit's own.  In the child,
just before the fit: ``gc.collect()``, the resident set size (RSS) is read, and the
kernel's peak-RSS counter is reset to it (``echo 5 > /proc/self/clear_refs``), so that
whatever generating the data took does not count.  "Peak RSS" is the child's peak
resident set size at the end of the fit, ``resource.getrusage(RUSAGE_SELF).ru_maxrss``
(which reads that counter: the peak since the reset; where the reset is not allowed,
the peak over the child's life, data generation included, and the output says so),
"fit increment" that peak minus the RSS just before the fit: the memory the fit needed
above the training data, the held-out data and the imports.  For the pipelines both
include the one-hot encoding.  "Fit" is the best wall time of --repeat fits (each a
fresh model; the peak is over all of them), "predict" the time to predict the held-out
rows, "predict increment" the peak RSS of that prediction above the RSS before it, and
"accuracy" the share of held-out rows predicted right.  The parent kills a child whose
RSS passes --memory-limit GB (default half of this machine's memory) and reports it.
"load" is the 1-minute load average just before the fit (the machine may be shared; a
previous child's fit counts in it too).

    python benchmarks/bench_sparse.py                          # onehot, native, words
    python benchmarks/bench_sparse.py --large                  # and the large counts
    python benchmarks/bench_sparse.py --parts words --word-rows 5000 --trees 20
    python benchmarks/bench_sparse.py --quick                  # tiny sizes, 3 trees

Linux only (reads /proc).
"""
import argparse
import gc
import json
import os
import resource
import shlex
import sys
import time

import numpy as np

PARTS = ("onehot", "native", "words", "large")
DEFAULT_PARTS = ("onehot", "native", "words")
# the models of each part, in table order; the pairs whose ratios are printed
MODELS = {
    "onehot": ("ours", "sklearn"),
    "native": ("ours", "ours-sets", "hgb", "ours-codes", "hgb-codes"),
    "words": ("ours", "sklearn"),
    "large": ("ours", "sklearn"),
}
PAIRS = {
    "onehot": [("ours", "sklearn")],
    "native": [("ours", "hgb"), ("ours-codes", "hgb-codes")],
    "words": [("ours", "sklearn")],
    "large": [("ours", "sklearn")],
}
LABELS = {
    "onehot": {"ours": "rotforest RF in the one-hot pipeline",
               "sklearn": "scikit-learn RF in the one-hot pipeline"},
    "native": {"ours": "rotforest RF, native categories",
               "ours-sets": "rotforest RF, native, set fraction 1, min_category_samples 3",
               "hgb": "scikit-learn HGB, native categories",
               "ours-codes": "rotforest RF, native; > 255 levels as numeric codes",
               "hgb-codes": "scikit-learn HGB, native; > 255 levels as codes"},
    "words": {"ours": "rotforest RF on CSR", "sklearn": "scikit-learn RF on CSR"},
    "large": {"ours": "rotforest RF on CSR", "sklearn": "scikit-learn RF on CSR"},
}
NUMERIC = [f"num_{j}" for j in range(10)]
CATEGORICAL = ["city", "product", "plan"]
MB = 1024.0
MAX_LEVELS = 255             # levels a categorical column may have in HGB


# ------------------------------------------------------------------------------ data


def _zipf(n_levels, exponent):
    p = 1.0 / np.arange(1, n_levels + 1) ** exponent
    return p / p.sum()


def categorical_frame(n, levels=(2000, 300, 20), seed=0):
    """The DataFrame of the onehot and native parts (see the module docstring) and its
    binary target."""
    import pandas as pd
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(NUMERIC)))
    score = X[:, 0] - 0.8 * X[:, 1] + 0.6 * X[:, 2] * X[:, 3]
    frame = pd.DataFrame(X, columns=NUMERIC)
    for name, k, exponent, scale in zip(CATEGORICAL, levels, (1.0, 0.7, 0.0),
                                        (1.0, 0.8, 0.6)):
        codes = rng.choice(k, size=n, p=_zipf(k, exponent))
        score += rng.normal(scale=scale, size=k)[codes]
        width = len(str(k - 1))
        names = [f"{name}_{i:0{width}d}" for i in range(k)]
        frame[name] = pd.Categorical.from_codes(codes, categories=names)
    y = (score + rng.normal(scale=0.5, size=n) > 0).astype(np.int64)
    return frame, y


def word_counts(n, n_terms, density, seed=0, n_informative=40):
    """The CSR count matrix of the words and large parts (see the module docstring), its
    binary target, and the mean document length L."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    p = _zipf(n_terms, 1.0)
    target = density * n_terms               # expected nonzero terms a document

    def distinct(length):                     # expected nonzero terms at length L
        return float(np.sum(-np.expm1(-length * p)))

    lo, hi = target, 2.0 * target
    while distinct(hi) < target:
        hi *= 2.0
    for _ in range(60):                       # bisection: distinct() is increasing
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if distinct(mid) < target else (lo, mid)
    length = 0.5 * (lo + hi)
    tokens = rng.poisson(length, size=n)
    rows = np.repeat(np.arange(n, dtype=np.int32), tokens)
    terms = np.searchsorted(np.cumsum(p), rng.random(rows.size), side="right")
    terms = np.minimum(terms, n_terms - 1).astype(np.int32)
    X = sp.csr_matrix((np.ones(rows.size), (rows, terms)), shape=(n, n_terms))
    X.sum_duplicates()                        # token multiplicities: the counts
    top = min(300, max(n_informative + 5, n_terms // 2))
    informative = rng.choice(np.arange(5, top), size=min(n_informative, top - 5),
                             replace=False)
    weights = rng.choice([-1.0, 1.0], size=informative.size) * rng.uniform(
        0.5, 1.5, size=informative.size)
    score = np.asarray(X[:, informative] @ weights).ravel() + rng.normal(scale=0.5, size=n)
    return X, (score > np.median(score)).astype(np.int64), length


def part_data(part, args):
    """(X_train, X_test, y_train, y_test, description) of a part."""
    from sklearn.model_selection import train_test_split
    if part in ("onehot", "native"):
        X, y = categorical_frame(args.rows, args.levels, args.seed)
        what = (f"{args.rows:,} rows: 10 numeric, city {args.levels[0]:,} levels, "
                f"product {args.levels[1]:,}, plan {args.levels[2]:,}")
    else:
        n, m, d = ((args.word_rows, args.word_terms, args.word_density) if part == "words"
                   else (args.large_rows, args.large_terms, args.large_density))
        X, y, length = word_counts(n, m, d, args.seed)
        what = (f"{n:,} x {m:,} CSR counts, {100 * X.nnz / (n * m):.3f}% nonzero "
                f"({X.nnz:,}), mean {length:.1f} tokens a row")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25,
                                                        random_state=args.seed)
    return X_train, X_test, y_train, y_test, what


# ------------------------------------------------------------------------------ models


def make_model(part, key, args, frame=None):
    """A fresh, unfitted model of a part (for native, ``frame`` tells the categories)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    import rotforest
    forest = dict(n_estimators=args.trees, n_jobs=args.n_jobs, random_state=0)
    if part == "onehot":
        encode = ColumnTransformer([
            ("num", "passthrough", NUMERIC),
            ("cat", OneHotEncoder(categories=[list(frame[c].cat.categories)
                                              for c in CATEGORICAL],
                                  handle_unknown="ignore"), CATEGORICAL)])
        model = (rotforest.RandomForestClassifier(**forest) if key == "ours"
                 else SkForest(**forest))
        return Pipeline([("encode", encode), ("forest", model)])
    if part == "native":
        if key == "ours-sets":
            # sets on the categories in every tree, rare levels pooled below 3 samples
            return rotforest.RandomForestClassifier(categorical_features="from_dtype",
                                                    categorical_set_fraction=1.0,
                                                    min_category_samples=3, **forest)
        if key.startswith("ours"):
            return rotforest.RandomForestClassifier(categorical_features="from_dtype",
                                                    **forest)
        return HistGradientBoostingClassifier(categorical_features="from_dtype",
                                              random_state=0)
    if key == "ours":
        return rotforest.RandomForestClassifier(**forest)
    return SkForest(**forest)


# ------------------------------------------------------------------------------ child


def _peak_kb():
    """The peak RSS in KB: since the last ``reset_peak``, or over the process's life
    where it was not allowed (getrusage reads the counter that the reset sets back)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _first_line(error):
    text = str(error).strip()
    return (text.splitlines()[0] if text else type(error).__name__)[:300]


def child(args):
    """Generate one part's data (``args.child`` is "part:model"), fit the model --repeat
    times and predict the held-out rows: a dict of the measurements."""
    from threadpoolctl import threadpool_limits
    from common import reset_peak, status_kb
    part, key = args.child.split(":")
    X_train, X_test, y_train, y_test, what = part_data(part, args)
    if part == "native" and key.endswith("codes"):
        X_train, X_test = X_train.copy(), X_test.copy()
        for name in CATEGORICAL:      # too many levels for either: numeric codes
            if len(X_train[name].cat.categories) > MAX_LEVELS:
                for X in (X_train, X_test):
                    X[name] = X[name].cat.codes.astype(np.float64)
    out = {"part": part, "model": key, "what": what, "load": os.getloadavg()[0]}
    times, model = [], None
    with threadpool_limits(limits=args.n_jobs):
        for _ in range(args.repeat):
            model = None
            gc.collect()
            model = make_model(part, key, args, X_train)
            out["reset"] = reset_peak()
            before = status_kb("VmRSS")
            out.setdefault("rss_before_kb", before)
            start = time.perf_counter()
            try:
                model.fit(X_train, y_train)
            except Exception as error:             # reported in the table, not raised
                out["refused"] = f"{type(error).__name__}: {_first_line(error)}"
                break
            times.append(time.perf_counter() - start)
            peak = _peak_kb()
            out["peak_kb"] = max(out.get("peak_kb", 0), peak)
            out["increment_kb"] = max(out.get("increment_kb", 0), peak - before, 0)
        if "refused" not in out:
            out["fit_s"] = min(times)
            gc.collect()
            reset = reset_peak()
            before = status_kb("VmRSS")
            start = time.perf_counter()
            pred = model.predict(X_test)
            out["predict_s"] = time.perf_counter() - start
            # RSS may fall below ``before`` (pages handed back): no increment, not < 0
            out["predict_increment_kb"] = max(_peak_kb() - before, 0) if reset else None
            out["accuracy"] = float(np.mean(pred == y_test))
    return out


PRELOAD = ["numpy", "scipy.sparse", "pandas", "threadpoolctl", "sklearn.ensemble",
           "sklearn.compose", "sklearn.pipeline", "sklearn.preprocessing",
           "sklearn.model_selection", "rotforest", "bench_sparse"]


def child_entry(args, conn):
    """A child process's body: the result of ``child`` (or why there is none) sent back
    as one JSON string."""
    try:
        out = child(args)
    except BaseException as error:               # noqa: BLE001 (reported, then exit)
        out = {"refused": f"child failed: {type(error).__name__}: {_first_line(error)}"}
    conn.send(json.dumps(out))
    conn.close()


def _forkserver():
    """The multiprocessing context the children run in: a fork server that has imported
    the libraries once (a child then starts in milliseconds, with its own memory
    counters, instead of importing them again in a fresh interpreter)."""
    import multiprocessing
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)                 # the server imports bench_sparse by name
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_child(ctx, args, part, key):
    """Run one model's child process, watching its RSS; its result, or a dict with
    "refused" saying why there is none."""
    import bench_sparse                       # the fork server's name for this module
    limit_kb = args.memory_limit * 2 ** 20
    job = argparse.Namespace(**{**vars(args), "child": f"{part}:{key}"})
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=bench_sparse.child_entry, args=(job, send))
    proc.start()
    send.close()
    start, stopped, message = time.monotonic(), None, None
    while True:          # the limits are checked before any result is read
        if _rss_kb(proc.pid) > limit_kb:
            stopped = f"stopped: RSS passed the {args.memory_limit:g} GB limit"
        elif args.timeout and time.monotonic() - start > args.timeout:
            stopped = f"stopped: ran over {args.timeout:g} s"
        if stopped:
            proc.kill()
            break
        if receive.poll(0.05):
            try:
                message = receive.recv()
            except EOFError:                      # the child died without a word
                pass
            break
        if not proc.is_alive() and not receive.poll(0):
            break
    proc.join()
    receive.close()
    if stopped:
        return {"refused": stopped}
    if message is None:
        return {"refused": f"child failed (exit code {proc.exitcode})"}
    return json.loads(message)


# ------------------------------------------------------------------------------ tables


def _mb(kb):
    return "-" if kb is None else f"{kb / MB:,.0f}"


def _row(label, r):
    if "refused" in r:                   # the fit's error, or why the child stopped
        why = r["refused"]
        if not why.startswith(("stopped", "child failed")):
            why = f"refused: {why}"
        return [label, why, "-", "-", "-", "-", "-",
                f"{r['load']:.2f}" if "load" in r else "-"]
    return [label, f"{r['fit_s']:.2f}", _mb(r["peak_kb"]), _mb(r["increment_kb"]),
            f"{r['predict_s']:.2f}", _mb(r["predict_increment_kb"]),
            f"{r['accuracy']:.4f}", f"{r['load']:.2f}"]


def _ratio(a, b, field):
    if "refused" in a or "refused" in b or not b.get(field):
        return None
    return a[field] / b[field]


def _cell(value, fmt=".3f", bold=True):
    if value is None:
        return "-"
    return f"**{value:{fmt}}**" if bold else f"{value:{fmt}}"


def ratios(a, b):
    """fit, peak, fit-increment and predict ratios of a to b, and a - b in accuracy
    points (None where either has no figure)."""
    diff = (None if "refused" in a or "refused" in b
            else 100 * (a["accuracy"] - b["accuracy"]))
    return [_ratio(a, b, "fit_s"), _ratio(a, b, "peak_kb"), _ratio(a, b, "increment_kb"),
            _ratio(a, b, "predict_s"), diff]


COLUMNS = ["model", "fit (s)", "peak RSS (MB)", "fit increment (MB)", "predict (s)",
           "predict increment (MB)", "held-out accuracy", "load"]


def report(part, what, results, args):
    from common import markdown_table
    rows = [_row(LABELS[part][key], r) for key, r in results.items()]
    for a, b in PAIRS[part]:
        fit, peak, inc, pred, diff = ratios(results[a], results[b])
        rows.append([f"{a} / {b}", _cell(fit), _cell(peak, ".2f", False),
                     _cell(inc, ".2f"), _cell(pred, ".2f", False), "-",
                     "-" if diff is None else f"{diff:+.2f} points", "-"])
    title = {"onehot": "(a) One-hot pipeline", "native": "(b) Native categories",
             "words": "(c) Word counts", "large": "(d) Large word counts"}[part]
    forest = f"{args.trees} trees, n_jobs={args.n_jobs}"
    print(f"\n## {title}: {what}; 75/25 split; {forest}; best of {args.repeat}\n")
    print(markdown_table(COLUMNS, rows))
    if part == "native":
        print("\nHGB: scikit-learn's HistGradientBoostingClassifier at its defaults "
              "(100 iterations, early stopping above 10,000 rows), not a forest; the "
              "second pair gives both models the columns of more than "
              f"{MAX_LEVELS} levels as integer codes (numeric), the others as categories.")
    if part == "large":
        ours = results["ours"]
        verdict = ("does not fit" if "refused" in ours else
                   f"fits, peak RSS {ours['peak_kb'] / MB ** 2:.2f} GB: "
                   + ("under" if ours["peak_kb"] < 4 * MB ** 2 else "NOT under") + " 4 GB")
        print(f"\nTarget, ours fits with a peak under 4 GB: {verdict}")


def summary(all_results):
    from common import markdown_table
    rows = []
    for part, results in all_results.items():
        for a, b in PAIRS[part]:
            fit, peak, inc, pred, diff = ratios(results[a], results[b])
            rows.append([part, f"{a} / {b}", _cell(fit, ".3f", False),
                         _cell(peak, ".2f", False), _cell(inc, ".2f", False),
                         _cell(pred, ".2f", False),
                         "-" if diff is None else f"{diff:+.2f}"])
    if "onehot" in all_results and "native" in all_results:
        # our native categories against our own one-hot pipeline, on the same rows
        onehot = all_results["onehot"]["ours"]
        for key in ("ours", "ours-sets"):
            native = all_results["native"][key]
            fit, peak, inc, pred, diff = ratios(native, onehot)
            rows.append(["native / onehot", f"{key} native / ours one-hot",
                         _cell(fit, ".3f", False), _cell(peak, ".2f", False),
                         _cell(inc, ".2f", False), _cell(pred, ".2f", False),
                         "-" if diff is None else f"{diff:+.2f}"])
    print("\n## Summary: ours / the peer (\"-\": one of them refused)\n")
    print(markdown_table(["part", "pair", "fit", "peak RSS", "fit increment", "predict",
                          "accuracy (points)"], rows, align="ll" + "r" * 5))


# ------------------------------------------------------------------------------ main


def _levels(text):
    values = [int(v) for v in text.split(",")]
    if len(values) != 3 or min(values) < 2:
        raise argparse.ArgumentTypeError("three level counts, at least 2 each: "
                                         "city,product,plan")
    return tuple(values)


def _physical_gb():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    except (ValueError, OSError):
        return 16.0


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default=",".join(DEFAULT_PARTS),
                    help=f"comma-separated, among {', '.join(PARTS)} (default "
                         f"{','.join(DEFAULT_PARTS)})")
    ap.add_argument("--large", action="store_true", help="add the large part")
    ap.add_argument("--rows", type=int, default=40_000,
                    help="rows of the onehot and native data (40,000)")
    ap.add_argument("--levels", type=_levels, default=(2000, 300, 20),
                    help="levels of city, product and plan (2000,300,20)")
    ap.add_argument("--word-rows", type=int, default=15_000)
    ap.add_argument("--word-terms", type=int, default=20_000)
    ap.add_argument("--word-density", type=float, default=0.002)
    ap.add_argument("--large-rows", type=int, default=100_000)
    ap.add_argument("--large-terms", type=int, default=50_000)
    ap.add_argument("--large-density", type=float, default=0.0005)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="best of this many fits (1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory-limit", type=float, default=round(_physical_gb() / 2, 1),
                    help="GB of RSS at which a child is killed (half of this machine's)")
    ap.add_argument("--timeout", type=float, default=0,
                    help="seconds after which a child is killed (0: none)")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes for a smoke run: 400 rows, levels 300,30,5, "
                         "300 x 500 counts (2,000 x 1,000 large), 3 trees")
    args = ap.parse_args(argv)
    args.parts = [p for p in args.parts.split(",") if p]
    if args.large and "large" not in args.parts:
        args.parts.append("large")
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown parts {unknown}; choose among {list(PARTS)}")
    if args.quick:
        args.rows, args.levels, args.trees = 400, (300, 30, 5), 3
        args.word_rows, args.word_terms, args.word_density = 300, 500, 0.02
        args.large_rows, args.large_terms, args.large_density = 2_000, 1_000, 0.01
    return args


def main(argv=None):
    args = parse(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import header
    command = sys.argv if argv is None else ["benchmarks/bench_sparse.py", *argv]
    print(header("bench_sparse"))
    print(f"# command: python {shlex.join(command)}")
    print("# load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()) + f" ({os.cpu_count()} cores)")
    print("\nEach model is fitted in a fresh child process (forked from a server that "
          "has only imported the libraries), which generates the data from the seed. "
          "fit: the best wall time of --repeat fits (pipelines: encoding included). "
          "peak RSS: the child's peak resident set size over the fit, "
          "getrusage(RUSAGE_SELF).ru_maxrss after the kernel's peak counter was reset "
          "to the current RSS just before the fit (/proc/self/clear_refs); "
          "fit increment: that peak minus the RSS just before the fit (above the data "
          "and the imports); predict (increment): the same for predicting the held-out "
          "25%; ratios: ours / the peer, accuracy as ours - the peer in points; "
          "load: the 1-minute load average before the fit.")
    ctx = _forkserver()
    all_results = {}
    for part in args.parts:
        results = {}
        for key in MODELS[part]:
            results[key] = run_child(ctx, args, part, key)
            print(f"  {part} {key}: done", file=sys.stderr, flush=True)
        # the data as the children described it (the parent never builds it)
        what = next((r["what"] for r in results.values() if "what" in r), part)
        if not all(r.get("reset", True) for r in results.values() if "refused" not in r):
            what += (" (the peak counter could not be reset: peak RSS over the child's "
                     "life, data generation included)")
        report(part, what, results, args)
        all_results[part] = results
    summary(all_results)
    print("\n# load average at the end: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    return all_results


if __name__ == "__main__":
    main()
