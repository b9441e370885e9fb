"""ONNX inference of rotforest's random forests against scikit-learn's exported by skl2onnx.

For a binary and a 5-class RandomForestClassifier and a RandomForestRegressor of 100
trees fitted on 6,000 x 20 rows (make_classification / make_regression): ours exported
with rotforest.to_onnx, scikit-learn's forest of the same size exported with skl2onnx
(``options={"zipmap": False}``), both run by onnxruntime (one session at a time,
intra_op_num_threads=2) on 10,000 rows, and our own predict_proba / predict.  Prints
median times over repeats, their ratios, and each export's largest difference from its
own estimator.

skl2onnx's classifier takes a double input here too (its TreeEnsembleClassifier compares
in double but returns single-precision probabilities) unless ``--float`` asks for a
float32 input; its regressor always takes float32 (its double export does not load in
onnxruntime 1.32).

Usage: python benchmarks/bench_onnx.py [--quick] [--float] [--repeats N]
"""
import argparse
import os
import sys
import statistics
import time
from datetime import date

import numpy as np


def median_time(fn, repeats):
    fn()                                        # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def session(ort, model):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def compare(ort, skl2onnx, task, n_classes, args, n_trees, n_train, n_test, repeats):
    """One row of the table: times (ms), ratios and errors."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.ensemble import RandomForestClassifier as SklearnClassifier
    from sklearn.ensemble import RandomForestRegressor as SklearnRegressor

    import rotforest
    from rotforest import RandomForestClassifier, RandomForestRegressor

    classifier = task == "classification"
    if classifier:
        X, y = make_classification(n_train + n_test, 20, n_informative=10,
                                   n_classes=n_classes, random_state=0)
        ours = RandomForestClassifier(n_estimators=n_trees, random_state=0, n_jobs=2)
        theirs = SklearnClassifier(n_estimators=n_trees, random_state=0, n_jobs=2)
        dtype = np.float32 if args.float else np.float64
    else:
        X, y = make_regression(n_train + n_test, 20, n_informative=10, noise=10.0,
                               random_state=0)
        ours = RandomForestRegressor(n_estimators=n_trees, random_state=0, n_jobs=2)
        theirs = SklearnRegressor(n_estimators=n_trees, random_state=0, n_jobs=2)
        dtype = np.float32
    X_train, y_train, X_test = X[:n_train], y[:n_train], X[n_train:]
    ours.fit(X_train, y_train)
    theirs.fit(X_train, y_train)
    options = {"zipmap": False} if classifier else None
    our_model = rotforest.to_onnx(ours)
    their_model = skl2onnx.to_onnx(theirs, X_train[:1].astype(dtype), options=options)
    X_ours = np.ascontiguousarray(X_test, dtype=np.float64)
    X_theirs = np.ascontiguousarray(X_test, dtype=dtype)

    def output(sess, X_in):
        out = sess.run(None, {sess.get_inputs()[0].name: X_in})
        return out[1] if classifier else out[0][:, 0]

    own = ours.predict_proba if classifier else ours.predict
    sk_own = theirs.predict_proba if classifier else theirs.predict
    times, errors = {}, {}
    for name, model, X_in, reference in (("ours", our_model, X_ours, own(X_test)),
                                         ("sk", their_model, X_theirs, sk_own(X_test))):
        sess = session(ort, model)
        errors[name] = float(np.abs(output(sess, X_in) - reference).max())
        times[name] = median_time(lambda: sess.run(None, {sess.get_inputs()[0].name: X_in}),
                                  repeats)
        sess = None     # the session freed before the next one
    times["predict"] = median_time(lambda: own(X_test), repeats)
    label = f"{task}, {n_classes} classes" if classifier else task
    print(f"| {label} | {times['ours'] * 1e3:.1f} | {times['sk'] * 1e3:.1f} | "
          f"{times['ours'] / times['sk']:.2f} | {times['predict'] * 1e3:.1f} | "
          f"{times['ours'] / times['predict']:.2f} | {errors['ours']:.1e} | "
          f"{errors['sk']:.1e} ({np.dtype(dtype).name} input) |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--float", action="store_true",
                        help="export scikit-learn's classifier with a float32 input")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()

    import onnxruntime as ort
    import skl2onnx

    n_trees, n_train, n_test = (10, 600, 1_000) if args.quick else (100, 6_000, 10_000)
    repeats = args.repeats or (3 if args.quick else 7)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import machine_description, versions
    print(f"# bench_onnx: {date.today()}; {machine_description()}; {versions()}; "
          f"onnxruntime {ort.__version__}, skl2onnx {skl2onnx.__version__}")
    print(f"forests: {n_trees} trees on {n_train} x 20 rows; {n_test} rows predicted; "
          f"median of {repeats}\n")
    print("| forest | ours, onnxruntime (ms) | scikit-learn's, onnxruntime (ms) | ratio | "
          "ours, predict (ms) | ratio onnx / predict | max error ours | max error "
          "scikit-learn's |\n|---|---|---|---|---|---|---|---|")
    for task, n_classes in (("classification", 2), ("classification", 5),
                            ("regression", 1)):
        compare(ort, skl2onnx, task, n_classes, args, n_trees, n_train, n_test, repeats)


if __name__ == "__main__":
    main()
