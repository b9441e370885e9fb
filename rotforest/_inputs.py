"""Input checks shared by every estimator: X and y validated and converted as the builder
reads them (float64, NaN allowed, sparse input kept as canonical CSC where the estimator
takes it and made dense elsewhere, categorical columns of a DataFrame as codes), sample
weights, class labels encoded, target checks per criterion, and X at predict time
converted as the fit converted it."""
import numbers
import warnings

import numpy as np
from scipy.sparse import issparse
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from rotforest import _bins, _builder
from rotforest._categorical import (as_pandas_categories, categorical_input,
                                    check_categorical_params, check_categorical_unchanged,
                                    check_codes, string_columns_error)
from rotforest._sparse import canonical_csc, canonical_csr, few_entries
from rotforest._validation import check_class_weight, densify, power_of_two_below


def _check_sample_weight(sample_weight, n_samples):
    """Float64 weights of shape (n_samples,): ones when None; scalars broadcast."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if isinstance(sample_weight, numbers.Number):
        sw = np.full(n_samples, float(sample_weight))
    else:
        sw = check_array(sample_weight, ensure_2d=False, dtype=np.float64,
                         input_name="sample_weight", ensure_min_samples=0)
        if sw.ndim == 0:        # (scikit-learn's words and exception)
            raise TypeError(f"Input should have at least 1 dimension i.e. satisfy "
                            f"`len(x.shape) > 0`, got scalar `{sw!r}` instead. "
                            f"(sample_weight must be a 1-D array of {n_samples} weights, "
                            "or a number)")
        if sw.ndim != 1 or sw.shape[0] != n_samples:
            raise ValueError(f"sample_weight.shape == {sw.shape}, expected ({n_samples},)")
        sw = np.array(sw, dtype=np.float64, copy=True)
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite")
    if np.any(sw < 0):
        raise ValueError("sample_weight must be non-negative")
    return sw


def _encode(y):
    """``np.unique(y, return_inverse=True)``; for integer labels of a modest range by
    counting (linear time: at a million rows the sort of np.unique costs more than the
    rest of the input checks)."""
    if y.dtype.kind in "iu" and y.size:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo <= 4 * y.size + 1024:
            if y.dtype.kind == "i":
                shifted = y.astype(np.int64) - lo
            else:
                shifted = (y.astype(np.uint64) - np.uint64(lo)).astype(np.int64)
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            offsets = np.flatnonzero(present)
            if y.dtype.kind == "i":
                classes = (offsets + lo).astype(y.dtype)
            else:
                classes = (offsets.astype(np.uint64) + np.uint64(lo)).astype(y.dtype)
            code = np.cumsum(present) - 1
            return classes, code[shifted]
    return np.unique(y, return_inverse=True)


def _validated(est, X, y, sample_weight, reset, **target_checks):
    """X (float64, in the caller's memory layout: the builder reads any), y as
    scikit-learn's ``validate_data`` checks it with ``target_checks``, and the sample
    weights (ones when None).  ``reset=False`` (a warm-started fit) checks X against the
    fitted estimator's number of features and feature names instead of setting them."""
    original = X
    X = as_pandas_categories(X)
    if not reset:
        check_categorical_unchanged(est, X)
    X = categorical_input(est, X, reset)
    X, y = _numeric(est, X, original, reset, y, **target_checks)
    if issparse(X) and sparse_native(est):
        # the builder reads the stored entries (see _sparse.py): never made dense
        X = canonical_csc(X)
    else:
        X = densify(X)
    check_codes(est, X)
    if issparse(X):
        pass
    elif X.strides[0] % X.itemsize or X.strides[1] % X.itemsize:
        X = np.ascontiguousarray(X)    # e.g. a field of a structured array: the builder
                                       # reads X through strides counted in cells
    if X.shape[0] > _builder.MAX_SAMPLES:
        raise ValueError(f"at most {_builder.MAX_SAMPLES} samples are supported")
    return X, y, _check_sample_weight(sample_weight, X.shape[0])


def _numeric(est, X, original, reset, *y, **target_checks):
    """scikit-learn's ``validate_data`` of X (and y, when given) as float64, NaN allowed.
    Columns of strings that cannot be read as numbers (numbers written as strings are
    converted) are refused with a message that names them and says how to use them
    (``string_columns_error``) instead of numpy's "could not convert string to float",
    which names neither the column nor the remedy.  (Looked for only once the conversion
    failed: an X that converts costs nothing more.)"""
    try:
        return validate_data(est, X, *y, dtype=np.float64, ensure_all_finite="allow-nan",
                             accept_sparse=True, reset=reset, **target_checks)
    except (TypeError, ValueError) as error:
        names = getattr(est, "feature_names_in_", None)
        columns = getattr(X, "columns", None)
        if (not reset and names is not None and columns is not None
                and [str(c) for c in columns] != [str(n) for n in names]):
            raise       # (scikit-learn's check of the names, made before the conversion)
        better = string_columns_error(est, X, original, reset)
        if better is None:
            raise
        raise better from error


def sparse_native(est):
    """Whether the estimator grows on a sparse X as it is (trees and random and extra
    forests without categorical features); the others make it dense."""
    return (getattr(est, "_sparse_native", False)
            and getattr(est, "is_categorical_", None) is None)


def grows_on_entries(est, X, per_column, share):
    """Whether the estimator grows a dense X on its entries, as a sparse one (it takes
    sparse X, see sparse_native, and X stores few values: see _sparse.few_entries);
    ``per_column`` None: never."""
    return (per_column is not None and not issparse(X) and sparse_native(est)
            and few_entries(X, per_column, share))


def predict_input(est, X, dense=False):
    """X checked and converted for prediction, as the fit converted it (categorical
    columns of a DataFrame coded by the categories seen in fit).  A sparse X stays
    sparse (CSR, which the trees walk row by row) for the estimators that take it
    (``sparse_native``), unless ``dense``."""
    check_is_fitted(est)
    original = X
    X = categorical_input(est, as_pandas_categories(X), reset=False)
    X = _numeric(est, X, original, False)
    if issparse(X) and not dense and sparse_native(est):
        return canonical_csr(X)         # (once, not in every tree)
    return densify(X)


def category_table(est, X, keys, binned=None):
    """The codes of the categorical features' dense ranks (see
    ``_builder.category_codes``), or of their bins when the trees grow on ``binned``
    (see ``_bins.category_table``), or None when no feature is categorical; checks that
    the estimator's settings allow categorical features."""
    mask = getattr(est, "is_categorical_", None)
    if mask is None:
        return None
    check_categorical_params(est, getattr(est, "monotonic_cst", None), est.criterion)
    if binned is not None:
        return _bins.category_table(X, mask, binned)
    return _builder.category_codes(X, keys, mask.astype(np.uint8))


def _check_total(sw, weights="the sample weights"):
    total = sw.sum()
    if not total > 0:
        raise ValueError("the sample weights sum to zero: nothing to learn from")
    if not np.isfinite(total):
        raise ValueError(f"{weights} sum to more than the largest float: only their ratios "
                         "matter, so divide them by a large number")


def _outputs(est, y):
    """y as one output (1-D) or several (2-D, a column per output), before validate_data
    (which says what else is wrong with it): a column vector is flattened (by a forest
    with scikit-learn's warning), no column or more than two dimensions are refused,
    and a sparse y as scikit-learn refuses it (a TypeError from a tree, a ValueError
    from a forest)."""
    forest = hasattr(est, "n_estimators")
    if issparse(y):
        what = "the targets must be dense: convert y with y.toarray()"
        if forest:
            raise ValueError(f"sparse multilabel-indicator for y is not supported. ({what})")
        raise TypeError(f"y is a sparse matrix: {what}")
    if y is None or getattr(y, "ndim", 2) < 2:
        return y                # (1-D, or left to validate_data)
    try:
        y = y if hasattr(y, "ndim") else np.asarray(y)
    except (TypeError, ValueError):
        return y                # (ragged: validate_data says why)
    if y.ndim == 2 and y.shape[1] == 1:
        if forest:              # (scikit-learn's trees do not warn)
            warnings.warn("A column-vector y was passed when a 1d array was expected. "
                          "Please change the shape of y to (n_samples,), for example "
                          "using ravel().", DataConversionWarning, stacklevel=4)
        return np.ravel(y)
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError("y has 0 columns: it needs at least one output")
    if y.ndim > 2:
        raise ValueError(f"y must be 1-D or 2-D (one column per output); got shape "
                         f"{y.shape}")
    return y


def training_data(est, X, y, sample_weight, class_weight=None, reset=True):
    """The checks and conversions every classifier's fit starts with.

    Returns X and y (see _validated), the sorted classes, y as class codes, and the
    sample weights (ones when None) multiplied by ``class_weight`` (a dict or
    "balanced"; None for none).  y may have several columns (outputs): the classes are
    then a list of arrays (one per output), the codes a 2-D array and ``class_weight``
    a list of dicts or "balanced"."""
    y = _outputs(est, y)
    X, y, sw = _validated(est, X, y, sample_weight, reset, multi_output=True)
    # (output by output: the columns of a data frame may hold labels of different
    # types, which no one sort of the whole y orders; a column of such a y is an
    # object array, checked as the array of its own values)
    for column in (y.T if y.ndim == 2 else [y]):
        if y.ndim == 2 and column.dtype == object:
            column = np.array(column.tolist())
        check_classification_targets(column)
    if y.ndim == 1:
        classes, y_enc = _encode(y)
    else:
        encoded = [_encode(y[:, o]) for o in range(y.shape[1])]
        classes = [c for c, _ in encoded]
        y_enc = np.stack([e for _, e in encoded], axis=1)
    if class_weight is not None:
        check_class_weight(class_weight, ("balanced",), 1 if y.ndim == 1 else y.shape[1])
        for weights in ([class_weight] if isinstance(class_weight, dict)
                        else class_weight if isinstance(class_weight, (list, tuple))
                        else ()):
            for label, value in weights.items():
                if not (isinstance(value, numbers.Real) and np.isfinite(value)
                        and value >= 0):
                    raise ValueError("class_weight values must be finite, non-negative "
                                     f"numbers; got {value!r} for class {label!r}")
        sw = sw * compute_sample_weight(class_weight, y)
    _check_total(sw, "the sample weights (times class_weight)")
    return X, y, classes, y_enc, sw


def regression_data(est, X, y, sample_weight, reset=True):
    """training_data for a numeric target: X, y (float64, finite; 1-D, or 2-D for
    several outputs) and the sample weights."""
    X, y, sw = _validated(est, X, _outputs(est, y), sample_weight, reset, y_numeric=True,
                          multi_output=True)  # (scikit-learn refuses NaN and inf)
    _check_total(sw)
    return X, np.ascontiguousarray(y, dtype=np.float64), sw


def check_targets(y, criterion, sw):
    """Numeric targets the builder can take for ``criterion``: sums of squares must not
    overflow, and Poisson needs non-negative targets of positive (weighted) sum."""
    if y.size and float(np.abs(y).max()) > 1e150:
        raise ValueError("y holds values above 1e150 in magnitude, whose squares overflow: "
                         "rescale y (a tree's splits do not change with the scale)")
    if criterion == "poisson":
        if np.any(y < 0):
            raise ValueError("Some value(s) of y are negative which is not allowed for "
                             "Poisson regression (criterion='poisson' needs non-negative y)")
        if not float(np.sum(np.dot(sw, y))) > 0:
            raise ValueError("Sum of y is not strictly positive which is necessary for "
                             "Poisson regression (criterion='poisson' needs a positive "
                             "weighted sum of y)")


def weight_scale(sw):
    """The power of two by which weights far from 1 are divided so that their sums and
    squares (and a bootstrap count times a weight) neither overflow nor underflow, or 1.
    A tree depends only on the ratios of the weights; the division is exact."""
    largest = float(sw.max())
    if 1e-100 <= largest <= 1e100:
        return 1.0
    return float(power_of_two_below(largest))
