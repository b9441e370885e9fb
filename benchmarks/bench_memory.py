"""Peak memory of fitting a forest, and the pickled size of the fitted forest: rotforest's
RandomForestClassifier (and optionally RotationForestClassifier) against scikit-learn's.

Every fit runs in a fresh subprocess so that its peak resident set size is its own:

- "baseline": a process that only imports the libraries and builds the data;
- one process per model: the same imports and data, then the fit.

Peak fit memory is reported two ways. "peak - baseline" is the fitting process's peak RSS
(VmHWM) minus the baseline process's peak. "peak over data" resets the peak counter once
the data is built (``echo 5 > /proc/self/clear_refs``, Linux >= 4.0) and subtracts the RSS
at that moment, so transient memory of building the data cannot hide part of the fit;
it is the figure the ratios use (the other one is used where the reset is not allowed).
"model in memory" is the RSS held after the fit (the fitted trees, plus heap memory freed
but not returned to the system), "tree arrays" the bytes of the trees' node and value
arrays, and "pickled" is ``len(pickle.dumps(model, protocol=5))``.

    python benchmarks/bench_memory.py                 # 1M x 20, 100 trees, n_jobs=2
    python benchmarks/bench_memory.py --n 100000      # quick
    python benchmarks/bench_memory.py --n 300000 --models ours sklearn rotation
    python benchmarks/bench_memory.py --models ours --fortran --n-jobs 1

Linux only (reads /proc/self/status).
"""
import argparse
import gc
import json
import os
import pickle
import subprocess
import sys
import time
from datetime import date

MB = 1024 * 1024


def _make_model(name, args):
    from sklearn.ensemble import RandomForestClassifier as SkForest

    from rotforest import RandomForestClassifier, RotationForestClassifier

    kw = dict(n_estimators=args.trees, n_jobs=args.n_jobs, random_state=0)
    if name == "ours":
        return RandomForestClassifier(**kw)
    if name == "sklearn":
        return SkForest(**kw)
    if name == "rotation":
        return RotationForestClassifier(**kw)
    raise ValueError(f"unknown model {name!r}")


def _node_bytes(tree):
    """Bytes of a fitted tree's node array (scikit-learn's hides it behind __getstate__)."""
    nodes = getattr(tree, "nodes", None)
    if nodes is None:
        nodes = tree.__getstate__()["nodes"]
    return nodes.nbytes


def child(args):
    """Build the data (and fit one model); print one JSON line of measurements."""
    import importlib

    import numpy as np
    from sklearn.datasets import make_classification
    from common import reset_peak, status_kb

    # imported for their memory, in the baseline too
    importlib.import_module("sklearn.ensemble")
    importlib.import_module("rotforest")

    X, y = make_classification(n_samples=args.n, n_features=args.features, n_informative=10,
                               n_redundant=4, random_state=args.seed)
    if args.fortran:
        X = np.asfortranarray(X)
    gc.collect()
    out = {"model": args.child, "hwm_data_kb": status_kb("VmHWM")}
    if args.child != "baseline":
        model = _make_model(args.child, args)
        out["reset"] = reset_peak()
        out["rss_before_kb"] = status_kb("VmRSS")
        t = time.perf_counter()
        model.fit(X, y)
        out["fit_s"] = time.perf_counter() - t
        out["hwm_fit_kb"] = status_kb("VmHWM")
        gc.collect()
        out["rss_after_kb"] = status_kb("VmRSS")
        out["pickled_bytes"] = len(pickle.dumps(model, protocol=5))
        trees = getattr(model, "rotated_estimators_", None) or model.estimators_
        out["nodes"] = int(sum(t.tree_.node_count for t in trees))
        out["tree_array_bytes"] = int(sum(_node_bytes(t.tree_) + t.tree_.value.nbytes
                                          for t in trees))
    print(json.dumps(out), flush=True)


def run_child(name, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--n", str(args.n),
           "--features", str(args.features), "--trees", str(args.trees),
           "--n-jobs", str(args.n_jobs), "--seed", str(args.seed)]
    if args.fortran:
        cmd.append("--fortran")
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000, help="rows (default 1M)")
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--trees", type=int, default=100)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fortran", action="store_true",
                   help="hand the models a column-major X (rotforest reads either layout without a copy)")
    p.add_argument("--models", nargs="+", default=["ours", "sklearn"],
                   choices=["ours", "sklearn", "rotation"])
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import machine_description, versions
    print(f"# bench_memory, {date.today()}; {machine_description()}; {versions()}")
    print(f"# make_classification n={args.n:,} x {args.features}, {args.trees} trees, "
          f"n_jobs={args.n_jobs}, random_state=0; data X = {args.n * args.features * 8 / MB:.0f}"
          f" MB (float64, {'column' if args.fortran else 'row'}-major)\n")
    base = run_child("baseline", args)
    rows = {}
    for name in args.models:
        r = run_child(name, args)
        if r["reset"]:
            r["peak_mb"] = (r["hwm_fit_kb"] - r["rss_before_kb"]) / 1024
        else:
            r["peak_mb"] = (r["hwm_fit_kb"] - base["hwm_data_kb"]) / 1024
        r["peak_minus_base_mb"] = (r["hwm_fit_kb"] - base["hwm_data_kb"]) / 1024
        r["model_mb"] = (r["rss_after_kb"] - r["rss_before_kb"]) / 1024
        r["pickled_mb"] = r["pickled_bytes"] / MB
        rows[name] = r

    label = {"ours": "rotforest RandomForestClassifier",
             "sklearn": "scikit-learn RandomForestClassifier",
             "rotation": "rotforest RotationForestClassifier"}
    print("| model | fit (s) | peak over data (MB) | peak - baseline (MB) "
          "| model in memory (MB) | tree arrays (MB) | pickled (MB) | nodes "
          "| pickled bytes / node |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        print(f"| {label[name]} | {r['fit_s']:.1f} | {r['peak_mb']:.0f} "
              f"| {r['peak_minus_base_mb']:.0f} | {r['model_mb']:.0f} "
              f"| {r['tree_array_bytes'] / MB:.0f} | {r['pickled_mb']:.1f} "
              f"| {r['nodes']:,} | {r['pickled_bytes'] / r['nodes']:.1f} |")
    print(f"\nbaseline process (imports and data only): peak {base['hwm_data_kb'] / 1024:.0f} MB")
    if "ours" in rows and "sklearn" in rows:
        o, s = rows["ours"], rows["sklearn"]
        print(f"ratios ours / scikit-learn: peak fit memory {o['peak_mb'] / s['peak_mb']:.3f}, "
              f"pickled size {o['pickled_bytes'] / s['pickled_bytes']:.3f}, "
              f"pickled bytes per node {(o['pickled_bytes'] / o['nodes']) / (s['pickled_bytes'] / s['nodes']):.3f}")


if __name__ == "__main__":
    main()
