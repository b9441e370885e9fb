"""Fingerprints of fitted models, to check that a refactoring changes no result.

Fits every estimator on a fixed battery of small problems (every criterion; missing
values; categorical features; sample weights; monotonic constraints; depth-first and
best-first growth; both node methods; rotation forests' options) and prints one hash per
case of the fitted trees' node arrays and values and of the predictions on held-out
rows, then one hash of all of them.  Run it before and after a change that must not
change behaviour, and compare:

    python benchmarks/fingerprint.py > before.txt
    ... change ...
    python benchmarks/fingerprint.py > after.txt && diff before.txt after.txt

The hashes are of exact bytes: they hold on one machine and build (the AVX-512 kernels
are held to bit equality with the portable code, so ``ROTFOREST_NO_AVX512=1`` gives the
same hashes).
"""
import hashlib

import numpy as np

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor, _builder)


def _data(seed, n=400, n_features=6, nan=0.0, categorical=None, classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    X[:, 1] = np.round(X[:, 1] * 2)                     # a few-valued column
    if categorical is not None:
        X[:, categorical] = rng.integers(0, 7, n)
    score = X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 3] > 0)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    y_reg = np.abs(score + 0.3 * rng.normal(size=n))    # non-negative: Poisson too
    y_cls = np.digitize(np.nan_to_num(score),
                        np.quantile(np.nan_to_num(score), np.linspace(0, 1, classes + 1)[1:-1]))
    weights = rng.integers(0, 4, n).astype(float)
    return X, y_cls, y_reg, weights


def _cases():
    cls = ["gini", "entropy", "error"]
    reg = ["squared_error", "friedman_mse", "poisson", "absolute_error"]
    for c in cls:
        yield f"tree {c}", DecisionTreeClassifier(criterion=c, random_state=0), {}
        yield f"tree {c} best-first", DecisionTreeClassifier(
            criterion=c, max_leaf_nodes=20, random_state=0), {}
        yield f"tree {c} sqrt", DecisionTreeClassifier(
            criterion=c, max_features="sqrt", random_state=0), {}
    for c in reg:
        yield f"tree {c}", DecisionTreeRegressor(criterion=c, random_state=0), {}
        yield f"tree {c} depth 6", DecisionTreeRegressor(criterion=c, max_depth=6,
                                                         random_state=0), {}
    yield "tree monotonic", DecisionTreeClassifier(monotonic_cst=[1, 0, 0, -1, 0, 0],
                                                   random_state=0), {"classes": 2}
    yield "regressor monotonic", DecisionTreeRegressor(monotonic_cst=[1, 0, 0, 1, 0, 0],
                                                       random_state=0), {}
    yield "tree missing", DecisionTreeClassifier(random_state=0), {"nan": 0.1}
    yield "regressor missing", DecisionTreeRegressor(random_state=0), {"nan": 0.1}
    yield "tree categorical", DecisionTreeClassifier(categorical_features=[5],
                                                     random_state=0), {"categorical": 5}
    yield "regressor categorical", DecisionTreeRegressor(
        categorical_features=[5], random_state=0), {"categorical": 5, "nan": 0.05}
    yield "tree weighted", DecisionTreeClassifier(random_state=0), {"weights": True}
    yield "forest", RandomForestClassifier(n_estimators=8, random_state=0, n_jobs=2), {}
    yield "forest entropy missing", RandomForestClassifier(
        n_estimators=8, criterion="entropy", random_state=0), {"nan": 0.1}
    yield "forest categorical", RandomForestClassifier(
        n_estimators=8, categorical_features=[5], random_state=0), {"categorical": 5}
    yield "forest regressor", RandomForestRegressor(n_estimators=8, random_state=0), {}
    yield "forest absolute", RandomForestRegressor(n_estimators=4, criterion="absolute_error",
                                                   random_state=0), {}
    yield "rotation", RotationForestClassifier(n_estimators=6, random_state=0), {}
    yield "rotation missing impute", RotationForestClassifier(
        n_estimators=6, missing="impute", random_state=0), {"nan": 0.1}
    yield "rotation categorical sets", RotationForestClassifier(
        n_estimators=6, categorical_features=[5], min_category_samples=5,
        random_state=0), {"categorical": 5}
    yield "rotation regressor", RotationForestRegressor(n_estimators=6, random_state=0), {}


def _node_codes(tree_):
    """The tree's code sets as one 256-bit row per node (zeros for the nodes that do not
    split on a set), the form trees held before the sets could be wider: each code
    0 .. 255 set where it goes left (a code past the tree's rows goes where the node's
    missing values go), so that hashes compare across that change (the battery's codes
    are below 256)."""
    out = np.zeros((tree_.node_count, 4), dtype=np.uint64)
    if tree_.code_sets is None:
        return out
    for node in np.flatnonzero(tree_.code_row >= 0):
        bits = np.zeros(64 * max(4, tree_.code_words), dtype=bool)
        bits[tree_.categories_left(node)] = True
        bits[64 * tree_.code_words:] = bool(tree_.missing_go_to_left[node])
        out[node] = np.packbits(bits[:256], bitorder="little").view("<u8")
    return out


def _fingerprint(model, X):
    h = hashlib.sha256()
    trees = (getattr(model, "rotated_estimators_", None)     # a rotation forest's trees
             or getattr(model, "estimators_", None) or [model])
    for tree in trees:
        h.update(tree.tree_.nodes.tobytes())
        h.update(np.ascontiguousarray(tree.tree_.value).tobytes())
        # (trees grown with categorical features had a row per node even without a
        # split on a set, all zeros)
        if (tree.tree_.code_sets is not None
                or getattr(tree, "is_categorical_", None) is not None):
            h.update(_node_codes(tree.tree_).tobytes())
    out = model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)
    h.update(np.ascontiguousarray(out).tobytes())
    return h.hexdigest()[:16]


def main():
    total = hashlib.sha256()
    for method in ("auto", "presort", "sort"):
        _builder._set_node_method(method)
        for name, model, opts in _cases():
            X, y_cls, y_reg, weights = _data(0, nan=opts.get("nan", 0.0),
                                             categorical=opts.get("categorical"),
                                             classes=opts.get("classes", 3))
            y = y_reg if not hasattr(model, "predict_proba") else y_cls
            sw = weights[:300] if opts.get("weights") else None
            model.fit(X[:300], y[:300], sample_weight=sw)
            digest = _fingerprint(model, X[300:])
            total.update(digest.encode())
            print(f"{method:8s} {name:28s} {digest}")
    _builder._set_node_method("auto")
    print(f"all {total.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
