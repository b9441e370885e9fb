"""ONNX export of rotforest's trees and forests.

:func:`to_onnx` converts a fitted :class:`~rotforest.DecisionTreeClassifier`,
:class:`~rotforest.DecisionTreeRegressor`, :class:`~rotforest.RandomForestClassifier`,
:class:`~rotforest.RandomForestRegressor`, :class:`~rotforest.RotationForestClassifier`
or :class:`~rotforest.RotationForestRegressor` into an ``onnx.ModelProto``, which any
ONNX runtime (e.g. onnxruntime) runs without rotforest.  It needs the ``onnx`` package
(``pip install "rotforest[onnx]"``); importing rotforest alone never imports onnx.

The model
---------
One input ``X``: double, shape ``[None, n_features]``, the rows as the estimator's
``predict`` sees them after its own conversion (see below for categorical features).
The outputs are named as skl2onnx names them without ZipMap: a classifier's ``label``
(shape ``[None]``; int64 for integer or boolean classes, string for string classes,
double for float classes) and ``probabilities`` (double, ``[None, n_classes]``, the
columns in the order of ``classes_``); a regressor's ``variable`` (double,
``[None, 1]``).  A quantile forest's ``predict`` gives quantiles, which a TreeEnsemble
cannot compute: it is converted only with ``output="mean"``, into a model whose one
output ``mean`` (double, ``[None, 1]``) is ``predict(X, quantiles="mean")``; skl2onnx
pipelines holding one are refused.

All the trees go into one ``TreeEnsemble`` node of the ``ai.onnx.ml`` domain, opset 5
(onnx >= 1.16; onnxruntime >= 1.19, tested with 1.32), in double precision: thresholds, leaf
values and the sums are doubles, so that the model reproduces ``predict_proba`` /
``predict`` to rounding.  A threshold split sends ``x <= threshold`` to the left child and
a missing value (NaN) where the node learned to send it: as ``x <= threshold`` (true:
left) when missing values go right, as ``x > threshold`` (true: right) when they go
left, so that NaN, which fails every comparison, takes the "false" branch and no node
needs ``nodes_missing_value_tracks_true`` (which slows onnxruntime by about a quarter).  A regressor's ensemble sums its trees' leaf
values, then divides by the number of trees, as ``predict`` does.  A TreeEnsemble leaf
holds one value for one target, so a classifier's ensemble gives instead, for every
tree, the index of the leaf the row reaches (one target per tree, an integer exact in
double); a Gather of the table of the leaves' class fractions, a sum over the trees and a
division by their number give ``predict_proba`` with the same operations as rotforest
(one walk of each tree whatever the number of classes; the Gather holds rows x trees x
classes doubles, so feed very large batches in parts).  The label is the first class
of highest probability (ArgMax, then Gather on the classes), as ``predict``.

Categorical features
--------------------
A split on a set of categories becomes a ``BRANCH_MEMBER`` node.  The trees take a
value that is not a code 0 .. 64 W - 1 (W: the width of the tree's code sets in 64-bit
words, ``Tree.code_words``; NaN, negative, fractional or larger) where the node's
missing values go; so the node's set holds the codes of the side opposite to its
missing side, that side is the "true" branch, and missing values track "false": NaN and
non-codes fall to the missing side.  (onnxruntime tests membership in larger sets on the
value truncated to an integer, so the set nodes read a copy of their columns in which
every value that is no code below 64 W, W the widest of the exported trees', is NaN;
a node of a narrower tree leaves the codes past its own width out of its set, so that
they too take its missing side.  Threshold splits on those columns read the values as
they are.)  The model reads categorical columns as the integer
codes (as doubles) the trees see: a NumPy array's values as they are, a pandas
``category`` column's codes of the categories seen in fit (an unseen category is NaN).
:func:`onnx_input` converts rows (an array or a DataFrame) into the float64 array to
feed the model.

Rotation forests
----------------
The graph normalises the rows as the forest does (``(X - mean_) / scale_``; features
constant in training normalise to 0 unless missing; missing cells become 0 and are
remembered in a mask), projects them onto every tree's axes at once (one dense MatMul
with all the rotations side by side when ``n_features x total axes`` is at most
``DENSE_PROJECTION_CELLS``; otherwise, per tree, a Gather of the features its rotation
uses and a small MatMul, concatenated), marks missing the axes that touch a missing
feature (``missing="route"``), and appends the shared extra columns (the missing
indicators of ``missing="impute"``, then the categorical features as codes when the
trees split on sets of categories).  The one TreeEnsemble reads each tree's axes and
the shared columns of that concatenation.  The product rounds differently from
rotforest's sparse kernel (~1e-16 on an axis).  Values so large that ``X - mean_``
overflows, and infinite values, are not reproduced exactly.

skl2onnx
--------
Importing this module registers converters for the estimators with skl2onnx when
it is installed, so that ``skl2onnx.to_onnx`` converts pipelines holding them (with
their ColumnTransformers, scalers, ...).  A classifier gives ``label`` and
``probabilities``, never a ZipMap: the ``zipmap`` option is accepted (skl2onnx's
Pipeline parser hands every classifier step the pipeline's ``zipmap`` option, True by
default) and ignored, so nothing needs passing; ``options={"zipmap": False}``, as
skl2onnx's own classifiers want it, is fine too.  skl2onnx (up to 1.20 at least) refuses
models that use the ``ai.onnx.ml`` domain above opset 3, whatever ``target_opset``
says; this module lifts that limit to 5 on registration (see
``_allow_ml_opset_5``), so ``skl2onnx.to_onnx(pipeline, X[:1])`` works with default
arguments and the model imports ``ai.onnx.ml`` at opset 5.  A ``target_opset`` given as
a dict must not put ``ai.onnx.ml`` below 5.  A float input is cast to double inside the
graph (the upstream steps then compute in single precision: pass double rows, e.g.
``X[:1].astype(np.float64)``, for results equal to the pipeline's).
"""
import numpy as np

__all__ = ["to_onnx", "onnx_input", "DENSE_PROJECTION_CELLS"]

# a rotation forest's rows are projected by one dense MatMul with all the trees'
# rotations side by side up to this many matrix entries (n_features x total axes);
# above it, each tree's used features are gathered and projected by a small MatMul
DENSE_PROJECTION_CELLS = 4_000_000

# the main domain's opset when none is given (onnx 1.16, the first with TreeEnsemble)
_DEFAULT_OPSET = 21
_MIN_OPSET = 13
_ML_DOMAIN = "ai.onnx.ml"
_ML_OPSET = 5

_INSTALL_HINT = 'ONNX export needs the onnx package: pip install "rotforest[onnx]"'

# TreeEnsemble node modes
_LEQ, _GT, _MEMBER = 0, 3, 6


def _onnx():
    try:
        import onnx
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if not _has_tree_ensemble(onnx):
        raise ImportError("ONNX export needs onnx >= 1.16 (ai.onnx.ml opset 5, "
                          f"TreeEnsemble); found {onnx.__version__}: "
                          'pip install -U "rotforest[onnx]"')
    return onnx


def _has_tree_ensemble(onnx):
    try:
        onnx.defs.get_schema("TreeEnsemble", _ML_OPSET, _ML_DOMAIN)
    except Exception:  # noqa: BLE001 - SchemaError, or no such domain
        return False
    return True


def _kinds():
    """The supported classes: class -> (kind, is_classifier)."""
    from sklearn.base import ClassifierMixin
    from rotforest._kinds import estimator_kinds
    return {cls: (kind, issubclass(cls, ClassifierMixin))
            for cls, kind in estimator_kinds().items()}


def _kind(estimator):
    """(kind, is_classifier) of a fitted supported estimator; TypeError or
    NotFittedError otherwise."""
    from sklearn.base import is_classifier
    from rotforest._kinds import fitted_kind
    return fitted_kind(estimator, "to_onnx converts"), is_classifier(estimator)


def onnx_input(estimator, X):
    """The float64 array that the ONNX model of ``estimator`` should be fed for rows X.

    The estimator's own conversion for ``predict``: a DataFrame's ``category`` columns
    become the codes of the categories seen in fit (NaN for a category unseen then), and
    the columns are checked against those seen in fit.

    Parameters
    ----------
    estimator : fitted rotforest estimator
        One of the estimators that :func:`to_onnx` converts.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Rows, as ``estimator.predict`` takes them.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        C-contiguous, for ``session.run(None, {"X": X})``.
    """
    from rotforest._inputs import predict_input
    _kind(estimator)
    return np.ascontiguousarray(predict_input(estimator, X, dense=True), dtype=np.float64)


# ------------------------------------------------------------------------------------
# graph emitters: a standalone graph, or skl2onnx's scope and container
# ------------------------------------------------------------------------------------
class _Graph:
    """Collects the nodes and initializers of a standalone graph (unique names)."""

    def __init__(self, onnx, opset):
        self.onnx = onnx
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self.names = set()

    def _name(self, hint):
        name, i = hint, 0
        while name in self.names:
            i += 1
            name = f"{hint}_{i}"
        self.names.add(name)
        return name

    def constant(self, hint, array):
        name = self._name(hint)
        array = np.asarray(array)
        if array.dtype.kind in "US":
            tensor = self.onnx.helper.make_tensor(
                name, self.onnx.TensorProto.STRING, array.shape,
                [str(v).encode("utf-8") for v in array.ravel()])
        else:
            tensor = self.onnx.numpy_helper.from_array(array, name)
        self.initializers.append(tensor)
        return name

    def node(self, op_type, inputs, hint, outputs=None, domain="", version=None,
             **attrs):
        if outputs is None:
            outputs = [self._name(hint)]
        elif isinstance(outputs, str):
            outputs = [outputs]
        self.nodes.append(self.onnx.helper.make_node(
            op_type, list(inputs), list(outputs), name=self._name(f"{op_type}_{hint}"),
            domain=domain or None, **attrs))
        return outputs[0]


class _Skl2onnxGraph:
    """Emits into skl2onnx's scope (unique names) and container."""

    def __init__(self, onnx, scope, container):
        self.onnx = onnx
        self.scope = scope
        self.container = container
        self.opset = container.target_opset_any_domain("")

    def constant(self, hint, array):
        name = self.scope.get_unique_variable_name(hint)
        array = np.asarray(array)
        if array.dtype.kind in "US":
            self.container.add_initializer(
                name, self.onnx.TensorProto.STRING, list(array.shape),
                [str(v).encode("utf-8") for v in array.ravel()])
        else:
            tensor = self.onnx.numpy_helper.from_array(array, name)
            self.container.add_initializer(
                name, tensor.data_type, list(array.shape), array.ravel().tolist())
        return name

    def node(self, op_type, inputs, hint, outputs=None, domain="", version=None,
             **attrs):
        if outputs is None:
            outputs = [self.scope.get_unique_variable_name(hint)]
        elif isinstance(outputs, str):
            outputs = [outputs]
        self.container.add_node(op_type, list(inputs), list(outputs),
                                op_domain=domain, op_version=version,
                                name=self.scope.get_unique_operator_name(
                                    f"{op_type}_{hint}"), **attrs)
        return outputs[0]


# ------------------------------------------------------------------------------------
# the TreeEnsemble
# ------------------------------------------------------------------------------------
def _tree_tables(tree_):
    """One tree's nodes in TreeEnsemble's layout, with local ids: a dict of arrays over
    its interior nodes (a single leaf gets a node whose branches both reach it) and the
    leaf node ids (the rows of ``tree_.value`` of the leaves, in leaf order), plus the
    membership sets of its BRANCH_MEMBER nodes in node order."""
    left = np.asarray(tree_.children_left, dtype=np.int64)
    right = np.asarray(tree_.children_right, dtype=np.int64)
    n = left.size
    is_leaf = left == -1
    leaves = np.flatnonzero(is_leaf)
    inner = np.flatnonzero(~is_leaf)
    if inner.size == 0:          # a single leaf
        one = np.ones(1, dtype=np.int64)
        zero = np.zeros(1, dtype=np.int64)
        return dict(feature=zero, split=np.zeros(1), mode=zero.astype(np.uint8),
                    true=zero, false=zero, trueleaf=one, falseleaf=one,
                    tracks=zero, on_set=zero.astype(bool)), leaves, []
    position = np.empty(n, dtype=np.int64)
    position[inner] = np.arange(inner.size)
    position[leaves] = np.arange(leaves.size)
    feature = np.asarray(tree_.feature, dtype=np.int64)[inner]
    threshold = np.asarray(tree_.threshold, dtype=np.float64)[inner]
    missing_left = np.asarray(tree_.missing_go_to_left)[inner] != 0
    # NaN fails every comparison, so it takes the "false" branch: a node that sends
    # missing values right tests x <= t (true: left), one that sends them left tests
    # x > t (true: right).  No node needs nodes_missing_value_tracks_true, whose check
    # costs onnxruntime about a quarter of its time on every node.
    true_child = np.where(missing_left, right[inner], left[inner])
    false_child = np.where(missing_left, left[inner], right[inner])
    mode = np.where(missing_left, _GT, _LEQ).astype(np.uint8)
    split = threshold.copy()
    tracks = np.zeros(inner.size, dtype=np.int64)
    sets = []
    for k in np.flatnonzero(np.isnan(threshold)):     # splits on sets of categories
        node = inner[k]
        codes_left = tree_.categories_left(node)
        if codes_left is None:
            raise ValueError(f"corrupt tree: node {node} has no threshold and no "
                             "category set")
        if missing_left[k]:
            # the set: the codes that go right (of this tree's codes: larger ones go
            # left, with the missing values); right is the true branch
            goes_left = np.zeros(64 * tree_.code_words, dtype=bool)
            goes_left[codes_left] = True
            members = np.flatnonzero(~goes_left)
            true_child[k], false_child[k] = right[node], left[node]
        else:
            members = np.asarray(codes_left)
        tracks[k] = 0
        split[k] = 0.0
        if members.size == 0:
            # nothing goes to the non-missing side: "x > inf" is never true, and NaN
            # tracks false
            mode[k] = _GT
            split[k] = np.inf
        else:
            mode[k] = _MEMBER
            sets.append(members.astype(np.float64))
    return dict(feature=feature, split=split, mode=mode,
                true=position[true_child], false=position[false_child],
                trueleaf=is_leaf[true_child].astype(np.int64),
                falseleaf=is_leaf[false_child].astype(np.int64),
                tracks=tracks, on_set=np.isnan(threshold)), leaves, sets


def _leaves_apart_from_root_branch(tab, leaves, n_nodes, n_leaves):
    """The tree's leaves (node ids, in the order of their ensemble ids), renumbered in
    ``tab`` where onnxruntime would take the tree for a single leaf.

    onnxruntime before 1.24 reads a root whose two children carry the same ensemble id
    as a one-leaf tree (microsoft/onnxruntime#24679) even when one child is a leaf and
    the other a node, whose ids count apart.  Then the tree's leaves are numbered from
    its second leaf on, its first last: every leaf id moves, the node ids do not, and
    the two children differ."""
    child = [tab[side][0] + (n_leaves if tab[side + "leaf"][0] else n_nodes)
             for side in ("true", "false")]
    if tab["trueleaf"][0] == tab["falseleaf"][0] or child[0] != child[1]:
        return leaves
    moved = np.roll(np.arange(leaves.size), 1)      # old position -> new position
    for side in ("true", "false"):
        on_leaf = tab[side + "leaf"] != 0
        tab[side] = np.where(on_leaf, moved[np.where(on_leaf, tab[side], 0)], tab[side])
    return np.roll(leaves, -1)


def _ensemble_attributes(trees, feature_maps, set_map=None, leaf_index=False):
    """TreeEnsemble's attributes for ``trees`` (fitted Tree objects), and the table of
    their leaves' values (one row per leaf, in the ensemble's leaf order).

    ``leaf_index=False``: one target, the sum over the trees of their leaves' first
    values (a regressor's prediction, times the number of trees).  ``leaf_index=True``:
    one target per tree, whose value is the index of the leaf the row reaches in the
    table (an integer, exact in double), so that a Gather of the table and a sum over
    the trees give every class's sum with one walk of each tree.

    ``feature_maps[i]`` maps tree i's feature ids to the ensemble's input columns
    (None: as they are); ``set_map`` maps them to the columns that splits on sets read
    instead (None: the same)."""
    parts = {key: [] for key in ("feature", "split", "mode", "true", "false",
                                 "trueleaf", "falseleaf", "tracks")}
    roots, leaf_targets, leaf_weights, members, table = [], [], [], [], []
    n_nodes = n_leaves = 0
    for index, (tree_, fmap) in enumerate(zip(trees, feature_maps)):
        tab, leaves, sets = _tree_tables(tree_)
        leaves = _leaves_apart_from_root_branch(tab, leaves, n_nodes, n_leaves)
        if fmap is not None:
            tab["feature"] = np.asarray(fmap, dtype=np.int64)[tab["feature"]]
        on_set = tab.pop("on_set")
        if set_map is not None and on_set.any():
            tab["feature"] = np.where(on_set, set_map[tab["feature"]], tab["feature"])
        values = np.asarray(tree_.value, dtype=np.float64)[leaves, 0, :]
        m, n_leaf = tab["feature"].size, leaves.size
        for key in ("feature", "split", "mode", "trueleaf", "falseleaf", "tracks"):
            parts[key].append(tab[key])
        for side in ("true", "false"):
            leaf = tab[side + "leaf"] != 0
            parts[side].append(tab[side] + np.where(leaf, n_leaves, n_nodes))
        roots.append(n_nodes)
        if leaf_index:
            leaf_targets.append(np.full(n_leaf, index, dtype=np.int64))
            leaf_weights.append(np.arange(n_leaves, n_leaves + n_leaf, dtype=np.float64))
        else:
            leaf_targets.append(np.zeros(n_leaf, dtype=np.int64))
            leaf_weights.append(values[:, 0])
        table.append(values)
        for s in sets:
            members.append(s)
            members.append(np.array([np.nan]))
        n_nodes += m
        n_leaves += n_leaf
    cat = {key: np.concatenate(value) for key, value in parts.items()}
    from onnx import numpy_helper
    attrs = dict(
        n_targets=len(trees) if leaf_index else 1,
        aggregate_function=1,     # SUM
        post_transform=0,         # NONE
        tree_roots=[int(r) for r in roots],
        nodes_featureids=cat["feature"].tolist(),
        nodes_splits=numpy_helper.from_array(cat["split"].astype(np.float64)),
        nodes_modes=numpy_helper.from_array(cat["mode"].astype(np.uint8)),
        nodes_truenodeids=cat["true"].tolist(),
        nodes_falsenodeids=cat["false"].tolist(),
        nodes_trueleafs=cat["trueleaf"].tolist(),
        nodes_falseleafs=cat["falseleaf"].tolist(),
        nodes_missing_value_tracks_true=cat["tracks"].tolist(),
        leaf_targetids=np.concatenate(leaf_targets).tolist(),
        leaf_weights=numpy_helper.from_array(
            np.concatenate(leaf_weights).astype(np.float64)),
    )
    if members:
        attrs["membership_values"] = numpy_helper.from_array(
            np.concatenate(members).astype(np.float64))
    return attrs, np.ascontiguousarray(np.concatenate(table))


def _codes_only(g, x, n_codes, columns=None):
    """``x`` with the values that are no category code 0 .. ``n_codes`` - 1 (negative,
    fractional, larger) replaced by NaN, in the boolean mask ``columns`` (None:
    everywhere).
    onnxruntime tests membership in larger sets on the value truncated to an integer
    (2.5 would be code 2), where our trees send a non-code where missing values go:
    as NaN it does, the set nodes' missing values tracking their "false" branch."""
    zero = g.constant("zero", np.zeros(1))
    valid = g.node("And", [g.node("GreaterOrEqual", [x, zero], "code_low"),
                           g.node("Less", [x, g.constant(
                               "n_codes", np.array([float(n_codes)]))], "code_high")],
                   "code_range")
    valid = g.node("And", [valid, g.node("Equal", [x, g.node("Round", [x], "rounded")],
                                         "code_whole")], "code_valid")
    bad = g.node("Not", [valid], "not_code")
    if columns is not None:
        bad = g.node("And", [bad, g.constant(
            "categorical_columns", np.asarray(columns, dtype=bool)[None, :])], "bad_code")
    return g.node("Where", [bad, g.constant("nan", np.array([np.nan])), x], "codes")


# ------------------------------------------------------------------------------------
# rotation forests: the projection
# ------------------------------------------------------------------------------------
def _rotation_columns(g, est, x):
    """Emits the rotation forest's columns [every tree's axes | shared extra columns];
    returns the name of that matrix and each tree's feature map into it."""
    import scipy.sparse as sp
    F = int(est.n_features_in_)
    rotations = [r.tocsc() for r in est.rotations_]
    counts = [r.shape[1] for r in rotations]
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    total = int(starts[-1])
    route = getattr(est, "_missing_fitted", "route") == "route"
    mean = np.asarray(est.mean_, dtype=np.float64)
    scale = np.asarray(est.scale_, dtype=np.float64)
    constant = getattr(est, "_constant", None)

    # Z = (X - mean) / scale; training-constant features 0 unless missing
    z = g.node("Sub", [x, g.constant("mean", mean[None, :])], "centred")
    z = g.node("Div", [z, g.constant("scale", scale[None, :])], "normalised")
    if constant is not None and np.any(constant):
        present = g.node("Not", [g.node("IsNaN", [x], "x_missing")], "x_present")
        zero_it = g.node("And", [present, g.constant(
            "constant", np.asarray(constant, dtype=bool)[None, :])], "constant_present")
        z = g.node("Where", [zero_it, g.constant("zero", np.zeros(1)), z], "z_constant")
    mask = g.node("IsNaN", [z], "mask")
    z0 = g.node("Where", [mask, g.constant("zero", np.zeros(1)), z], "z")
    mask_d = None

    def mask_double():
        nonlocal mask_d
        if mask_d is None:
            mask_d = g.node("Cast", [mask], "mask_double", to=g.onnx.TensorProto.DOUBLE)
        return mask_d

    pieces = []
    if total:
        nan = g.constant("nan", np.array([np.nan])) if route else None
        if F * total <= DENSE_PROJECTION_CELLS:
            stacked = sp.hstack(rotations).tocsc()
            axes = g.node("MatMul", [z0, g.constant("rotations", stacked.toarray())],
                          "axes")
            if route:
                pattern = sp.csc_matrix((np.ones(stacked.indices.size), stacked.indices,
                                         stacked.indptr), shape=stacked.shape)
                touched = g.node("MatMul", [mask_double(), g.constant(
                    "touches", pattern.toarray())], "touched")
                hidden = g.node("Greater", [touched, g.constant(
                    "zero", np.zeros(1))], "hidden")
                axes = g.node("Where", [hidden, nan, axes], "routed_axes")
            pieces.append(axes)
        else:
            for i, R in enumerate(rotations):
                if R.shape[1] == 0:
                    continue
                used = np.unique(R.indices).astype(np.int64)
                if used.size == 0:       # no loading at all: axes of zeros
                    pieces.append(g.node("MatMul", [
                        g.node("Gather", [z0, g.constant("first", np.zeros(1, np.int64))],
                               f"t{i}_z", axis=1),
                        g.constant(f"t{i}_rotation", np.zeros((1, R.shape[1])))],
                        f"t{i}_axes"))
                    continue
                idx = g.constant(f"t{i}_features", used)
                sub = R[used].toarray()
                axes = g.node("MatMul", [g.node("Gather", [z0, idx], f"t{i}_z", axis=1),
                                         g.constant(f"t{i}_rotation", sub)], f"t{i}_axes")
                if route:
                    Rs = R[used].tocsc()
                    pattern = sp.csc_matrix((np.ones(Rs.indices.size), Rs.indices,
                                             Rs.indptr), shape=Rs.shape).toarray()
                    touched = g.node("MatMul", [
                        g.node("Gather", [mask_double(), idx], f"t{i}_mask", axis=1),
                        g.constant(f"t{i}_touches", pattern)], f"t{i}_touched")
                    hidden = g.node("Greater", [touched, g.constant(
                        "zero", np.zeros(1))], f"t{i}_hidden")
                    axes = g.node("Where", [hidden, nan, axes], f"t{i}_routed")
                pieces.append(axes)
    # extra columns: indicators (missing="impute"), then categorical codes
    missing_features, cat = est._projector().extra_features()
    n_extra = 0
    if missing_features.size:
        pieces.append(g.node("Gather", [mask_double(), g.constant(
            "missing_features", missing_features)], "indicators", axis=1))
        n_extra += missing_features.size
    if cat.size:
        cat = cat.astype(np.int64)
        cz = g.node("Gather", [z0, g.constant("categorical", cat)], "cat_z", axis=1)
        cz = g.node("Mul", [cz, g.constant("cat_scale", scale[cat][None, :])], "cat_s")
        cz = g.node("Add", [cz, g.constant("cat_mean", mean[cat][None, :])], "cat_m")
        codes = g.node("Round", [cz], "cat_codes")
        cmask = g.node("Gather", [mask, g.constant("categorical", cat)], "cat_mask",
                       axis=1)
        pieces.append(g.node("Where", [cmask, g.constant("nan", np.array([np.nan])),
                                       codes], "cat_columns"))
        n_extra += cat.size
    if not pieces:
        raise ValueError("the rotation forest's trees see no column")
    columns = pieces[0] if len(pieces) == 1 else g.node("Concat", pieces, "columns",
                                                          axis=1)
    maps = [np.concatenate([np.arange(starts[i], starts[i + 1]),
                            total + np.arange(n_extra)]).astype(np.int64)
            for i in range(len(rotations))]
    return columns, maps


# ------------------------------------------------------------------------------------
# the whole graph
# ------------------------------------------------------------------------------------
def _class_labels(classes):
    """The classes as a constant for Gather, and the ONNX element type of the label."""
    from onnx import TensorProto
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        return classes.astype(np.int64), TensorProto.INT64
    if classes.dtype.kind == "f":
        return classes.astype(np.float64), TensorProto.DOUBLE
    if classes.dtype.kind in "US" or all(isinstance(c, str) for c in classes):
        return np.array([str(c) for c in classes], dtype=str), TensorProto.STRING
    if all(isinstance(c, (int, np.integer, bool, np.bool_)) for c in classes):
        return classes.astype(np.int64), TensorProto.INT64
    raise TypeError("to_onnx exports integer, float or string class labels; classes_ "
                    f"holds {sorted({type(c).__name__ for c in classes})}")


def _emit(g, est, kind, classifier, x, outputs):
    """Emits the estimator's graph reading the double matrix ``x``, writing the outputs
    ``outputs`` (label and probabilities, or variable)."""
    if kind in ("tree", "forest"):
        trees = [est.tree_] if kind == "tree" else [t.tree_ for t in est._trees()]
        maps, columns = [None] * len(trees), x
        width = int(est.n_features_in_)
    else:
        trees = [t.tree_ for t in est._trees()]
        columns, maps = _rotation_columns(g, est, x)
        width = int(max(m.max(initial=-1) for m in maps)) + 1
    # the columns that splits on sets of categories read get a copy in which the values
    # that are no code are NaN (see _codes_only), after the others
    set_columns = set()
    words = 0                    # the widest code sets of the trees
    for tree_, fmap in zip(trees, maps):
        if tree_.code_sets is not None:
            inner = np.asarray(tree_.children_left) != -1
            used = np.asarray(tree_.feature)[inner & np.isnan(tree_.threshold)]
            set_columns.update((used if fmap is None else fmap[used]).tolist())
            words = max(words, tree_.code_words)
    set_map = None
    if set_columns:
        used = np.array(sorted(set_columns), dtype=np.int64)
        codes = _codes_only(g, g.node("Gather", [columns, g.constant(
            "set_columns", used)], "set_values", axis=1), 64 * words)
        columns = g.node("Concat", [columns, codes], "ensemble_input", axis=1)
        set_map = np.full(width, -1, dtype=np.int64)
        set_map[used] = width + np.arange(used.size)
    # the sums over the trees as predict computes them (the leaves' values added up,
    # then divided by the number of trees), so that ties between classes stay ties
    attrs, table = _ensemble_attributes(trees, maps, set_map, leaf_index=classifier)
    n_trees = np.array(float(len(trees)))
    if not classifier:
        total = g.node("TreeEnsemble", [columns], "ensemble", domain=_ML_DOMAIN,
                       version=_ML_OPSET, **attrs)
        g.node("Div", [total, g.constant("n_trees", n_trees)], "mean", outputs=outputs[0])
        return
    leaf = g.node("TreeEnsemble", [columns], "leaf_index", domain=_ML_DOMAIN,
                  version=_ML_OPSET, **attrs)
    leaf = g.node("Cast", [leaf], "leaf_index_int", to=g.onnx.TensorProto.INT64)
    values = g.node("Gather", [g.constant("leaf_values", table), leaf], "leaf_values",
                    axis=0)                                 # rows x trees x classes
    total = g.node("ReduceSum", [values, g.constant("tree_axis", np.array([1]))], "sum",
                   keepdims=0)                              # opset >= 13: axes as input
    proba = g.node("Div", [total, g.constant("n_trees", n_trees)], "mean",
                   outputs=outputs[1])
    index = g.node("ArgMax", [proba], "index", axis=1, keepdims=0)
    labels, _ = _class_labels(est.classes_)
    g.node("Gather", [g.constant("classes", labels), index], "label",
           outputs=outputs[0], axis=0)


def _opsets(target_opset, onnx):
    """(main opset, ai.onnx.ml opset) from to_onnx's target_opset."""
    latest = onnx.defs.onnx_opset_version()
    main, ml = min(_DEFAULT_OPSET, latest), _ML_OPSET
    if isinstance(target_opset, dict):
        unknown = set(target_opset) - {"", _ML_DOMAIN}
        if unknown:
            raise ValueError(f"target_opset names unknown domains {sorted(unknown)}")
        main = target_opset.get("", main)
        ml = target_opset.get(_ML_DOMAIN, ml)
    elif target_opset is not None:
        main = target_opset
    if not isinstance(main, (int, np.integer)) or not _MIN_OPSET <= main <= latest:
        raise ValueError(f"target_opset must be an int from {_MIN_OPSET} to {latest} "
                         f"(the main domain's opset; onnx {onnx.__version__}); got "
                         f"{main!r}")
    if not isinstance(ml, (int, np.integer)) or ml < _ML_OPSET:
        raise ValueError(f"the {_ML_DOMAIN} domain needs opset {_ML_OPSET} or more "
                         f"(TreeEnsemble); got {ml!r}")
    return int(main), int(ml)


def to_onnx(estimator, *, target_opset=None, output=None, input_type="double"):
    """Convert a fitted rotforest tree or forest into an ONNX model.

    The model has one input ``X`` (double, ``[None, n_features]``) and the outputs that
    skl2onnx gives without ZipMap: ``label`` (``[None]``: int64 for integer classes,
    string for string classes) and ``probabilities`` (double, ``[None, n_classes]``)
    for a classifier, ``variable`` (double, ``[None, 1]``) for a regressor.  All trees
    are one ``TreeEnsemble`` node (``ai.onnx.ml`` opset 5), in double precision; a
    rotation forest's normalisation and projections come before it.  Its results
    equal ``predict_proba`` / ``predict`` up to rounding (~1e-16).

    Categorical features are read as the integer codes the trees see: an array's
    values, or for a pandas ``category`` column the codes of the categories seen in fit
    (use :func:`onnx_input` to convert a DataFrame).  Missing values are NaN.

    Parameters
    ----------
    estimator : fitted estimator
        A rotforest ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
        ``RandomForestClassifier``, ``RandomForestRegressor``,
        ``RotationForestClassifier`` or ``RotationForestRegressor``.
    target_opset : int, dict or None, default=None
        The opset of the main ONNX domain (default 21, or the installed onnx's latest
        if older), or a dict ``{"": int, "ai.onnx.ml": int}``; the ``ai.onnx.ml``
        domain must be at opset 5 or more.
    output : {None, "mean"}, default=None
        What the model computes.  None (the only value for every estimator but the
        quantile forests): ``predict_proba`` / ``predict``.  A quantile forest's
        ``predict`` gives quantiles (the median by default), which a TreeEnsemble
        cannot compute, so it is refused without ``output="mean"``; with it, the model's
        one output is named ``mean`` (double, ``[None, 1]``) and equals
        ``predict(X, quantiles="mean")``.  (skl2onnx cannot pass this option: a
        pipeline holding a quantile forest is refused by ``skl2onnx.to_onnx``.)
    input_type : {"double", "float"}, default="double"
        The type of the input ``X``.  "float" takes float32 rows (what many onnxruntime
        users feed) and casts them to double inside the graph, before any comparison:
        every float32 value is exactly a double, so the model's results on float32 rows
        ``X32`` equal ``predict_proba`` / ``predict`` on ``X32.astype(np.float64)``.

    Returns
    -------
    model : onnx.ModelProto
        Checked with ``onnx.checker``; ``model.SerializeToString()`` saves it.

    Raises
    ------
    ImportError
        When onnx (>= 1.16) is not installed.
    TypeError
        When ``estimator`` is not one of the supported estimators.
    sklearn.exceptions.NotFittedError
        When it is not fitted (a ValueError).
    """
    onnx = _onnx()
    if input_type not in ("double", "float"):
        raise ValueError(f"input_type must be 'double' or 'float'; got {input_type!r}")
    kind, classifier = _kind(estimator)
    from rotforest._kinds import reads_mean
    mean = reads_mean(estimator, output, "rotforest.onnx.to_onnx",
                      "an ONNX TreeEnsemble cannot compute them")
    main, ml = _opsets(target_opset, onnx)
    from onnx import TensorProto, helper
    g = _Graph(onnx, main)
    g.names.add("X")
    n_features = int(estimator.n_features_in_)
    if classifier:
        _, label_type = _class_labels(estimator.classes_)
        outputs = ["label", "probabilities"]
        out_info = [helper.make_tensor_value_info("label", label_type, [None]),
                    helper.make_tensor_value_info(
                        "probabilities", TensorProto.DOUBLE,
                        [None, len(estimator.classes_)])]
    else:
        outputs = ["mean" if mean else "variable"]
        out_info = [helper.make_tensor_value_info(outputs[0], TensorProto.DOUBLE,
                                                  [None, 1])]
    g.names.update(outputs)
    x = "X"
    if input_type == "float":       # exact: a float32 is a double
        x = g.node("Cast", [x], "x_double", to=TensorProto.DOUBLE)
    _emit(g, estimator, kind, classifier, x, outputs)
    x_type = TensorProto.FLOAT if input_type == "float" else TensorProto.DOUBLE
    graph = helper.make_graph(
        g.nodes, f"rotforest_{type(estimator).__name__}",
        [helper.make_tensor_value_info("X", x_type, [None, n_features])],
        out_info, initializer=g.initializers)
    opsets = [helper.make_opsetid("", main), helper.make_opsetid(_ML_DOMAIN, ml)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="rotforest",
                              ir_version=helper.find_min_ir_version_for(opsets))
    try:
        from rotforest import __version__
        model.producer_version = __version__
    except ImportError:  # pragma: no cover
        pass
    onnx.checker.check_model(model)
    return model


# ------------------------------------------------------------------------------------
# skl2onnx registration
# ------------------------------------------------------------------------------------
_ALIASES = {}


def _allow_ml_opset_5():
    """skl2onnx's _update_domain_version refuses an ``ai.onnx.ml`` opset above the one
    ``get_default_opset_for_domain`` gives (3 in skl2onnx 1.20), even when
    ``target_opset`` asks for more; it is the only caller of that function.  The check
    is lifted to opset 5 for ai.onnx.ml only (other domains unchanged), so that
    models holding our TreeEnsemble (opset 5) can be built."""
    from skl2onnx.common import _topology
    current = _topology.get_default_opset_for_domain
    if getattr(current, "_rotforest", False):
        return

    def get_default_opset_for_domain(domain):
        version = current(domain)
        if domain == _ML_DOMAIN and (version is None or version < _ML_OPSET):
            return _ML_OPSET
        return version

    get_default_opset_for_domain._rotforest = True
    get_default_opset_for_domain.__doc__ = current.__doc__
    _topology.get_default_opset_for_domain = get_default_opset_for_domain


def _skl2onnx_types():
    from skl2onnx.common.data_types import (DoubleTensorType, Int64TensorType,
                                            StringTensorType)
    return DoubleTensorType, Int64TensorType, StringTensorType


def _label_type(model):
    from onnx import TensorProto
    DoubleTensorType, Int64TensorType, StringTensorType = _skl2onnx_types()
    _, element = _class_labels(model.classes_)
    return {TensorProto.INT64: Int64TensorType, TensorProto.DOUBLE: DoubleTensorType,
            TensorProto.STRING: StringTensorType}[element]


def _parse_classifier(scope, model, inputs, custom_parsers=None):
    """A classifier's outputs, label and probabilities, without ZipMap."""
    from skl2onnx._supported_operators import _get_sklearn_operator_name
    DoubleTensorType = _skl2onnx_types()[0]
    # skl2onnx's Pipeline parser hands every classifier step the pipeline's zipmap
    # option, True unless the user set it: the option is accepted and ignored
    scope.get_options(model, dict(zipmap=False))
    operator = scope.declare_local_operator(_get_sklearn_operator_name(type(model)),
                                            model)
    operator.inputs = inputs
    operator.outputs.append(scope.declare_local_variable("label", _label_type(model)()))
    operator.outputs.append(scope.declare_local_variable("probabilities",
                                                         DoubleTensorType()))
    return list(operator.outputs)


def _parse_quantile(scope, model, inputs, custom_parsers=None):
    """A quantile forest: refused (skl2onnx cannot pass to_onnx's output="mean")."""
    raise ValueError(
        f"skl2onnx cannot convert {type(model).__name__}: its predict returns "
        "quantiles (the median by default), which an ONNX TreeEnsemble cannot compute, "
        "and skl2onnx cannot pass output=\"mean\". Convert the fitted forest alone "
        "with rotforest.onnx.to_onnx(forest, output=\"mean\") for its mean, predict(X, "
        "quantiles=\"mean\")")


def _parse_regressor(scope, model, inputs, custom_parsers=None):
    from skl2onnx._supported_operators import _get_sklearn_operator_name
    DoubleTensorType = _skl2onnx_types()[0]
    operator = scope.declare_local_operator(_get_sklearn_operator_name(type(model)),
                                            model)
    operator.inputs = inputs
    operator.outputs.append(scope.declare_local_variable("variable", DoubleTensorType()))
    return list(operator.outputs)


def _shape_calculator(operator):
    DoubleTensorType = _skl2onnx_types()[0]
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    if len(operator.inputs) != 1:
        raise RuntimeError(f"{type(model).__name__} takes one input; got "
                           f"{len(operator.inputs)}")
    if _kind(model)[1]:
        operator.outputs[0].type = _label_type(model)([n])
        operator.outputs[1].type = DoubleTensorType([n, len(model.classes_)])
    else:
        operator.outputs[0].type = DoubleTensorType([n, 1])


def _converter(scope, operator, container):
    import onnx
    from skl2onnx.common.data_types import DoubleTensorType as Double
    model = operator.raw_operator
    kind, classifier = _kind(model)
    g = _Skl2onnxGraph(onnx, scope, container)
    if g.opset < _MIN_OPSET:
        raise ValueError(f"rotforest's converters need the main ONNX domain at opset "
                         f"{_MIN_OPSET} or more; skl2onnx was asked for {g.opset} "
                         "(pass target_opset >= 13, or leave it unset)")
    x = operator.inputs[0]
    name = x.full_name
    if not isinstance(x.type, Double):
        name = g.node("Cast", [name], "x_double", to=onnx.TensorProto.DOUBLE)
    _emit(g, model, kind, classifier, name, [o.full_name for o in operator.outputs])


def _register():
    """Registers the converters with skl2onnx (when it and onnx >= 1.16 are
    installed)."""
    try:
        import onnx
        import skl2onnx
    except ImportError:
        return False
    if not _has_tree_ensemble(onnx):
        return False
    _allow_ml_opset_5()
    for cls, (kind, classifier) in _kinds().items():
        alias = f"Rotforest{cls.__name__}"
        _ALIASES[cls] = alias
        skl2onnx.update_registered_converter(
            cls, alias, _shape_calculator, _converter,
            parser=_parse_classifier if classifier else _parse_regressor,
            options={"zipmap": [False, True]} if classifier else None)
    from rotforest import quantile
    for name in quantile.__all__:
        cls = getattr(quantile, name)
        _ALIASES[cls] = f"Rotforest{name}"
        skl2onnx.update_registered_converter(cls, _ALIASES[cls], _shape_calculator,
                                             _converter, parser=_parse_quantile)
    return True


_registered = _register()
