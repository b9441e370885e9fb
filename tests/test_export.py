"""rotforest.export_text: scikit-learn's text for threshold splits, sets for categories."""
import re

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.tree import export_text as sklearn_export_text

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, export_text)


@pytest.mark.parametrize("options", [{}, {"max_depth": 2}, {"max_depth": 0},
                                     {"decimals": 3, "spacing": 2},
                                     {"show_weights": True, "feature_names": list("abcd")}])
@pytest.mark.parametrize("regression", [False, True])
def test_threshold_splits_read_as_in_scikit_learn(options, regression):
    X, y = load_iris(return_X_y=True)
    X = X + np.random.RandomState(0).uniform(0, 0.01, X.shape)     # no ties
    tree = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(
        random_state=0).fit(X, y)
    if regression and options.get("show_weights"):
        options = dict(options, show_weights=False)
    assert export_text(tree, **options) == sklearn_export_text(tree, **options)


def test_pandas_categories_are_named():
    """A hand-made example: the city decides the class; the left child (the larger one)
    also takes missing and unseen cities."""
    pd = pytest.importorskip("pandas")
    city = pd.Categorical(["a"] * 6 + ["b"] * 4 + ["c"] * 5 + ["d"] * 3,
                          categories=["a", "b", "c", "d"])
    frame = pd.DataFrame({"city": city, "size": np.ones(18)})
    y = np.isin(np.asarray(city), ["b", "d"]).astype(int)
    tree = DecisionTreeClassifier(min_category_samples=1).fit(frame, y)
    assert export_text(tree, show_weights=True) == (
        "|--- city in {a, c} or missing\n"
        "|   |--- weights: [11.00, 0.00] class: 0\n"
        "|--- city not in {a, c}\n"
        "|   |--- weights: [0.00, 7.00] class: 1\n")


def test_names_that_would_blur_a_set_are_quoted():
    """Category names holding a comma or a brace, with spaces at either end, or empty,
    are printed quoted, so that every printed set reads one way."""
    pd = pytest.importorskip("pandas")
    names = ["Paris, TX", "{x}", " padded", "", "plain"]
    city = pd.Categorical(["Paris, TX"] * 6 + ["{x}"] * 4 + [" padded"] * 5 + [""] * 5
                          + ["plain"] * 4, categories=names)
    frame = pd.DataFrame({"city": city})
    y = np.isin(np.asarray(city), ["Paris, TX", " padded"]).astype(int)
    tree = DecisionTreeClassifier(min_category_samples=1).fit(frame, y)
    text = export_text(tree)
    assert "city in {'Paris, TX', ' padded'}" in text, text
    assert "city not in {'Paris, TX', ' padded'}" in text, text
    # the other side would have read {'{x}', '', plain}: quoted but the plain name
    from rotforest.export import _label
    assert [_label(n) for n in names] == ["'Paris, TX'", "'{x}'", "' padded'", "''", "plain"]


def test_forest_trees_name_pandas_categories():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    city = rng.choice(["a", "b", "c", "d"], 400)
    frame = pd.DataFrame({"city": pd.Categorical(city), "x": rng.randn(400)})
    y = np.isin(city, ["b", "d"]).astype(int)
    forest = RandomForestClassifier(n_estimators=3, max_depth=1, max_features=None,
                                    categorical_set_fraction=1.0, random_state=0)
    for tree in forest.fit(frame, y).estimators_:
        text = export_text(tree)
        assert ("city in {a, c}" in text or "city in {b, d}" in text), text


def test_codes_list_the_shorter_side():
    """With codes, the side listed is the shorter one: here the right child takes codes 0
    and missing values, the left one 1 to 4 and every code it never saw."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [np.nan]] * 5)
    y = np.array([1, 0, 0, 0, 0, 1] * 5)
    tree = DecisionTreeClassifier(categorical_features=[0], min_category_samples=1).fit(X, y)
    left = tree.tree_.categories_left(0)
    assert 0 not in left and {1, 2, 3, 4} <= set(left.tolist())
    assert not tree.tree_.missing_go_to_left[0]
    assert export_text(tree, feature_names=["code"], class_names=["no", "yes"]) == (
        "|--- code in {1, 2, 3, 4}\n"
        "|   |--- class: no\n"
        "|--- code not in {1, 2, 3, 4} or missing\n"
        "|   |--- class: yes\n")


def _sides(line):
    """(op, set of codes, or missing) of a printed categorical rule."""
    match = re.search(r"(not in|in) \{([0-9, ]*)\}( or missing)?$", line)
    codes = {int(c) for c in match.group(2).split(", ") if c}
    return match.group(1), codes, bool(match.group(3))


@pytest.mark.parametrize("seed", range(4))
def test_printed_sets_route_the_samples(seed):
    """Every sample whose code the printed rule of the root's left child accepts goes
    left, and no other (missing values as printed)."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 40, (500, 2)).astype(float)
    X[rng.rand(500) < 0.1, 0] = np.nan
    effect = rng.randn(40)
    y = (effect[np.nan_to_num(X[:, 0], nan=0).astype(int)] + 0.3 * rng.randn(500) > 0)
    forest = RandomForestClassifier(n_estimators=3, categorical_features=[0, 1],
                                    categorical_set_fraction=1.0,
                                    random_state=seed).fit(X, y)
    checked = 0
    for est in forest.estimators_:
        lines = export_text(est, max_depth=0).splitlines()
        if "in {" not in lines[0]:
            continue
        checked += 1
        op, codes, missing = _sides(lines[0])
        col = X[:, est.tree_.feature[0]]
        accepted = np.isin(col, list(codes)) == (op == "in")
        accepted = np.where(np.isnan(col), missing, accepted)
        went_left = est.decision_path(X).toarray()[:, est.tree_.children_left[0]] == 1
        assert np.array_equal(accepted, went_left)
        assert _sides(lines[2])[0] != op and _sides(lines[2])[2] != missing
    assert checked > 0


def test_bad_arguments():
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        export_text(tree, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="class_names has 1 names"):
        export_text(tree, class_names=["a"])
    with pytest.raises(ValueError, match="spacing"):
        export_text(tree, spacing=0)
    with pytest.raises(ValueError, match="max_depth"):
        export_text(tree, max_depth=-1)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        export_text(DecisionTreeClassifier())


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


def test_export_text_of_a_forest_says_to_pass_a_tree(binary_data):
    X, y = binary_data
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="estimators_"):
        export_text(forest)
    assert export_text(forest.estimators_[0]).startswith("|---")
