"""Every fast scan against the reference scan.

The builder scans a feature with the fastest code for the case at hand: the two-class Gini
scan (and its AVX-512 kernel), the multiclass scans, the entropy and error scans, the
squared-error block scan, the Poisson scan, the counting scans of sorting nodes, each
with or without missing values.  ``_builder._set_reference_scan(True)`` sends every
numeric feature through ``_scan_reference`` instead: one plain loop that scores every cut
from the node's statistics with the criterion's proxy.  Here both grow a tree on the same
data, over criterion x classes x weights x missing values x node method, and the trees
must agree node for node.

Where the two choose different splits, the fast scan must have found an equally good one
(the same impurity decrease, to rounding): the scans compute the same proxies in other
arithmetic, so among cuts of equal gain rounding may pick another.  Such a node is a tie;
the subtrees below it are not compared, and ties must stay a small share of the nodes.
"""
import numpy as np
import pytest

from rotforest import DecisionTreeClassifier, DecisionTreeRegressor, _builder


def _data(n_classes, missing, regression, seed):
    """400 rows: four continuous columns, two of few values (counted, not sorted, in
    sorting nodes) and two of many repeated values; classes from a noisy rule, or a
    positive target (Poisson takes it too)."""
    rng = np.random.default_rng(seed)
    n = 400
    X = np.column_stack([
        rng.normal(size=(n, 4)),
        rng.integers(0, 4, size=(n, 2)),
        np.round(rng.normal(size=(n, 2)), 1),
    ])
    signal = X[:, 0] + 0.7 * X[:, 4] - 0.5 * X[:, 6] + 0.6 * rng.normal(size=n)
    if regression:
        y = np.exp(0.5 * signal)
    else:
        y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X, y


def _weights(kind, n, seed):
    rng = np.random.default_rng(seed + 1)
    if kind == "none":
        return None
    if kind == "integer":       # small integers: packed into the keys
        return rng.integers(1, 4, size=n).astype(float)
    return rng.uniform(0.2, 3.0, size=n)


def _decrease(t, i):
    l, r = t.children_left[i], t.children_right[i]
    w = t.weighted_n_node_samples
    return t.impurity[i] * w[i] - t.impurity[l] * w[l] - t.impurity[r] * w[r]


def _compare(fast, reference):
    """(nodes compared, ties): node for node from the root, a tie where the two split
    differently with equal impurity decreases (the subtrees below are skipped)."""
    a, b = fast.tree_, reference.tree_
    compared, ties = 0, 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        compared += 1
        assert a.n_node_samples[i] == b.n_node_samples[j]
        assert a.weighted_n_node_samples[i] == pytest.approx(b.weighted_n_node_samples[j],
                                                             rel=1e-12)
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=1e-12, atol=1e-14)
        a_leaf, b_leaf = a.children_left[i] == -1, b.children_left[j] == -1
        assert a_leaf == b_leaf, f"node {i}: a leaf in one tree only"
        if a_leaf:
            continue
        if (a.feature[i] != b.feature[j] or a.threshold[i] != b.threshold[j]
                or a.missing_go_to_left[i] != b.missing_go_to_left[j]):
            scale = max(1.0, abs(_decrease(b, j)))
            assert _decrease(a, i) == pytest.approx(_decrease(b, j), rel=1e-10,
                                                    abs=1e-12 * scale), f"node {i}"
            ties += 1
            continue
        stack.append((a.children_left[i], b.children_left[j]))
        stack.append((a.children_right[i], b.children_right[j]))
    return compared, ties


def _fit_both(make, X, y, w, method):
    previous_method = _builder._set_node_method(method)
    try:
        fast = make().fit(X, y, sample_weight=w)
        previous = _builder._set_reference_scan(True)
        try:
            reference = make().fit(X, y, sample_weight=w)
        finally:
            _builder._set_reference_scan(previous)
    finally:
        _builder._set_node_method(previous_method)
    return fast, reference


SETTINGS = [{}, {"min_samples_leaf": 3, "min_weight_fraction_leaf": 0.01}]


def _check_settings(tree_class, criterion, X, y, w, method):
    """Both scans agree under each of SETTINGS; ties stay a minority of the nodes."""
    total = ties = 0
    for settings in SETTINGS:
        fast, reference = _fit_both(
            lambda: tree_class(criterion=criterion, random_state=0, **settings),
            X, y, w, method)
        c, t = _compare(fast, reference)
        total += c
        ties += t
    assert total >= 40
    assert ties <= max(3, total // 5), (ties, total)


@pytest.mark.parametrize("method", ["presort", "sort"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
def test_classification_scans_equal_the_reference(criterion, n_classes, weights, missing,
                                                  method):
    X, y = _data(n_classes, missing, False, seed=n_classes)
    _check_settings(DecisionTreeClassifier, criterion, X, y,
                    _weights(weights, len(y), n_classes), method)


@pytest.mark.parametrize("method", ["presort", "sort"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse", "poisson"])
def test_regression_scans_equal_the_reference(criterion, weights, missing, method):
    X, y = _data(1, missing, True, seed=7)
    _check_settings(DecisionTreeRegressor, criterion, X, y, _weights(weights, len(y), 7),
                    method)


def test_the_switch_reaches_the_reference_scan():
    """The comparisons above have teeth: with the switch on, the tree is grown by
    another scan.  The error criterion's proxy is flat over long runs of cuts, and with
    real weights the two scans' rounding resolves some of those ties differently (each
    an equally good cut, which _compare checks); and the switch is put back."""
    X, y = _data(2, False, False, seed=2)
    w = _weights("real", len(y), 2)
    fast, reference = _fit_both(lambda: DecisionTreeClassifier(criterion="error",
                                                               random_state=0),
                                X, y, w, "presort")
    assert _builder._set_reference_scan(False) is False
    compared, ties = _compare(fast, reference)
    assert ties > 0
