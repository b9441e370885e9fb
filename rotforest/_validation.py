"""Parameter checks shared by the estimators: every value is resolved to a plain number
here, in Python, before the one call into the compiled builder."""
import math
import numbers
import os

import numpy as np
import scipy.sparse as sp



def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _physical_memory():
    """Bytes of physical memory, or None where the platform does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def power_of_two_below(x):
    """The largest power of two at most ``x`` (positive, finite; elementwise for arrays):
    dividing by it is exact and brings x into [1, 2)."""
    return np.ldexp(1.0, np.frexp(x)[1] - 1)


def densify(X):
    """X as a dense array: the builder and the prediction kernels read dense columns, so a
    scipy sparse matrix or array (any format, already checked and cast by validate_data)
    is expanded, implicit entries as 0.0 and stored NaN kept.

    A matrix whose dense form would not fit in physical memory is refused with a clear
    error rather than left to the operating system (which may kill the process while the
    pages are filled)."""
    if not sp.issparse(X):
        return X
    n_bytes = X.shape[0] * X.shape[1] * np.dtype(np.float64).itemsize
    memory = _physical_memory()
    if memory is not None and n_bytes > memory:
        raise ValueError(
            f"sparse X of shape {X.shape} would take {n_bytes / 2**30:.1f} GiB as the dense "
            f"array these estimators work on, more than this machine's "
            f"{memory / 2**30:.1f} GiB of memory; reduce the features first (for instance "
            "with sklearn.feature_selection or TruncatedSVD)")
    return X.toarray()


def store_params(est, arguments):
    """Store an estimator's constructor arguments unchanged, as scikit-learn requires
    (``arguments``: the ``locals()`` of its ``__init__``)."""
    for name, value in arguments.items():
        if name != "self":
            setattr(est, name, value)


def check_option(name, value, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(
            f"{name} must be one of {', '.join(repr(o) for o in options)}; got {value!r}"
        )
    return value


def check_class_weight(class_weight, presets, n_outputs=1):
    """None, a dict (several outputs: a list of as many dicts; ``n_outputs`` None: not
    known yet, any number), or one of the string ``presets``; returns the preset's name,
    else None (an array is refused with this message, not numpy's truth-value error)."""
    if class_weight is None:
        return None
    if isinstance(class_weight, list) and n_outputs is None:
        n_outputs = len(class_weight)
    if isinstance(class_weight, list) or ((n_outputs or 1) > 1
                                          and not isinstance(class_weight, str)):
        if isinstance(class_weight, list) and len(class_weight) != n_outputs:
            raise ValueError(f"For multi-output, the number of elements in class_weight "
                             f"should match number of outputs: y has {n_outputs}, "
                             f"class_weight {len(class_weight)} ({class_weight!r})")
        if (not isinstance(class_weight, list)
                or not all(isinstance(d, dict) for d in class_weight)):
            raise ValueError(f"For multi-output, class_weight should be a list of "
                             f"{n_outputs} dicts (one per output), or the string "
                             f"'balanced'; got {class_weight!r}")
        return None
    if isinstance(class_weight, dict):
        return None
    if isinstance(class_weight, str) and class_weight in presets:
        return class_weight
    raise ValueError(f"class_weight must be a dict, {', '.join(repr(p) for p in presets)} "
                     f"or None; got {class_weight!r}")


def check_bool(name, value):
    """``value`` as a bool (a bool or numpy bool; anything else: TypeError)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool; got {value!r}")
    return bool(value)


def check_int(name, value, low, allow_none=False):
    if value is None and allow_none:
        return None
    if not _is_int(value):
        raise TypeError(f"{name} must be an int >= {low}{' or None' if allow_none else ''}; "
                        f"got {value!r} of type {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}; got {value}")
    return int(value)


def check_real(name, value, low, high=math.inf, low_open=False, high_open=False):
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number; got {value!r} of type "
                        f"{type(value).__name__}")
    value = float(value)
    bad = (
        not np.isfinite(value) and not (high == math.inf and value == math.inf)
        or value < low or (low_open and value == low)
        or value > high or (high_open and value == high)
    )
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}{low}, {high}{hi}; got {value}")
    return value


def resolve_min_samples_split(value, n_samples):
    """int >= 2, or a fraction in (0, 1] of the samples (rounded up, at least 2)."""
    if _is_int(value):
        if value < 2:       # (scikit-learn's words: 1 is an int, not the float 1.0)
            raise ValueError("The 'min_samples_split' parameter must be an int in the "
                             "range [2, inf) or a float in the range (0.0, 1.0]; got "
                             f"{value!r}")
        return check_int("min_samples_split", value, 2)
    if _is_real(value):
        frac = check_real("min_samples_split", value, 0.0, 1.0, low_open=True)
        return max(2, int(math.ceil(frac * n_samples)))
    raise TypeError("min_samples_split must be an int >= 2 or a float in (0, 1]; "
                    f"got {value!r}")


def resolve_min_samples_leaf(value, n_samples):
    """int >= 1, or a fraction in (0, 1) of the samples (rounded up, at least 1)."""
    if _is_int(value):
        return check_int("min_samples_leaf", value, 1)
    if _is_real(value):
        frac = check_real("min_samples_leaf", value, 0.0, 1.0, low_open=True,
                          high_open=True)
        return max(1, int(math.ceil(frac * n_samples)))
    raise TypeError("min_samples_leaf must be an int >= 1 or a float in (0, 1); "
                    f"got {value!r}")


def resolve_max_features(value, n_features, name="max_features"):
    """Number of features to draw at each node, as scikit-learn defines it (``name`` is
    the parameter named in errors, which list every accepted form)."""
    forms = "an int >= 1, a float in (0, 1], 'sqrt', 'log2' or None"
    if value is None:
        return n_features
    if isinstance(value, str):
        if value not in ("sqrt", "log2"):
            raise ValueError(f"{name} must be {forms}; got {value!r}")
        if value == "sqrt":
            return max(1, int(math.sqrt(n_features)))
        return max(1, int(math.log2(n_features)))
    if _is_int(value):
        if value < 1:
            raise ValueError(f"{name} must be {forms}; got the int {value}")
        return int(min(value, n_features))     # more than there are: all (scikit-learn 1.9)
    if _is_real(value):
        if not 0.0 < float(value) <= 1.0:      # (NaN included)
            raise ValueError(f"{name} must be {forms}; got the float {value!r}")
        return max(1, int(float(value) * n_features))
    raise TypeError(f"{name} must be {forms}; got {value!r} of type "
                    f"{type(value).__name__}")


def resolve_monotonic_cst(value, n_features, n_classes, regression=False, n_outputs=1):
    """The builder's view of ``monotonic_cst`` (constraints on the positive class's
    probability): None, or int8 constraints on the class-0 fraction (signs flipped).
    Two classes only, as in scikit-learn; with one class there is nothing to constrain.
    ``regression``: constraints on the predicted value, passed as they are.  One output
    only, as in scikit-learn."""
    if value is None:
        return None
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple "
                         f"outputs (y has {n_outputs} columns): fit one estimator per "
                         "output to constrain each")
    cst = np.asarray(value)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {cst.shape} but X has {n_features} "
                         "features: give one constraint per feature")
    if cst.dtype.kind not in "biuf" or not np.all(np.isin(cst, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1; got "
                         f"the values {np.unique(cst).tolist()}")
    if regression:
        return np.ascontiguousarray(cst.astype(np.int8))
    if n_classes > 2:
        raise ValueError("monotonic_cst is not supported with more than two classes "
                         f"(got {n_classes}): the constraints bind the probability of the "
                         "positive class")
    if n_classes < 2:
        return None
    return np.ascontiguousarray(-cst.astype(np.int8))


def check_tree_params(est):
    """Check a tree's parameters that do not depend on the data (the criterion among
    those of its class, ``est._criteria``); return the builder's view."""
    check_option("criterion", est.criterion, tuple(est._criteria))
    check_option("splitter", est.splitter, ("best", "random"))
    max_depth = check_int("max_depth", est.max_depth, 1, allow_none=True)
    max_leaf_nodes = check_int("max_leaf_nodes", est.max_leaf_nodes, 2, allow_none=True)
    check_real("min_weight_fraction_leaf", est.min_weight_fraction_leaf, 0.0, 0.5)
    check_real("min_impurity_decrease", est.min_impurity_decrease, 0.0)
    check_int("min_category_samples", est.min_category_samples, 1)
    return max_depth, max_leaf_nodes
