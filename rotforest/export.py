"""A text view of a fitted tree that shows splits on sets of categories.

scikit-learn's ``export_text`` reads our trees, but prints a categorical split as a
threshold of NaN.  ``export_text`` here prints the same text for threshold splits and
``name in {...}`` / ``name not in {...}`` for categorical ones, naming the categories of a
pandas ``category`` column and saying which side missing values (and categories the
node did not see in training) take.
"""
import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from rotforest._tree import TREE_LEAF

__all__ = ["export_text"]


def _subtree_depth(tree, node):
    """Levels of the subtree under ``node`` (1 for a leaf)."""
    left, right = tree.children_left, tree.children_right
    depth, frontier = 0, [node]
    while frontier:
        depth += 1
        frontier = [c for n in frontier if left[n] != TREE_LEAF for c in (left[n], right[n])]
    return depth


def _label(category):
    """A category's name in a printed set: as it is, or quoted (repr) when it is empty,
    has spaces at either end, or holds a comma or a brace, which would make the set
    ambiguous to read."""
    text = str(category)
    if not text or text != text.strip() or any(ch in text for ch in ",{}"):
        return repr(text)
    return text


def _category_sides(tree, node, categories):
    """The labels of the categories each child of a categorical ``node`` gets, as
    ('in', items) for the left child and ('not in', items) for the right, or the other
    way round, whichever lists fewer items; ``categories``: the names of the codes (a
    pandas column's), or None for codes: then the codes 0 .. 64 ``tree.code_words`` - 1
    (those the node's set reaches; larger ones go where missing values go)."""
    n_codes = 64 * tree.code_words
    n = n_codes if categories is None else len(categories)
    goes_left = np.zeros(n, dtype=bool)
    left = tree.categories_left(node)
    goes_left[left[left < n]] = True
    # a category whose code is past the node's set goes where missing values go
    goes_left[n_codes:] = bool(tree.missing_go_to_left[node])
    left, right = np.flatnonzero(goes_left), np.flatnonzero(~goes_left)
    label = _label if categories is None else (lambda c: _label(categories[c]))
    if left.size <= right.size:
        shown = "{" + ", ".join(label(c) for c in left) + "}"
        return ("in", shown), ("not in", shown)
    shown = "{" + ", ".join(label(c) for c in right) + "}"
    return ("not in", shown), ("in", shown)


def export_text(decision_tree, *, feature_names=None, class_names=None, max_depth=10,
                spacing=3, decimals=2, show_weights=False):
    """The rules of a fitted tree as indented text, splits on sets of categories included.

    Threshold splits read as in scikit-learn's ``sklearn.tree.export_text`` (same layout,
    same parameters); a split on a categorical feature reads ``name in {a, b}`` for one
    child and ``name not in {a, b}`` for the other, with `` or missing`` on the child that
    missing values take (categories the node did not see in training go there too).
    The shorter side is listed; a category name that is empty, has spaces at either end,
    or holds a comma or a brace is printed quoted (``{'Paris, TX', b}``).

    Parameters
    ----------
    decision_tree : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted rotforest tree (also one of a forest's ``estimators_``).
    feature_names : list of str, default=None
        Names of the features; default the names it was fitted with
        (``feature_names_in_``), else ``feature_0``, ``feature_1``, ...
    class_names : list of str, default=None
        Names of the classes in the order of ``classes_`` (classifiers; several
        outputs: a list of such lists, one per output); default ``classes_``.  A leaf
        of several outputs shows each output's class (and its values) in a list.
    max_depth : int, default=10
        Levels shown; deeper branches are summarised as truncated.
    spacing : int, default=3
        Width of one level of indentation.
    decimals : int, default=2
        Decimals of thresholds and values.
    show_weights : bool, default=False
        Classifiers: print each leaf's weighted class counts.

    Returns
    -------
    report : str
        The text, one line per branch and leaf.

    Examples
    --------
    >>> import numpy as np
    >>> from rotforest import DecisionTreeClassifier, export_text
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]] * 5)
    >>> y = np.array([0, 1, 0, 1] * 5)
    >>> tree = DecisionTreeClassifier(categorical_features=[0],
    ...                               min_category_samples=1).fit(X, y)
    >>> print(export_text(tree, feature_names=["code"]))
    |--- code in {0, 2}
    |   |--- class: 0
    |--- code not in {0, 2} or missing
    |   |--- class: 1
    <BLANKLINE>
    """
    if hasattr(decision_tree, "estimators_") and not hasattr(decision_tree, "tree_"):
        raise TypeError("export_text takes one decision tree; for a forest, pass one of "
                        "its trees, such as forest.estimators_[0]")
    if hasattr(decision_tree, "rotation_") and hasattr(decision_tree, "estimator_"):
        raise TypeError("a rotation forest's tree splits its rotated axes, not X's "
                        "features: export forest.rotated_estimators_[i], whose feature j "
                        "is column j of ((X - mean_) / scale_) @ rotations_[i]")
    check_is_fitted(decision_tree, "tree_")
    if not isinstance(spacing, (int, np.integer)) or spacing < 1:
        raise ValueError(f"spacing must be an integer >= 1, got {spacing!r}")
    if not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be an integer >= 0, got {max_depth!r}")
    if not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
    tree = decision_tree.tree_
    classifier = is_classifier(decision_tree)
    outputs = tree.n_outputs
    if classifier:
        # (several outputs: a list of names per output, as classes_ is)
        classes = decision_tree.classes_ if outputs > 1 else [decision_tree.classes_]
        if class_names is None:
            class_names = classes
        elif outputs == 1:
            class_names = [class_names]
        if len(class_names) != outputs or any(
                len(names) != len(c) for names, c in zip(class_names, classes)):
            have = [len(n) for n in class_names]
            want = [len(c) for c in classes]
            raise ValueError(f"class_names has {have[0] if outputs == 1 else have} names, "
                             f"but the tree has {want[0] if outputs == 1 else want} classes")
    if feature_names is None:
        feature_names = getattr(decision_tree, "feature_names_in_", None)
        if feature_names is None:
            feature_names = [f"feature_{j}" for j in range(tree.n_features)]
    elif len(feature_names) != tree.n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names, but the tree has "
                         f"{tree.n_features} features")
    maps = getattr(decision_tree, "_category_maps", None) or {}
    lines = []

    def numbers(values):
        return "[" + ", ".join(f"{v:.{decimals}f}" for v in values) + "]"

    def leaf(node, indent):
        if not classifier:      # the value of every output
            lines.append(f"{indent} value: {numbers(tree.value[node][:, 0])}")
            return
        weights, labels = [], []
        for o, names in enumerate(class_names):
            value = tree.value[node][o][:len(names)]
            weights.append(numbers(value * tree.weighted_n_node_samples[node]))
            labels.append(names[int(np.argmax(value))])
        text = ""
        if show_weights:
            text = " weights: " + (weights[0] if outputs == 1
                                   else "[" + ", ".join(weights) + "]")
        shown = labels[0] if outputs == 1 else "[" + ", ".join(map(str, labels)) + "]"
        lines.append(f"{indent}{text} class: {shown}")

    def visit(node, depth):
        bar = ("|" + " " * spacing) * depth
        indent = bar[:-spacing] + "-" * spacing
        if depth > max_depth + 1:
            below = _subtree_depth(tree, node)
            if below == 1:
                leaf(node, indent)
            else:
                lines.append(f"{indent} truncated branch of depth {below}")
            return
        if tree.children_left[node] == TREE_LEAF:
            leaf(node, indent)
            return
        j = tree.feature[node]
        name = feature_names[j]
        threshold = tree.threshold[node]
        if np.isnan(threshold):                  # a split on a set of categories
            (op_left, shown_left), (op_right, shown_right) = _category_sides(
                tree, node, maps.get(int(j)))
            missing_left = bool(tree.missing_go_to_left[node])
            rules = (f"{name} {op_left} {shown_left}" + (" or missing" if missing_left
                                                         else ""),
                     f"{name} {op_right} {shown_right}" + ("" if missing_left
                                                           else " or missing"))
        else:
            cut = f"{threshold:.{decimals}f}"
            rules = (f"{name} <= {cut}", f"{name} >  {cut}")
        for rule, child in zip(rules, (tree.children_left[node], tree.children_right[node])):
            lines.append(f"{indent} {rule}")
            visit(child, depth + 1)

    visit(0, 1)
    return "\n".join(lines) + "\n"
