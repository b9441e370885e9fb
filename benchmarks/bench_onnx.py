"""ONNX inference of a rotforest random forest against scikit-learn's exported by skl2onnx.

A RandomForestClassifier of 100 trees fitted on 6,000 x 20 rows (make_classification),
exported with rotforest.to_onnx, and scikit-learn's RandomForestClassifier of the same
size exported with skl2onnx (``options={"zipmap": False}``), both run by onnxruntime
(one session each, intra_op_num_threads=2) on 10,000 rows, with rotforest's own
predict_proba.  Prints median times over repeats and their ratios.

skl2onnx's forest takes a double input here too (its TreeEnsembleClassifier computes
in double: thresholds and sums) unless ``--float`` asks for single precision.

Usage: python benchmarks/bench_onnx.py [--quick] [--float] [--repeats N]
"""
import argparse
import os
import platform
import statistics
import time

import numpy as np


def median_time(fn, repeats):
    fn()                                        # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--float", action="store_true",
                        help="export scikit-learn's forest with a float32 input")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()

    import onnxruntime as ort
    import skl2onnx
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier as SklearnForest

    import rotforest
    from rotforest import RandomForestClassifier

    n_trees, n_train, n_test = (10, 600, 1_000) if args.quick else (100, 6_000, 10_000)
    repeats = args.repeats or (3 if args.quick else 7)
    X, y = make_classification(n_train + n_test, 20, n_informative=10, random_state=0)
    X_train, y_train, X_test = X[:n_train], y[:n_train], X[n_train:]

    ours = RandomForestClassifier(n_estimators=n_trees, random_state=0, n_jobs=2)
    ours.fit(X_train, y_train)
    theirs = SklearnForest(n_estimators=n_trees, random_state=0, n_jobs=2)
    theirs.fit(X_train, y_train)

    start = time.perf_counter()
    our_model = rotforest.to_onnx(ours)
    our_export = time.perf_counter() - start
    dtype = np.float32 if args.float else np.float64
    start = time.perf_counter()
    their_model = skl2onnx.to_onnx(theirs, X_train[:1].astype(dtype),
                                   options={"zipmap": False})
    their_export = time.perf_counter() - start

    def session(model):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        return ort.InferenceSession(model.SerializeToString(), options,
                                    providers=["CPUExecutionProvider"])

    our_session, their_session = session(our_model), session(their_model)
    X_ours = np.ascontiguousarray(X_test, dtype=np.float64)
    X_theirs = np.ascontiguousarray(X_test, dtype=dtype)
    our_input = our_session.get_inputs()[0].name
    their_input = their_session.get_inputs()[0].name

    # the exports agree with their estimators
    proba = our_session.run(None, {our_input: X_ours})[1]
    ours_error = float(np.abs(proba - ours.predict_proba(X_test)).max())
    proba = their_session.run(None, {their_input: X_theirs})[1]
    theirs_error = float(np.abs(proba - theirs.predict_proba(X_test)).max())

    t_ours_onnx = median_time(lambda: our_session.run(None, {our_input: X_ours}), repeats)
    t_sk_onnx = median_time(lambda: their_session.run(None, {their_input: X_theirs}),
                            repeats)
    t_ours = median_time(lambda: ours.predict_proba(X_test), repeats)

    nodes = sum(t.tree_.node_count for t in ours.estimators_)
    sk_nodes = sum(t.tree_.node_count for t in theirs.estimators_)
    print(f"machine: {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; onnxruntime {ort.__version__}, "
          f"skl2onnx {skl2onnx.__version__}")
    print(f"forests: {n_trees} trees on {n_train} x 20 rows ({nodes} nodes ours, "
          f"{sk_nodes} scikit-learn's); {n_test} test rows; median of {repeats}")
    print(f"export: ours {our_export:.3f} s ({len(our_model.SerializeToString()) / 1e6:.1f}"
          f" MB), skl2onnx {their_export:.3f} s "
          f"({len(their_model.SerializeToString()) / 1e6:.1f} MB, "
          f"{np.dtype(dtype).name} input)")
    print(f"max |onnx - predict_proba|: ours {ours_error:.2e}, scikit-learn's "
          f"{theirs_error:.2e}")
    print(f"ours, onnxruntime          {t_ours_onnx * 1e3:9.1f} ms")
    print(f"scikit-learn, onnxruntime  {t_sk_onnx * 1e3:9.1f} ms")
    print(f"ours, predict_proba        {t_ours * 1e3:9.1f} ms")
    print(f"ratio ours-onnx / sk-onnx:        {t_ours_onnx / t_sk_onnx:.2f}")
    print(f"ratio ours-onnx / predict_proba:  {t_ours_onnx / t_ours:.2f}")


if __name__ == "__main__":
    main()
