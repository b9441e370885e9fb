"""Categorical features: which columns they are, and their values as integer codes.

Every estimator takes ``categorical_features`` with the conventions of scikit-learn's
``HistGradientBoosting*`` estimators:

- ``"from_dtype"`` (the default): the columns of a DataFrame whose dtype holds categories:
  pandas ``category`` and pyarrow ``dictionary`` columns, polars ``Categorical`` and
  ``Enum`` columns (as scikit-learn's HistGradientBoosting reads them); none for other
  inputs;
- ``None``: none;
- a boolean mask of length n_features, integer indices, or feature names (strings, for
  a DataFrame).

A categorical column holds integer codes 0 to 2**24 - 1 (any number of levels up to
that) and NaN for missing values; a pandas ``category`` column is replaced by its codes, and at predict
time its values are coded by the categories seen in fit (a category not seen then counts
as missing).  The builder splits such a column on sets of levels (see
``_categorical.pxi``).

A column of strings that are not numbers (a pandas object or string column, a polars
String one, strings in an array of objects) is refused with a message that names it and
says how to make it categorical or encode it (``string_columns_error``).
"""
import numpy as np

from rotforest import _builder

MAX_CATEGORIES = _builder.MAX_CATEGORY_CODE + 1     # codes 0 .. 2**24 - 1
# a split stores a bit per code up to the largest: codes above this that are spread
# thinly (fewer than one level per 64 codes) are refused (see check_codes)
_SPREAD_CODES = 1 << 16


def _is_frame(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _polars_categorical(X):
    """Whether X is a polars DataFrame with a Categorical or Enum column."""
    if type(X).__module__.split(".")[0] != "polars" or not hasattr(X, "schema"):
        return False
    import polars as pl
    return any(dtype == pl.Categorical or dtype == pl.Enum for dtype in X.schema.values())


def _arrow_dictionary(dtype):
    """A pandas column dtype of pyarrow's dictionary type (categories by another name)."""
    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is None:
        return False
    import pyarrow as pa
    return pa.types.is_dictionary(arrow)


def as_pandas_categories(X):
    """X with its categorical columns in the form the rest reads, pandas ``category``: a
    polars DataFrame with Categorical or Enum columns becomes a pandas one (its
    categories kept), a pandas column of pyarrow's dictionary type a ``category`` one.
    Anything else is returned as it is."""
    if _polars_categorical(X):
        try:
            return X.to_pandas()
        except ImportError as error:
            raise ImportError("a polars DataFrame with Categorical or Enum columns is read "
                              "through pandas and pyarrow: install them, or pass the "
                              f"columns' codes ({error})") from error
    if _is_frame(X):
        arrow = [j for j, dtype in enumerate(X.dtypes) if _arrow_dictionary(dtype)]
        if arrow:
            X = X.copy()
            for j in arrow:
                X.isetitem(j, X.iloc[:, j].astype("category"))
    return X


def _category_columns(X):
    if not _is_frame(X):
        return None
    return np.array([getattr(dtype, "name", None) == "category" for dtype in X.dtypes])


def _resolve_mask(value, X, n_features):
    """The boolean mask that ``categorical_features=value`` designates in X."""
    if value is None:
        return np.zeros(n_features, dtype=bool)
    if isinstance(value, str):
        if value != "from_dtype":
            raise ValueError("categorical_features must be None, 'from_dtype', a boolean "
                             "mask, integer indices or feature names; got "
                             f"{value!r}")
        found = _category_columns(X)
        return np.zeros(n_features, dtype=bool) if found is None else found
    values = np.asarray(value)
    if values.ndim != 1:
        raise ValueError("categorical_features must be 1-D (a mask, indices or names); "
                         f"got an array of shape {values.shape}")
    if values.size == 0:
        return np.zeros(n_features, dtype=bool)
    if values.dtype.kind == "b":
        if values.shape[0] != n_features:
            raise ValueError(f"categorical_features is a boolean mask of "
                             f"{values.shape[0]} entries but X has {n_features} features")
        return values.copy()
    mask = np.zeros(n_features, dtype=bool)
    if values.dtype.kind in "iu":
        if values.min() < 0 or values.max() >= n_features:
            raise ValueError(f"categorical_features holds indices outside [0, {n_features}):"
                             f" {values.tolist()}")
        mask[values] = True
        return mask
    if values.dtype.kind in "UO" and all(isinstance(v, str) for v in values):
        if not _is_frame(X):
            raise ValueError("categorical_features names features, but X has no feature "
                             "names: pass a pandas DataFrame, or a mask or indices")
        names = [str(c) for c in X.columns]
        missing = [v for v in values if v not in names]
        if missing:
            raise ValueError(f"categorical_features names {missing}, which are not columns "
                             f"of X ({names})")
        mask[[names.index(v) for v in values]] = True
        return mask
    raise ValueError("categorical_features must be None, 'from_dtype', a boolean mask, "
                     f"integer indices or feature names; got {value!r}")


def _storable(categories):
    """A pandas column's categories as the fitted estimator keeps them: a numpy array
    (strings as a fixed-width str array), so that the model saves with skops, which
    refuses pandas objects, as well as with pickle."""
    values = categories.to_numpy()
    if values.dtype == object and all(isinstance(v, str) for v in values):
        values = values.astype(str)
    return values


def category_index(categories):
    """The fitted categories of a feature (a numpy array; a pandas Index in models
    pickled before 2026-11-27) as a pandas Index."""
    import pandas as pd
    return categories if isinstance(categories, pd.Index) else pd.Index(categories)


def _as_codes(column, categories):
    """A column's values as float codes of ``categories`` (NaN: missing or unknown)."""
    categories = category_index(categories)
    if getattr(column.dtype, "name", None) == "category":
        if not column.cat.categories.equals(categories):
            column = column.cat.set_categories(categories)
        codes = column.cat.codes.to_numpy()
    else:
        codes = categories.get_indexer(column)
    codes = codes.astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def categorical_input(est, X, reset):
    """X with the categorical columns of a DataFrame as float codes, before scikit-learn's
    validation.  ``reset``: a fit, which resolves ``est.categorical_features`` and sets
    ``is_categorical_`` (None when no feature is) and the categories of each pandas
    ``category`` column; otherwise those are used as the fit left them.  Polars and
    pyarrow categorical columns are read by then as pandas ``category`` ones (the
    caller's as_pandas_categories)."""
    if reset:
        shape = getattr(X, "shape", None)
        n_features = shape[1] if shape is not None and len(shape) == 2 else None
        maps = {}
        if n_features is None:
            # not 2-D: scikit-learn's validation will say so; only from_dtype or None
            # can be meant
            mask = None
        else:
            mask = _resolve_mask(est.categorical_features, X, n_features)
            dtypes = _category_columns(X)
            if dtypes is not None:
                for j in np.flatnonzero(mask & dtypes):
                    categories = X.iloc[:, j].cat.categories
                    if len(categories) > MAX_CATEGORIES:
                        raise ValueError(
                            f"categorical feature {X.columns[j]!r} has {len(categories)} "
                            f"categories; at most {MAX_CATEGORIES} are supported: merge "
                            "rare ones, or treat the column as numeric")
                    maps[int(j)] = _storable(categories)
            if not mask.any():
                mask = None
        est.is_categorical_ = mask
        est._category_maps = maps
    maps = getattr(est, "_category_maps", None)
    if maps and _is_frame(X) and X.shape[1] == len(est.is_categorical_):
        X = X.copy()
        for j, categories in maps.items():
            X.isetitem(j, _as_codes(X.iloc[:, j], categories))
    return X


def check_categorical_unchanged(est, X):
    """A warm-started fit: ``categorical_features`` must designate in X the features the
    first fit treated as categorical (they are not resolved again).  Left to
    scikit-learn's validation when X is not a matrix of the fitted width; "from_dtype"
    is checked only on a DataFrame (an array's codes follow the fitted categories).
    Polars and pyarrow categorical columns are read by then as pandas ``category``
    ones (the caller's as_pandas_categories)."""
    shape = getattr(X, "shape", None)
    if (shape is None or len(shape) != 2 or shape[1] != getattr(est, "n_features_in_", -1)
            or (isinstance(est.categorical_features, str) and not _is_frame(X))):
        return
    fitted = getattr(est, "is_categorical_", None)
    if fitted is None:
        fitted = np.zeros(shape[1], dtype=bool)
    try:
        mask = _resolve_mask(est.categorical_features, X, shape[1])
    except ValueError as error:
        raise ValueError(f"{error} (in a warm-started fit)") from error
    if not np.array_equal(mask, fitted):
        raise ValueError("categorical_features cannot change between warm-started fits: the "
                         f"fitted trees treat features {np.flatnonzero(fitted).tolist()} as "
                         f"categorical, categorical_features now gives "
                         f"{np.flatnonzero(mask).tolist()}")


def check_codes(est, X):
    """Checks the categorical columns of the validated X (float64): NaN or integer codes
    0 .. MAX_CATEGORIES - 1.  Returns the mask as uint8 for the builder, or None."""
    mask = getattr(est, "is_categorical_", None)
    if mask is None:
        return None
    for j in np.flatnonzero(mask):
        column = X[:, j]
        present = column[~np.isnan(column)]
        if present.size == 0:
            continue
        bad = present[(present != np.round(present)) | ~np.isfinite(present)]
        if bad.size:
            raise ValueError(f"categorical feature {j} holds the non-integer value "
                             f"{bad[0]}: categories must be integer codes")
        low, high = present.min(), present.max()
        if low < 0:
            raise ValueError(f"categorical feature {j} holds the negative code {low:g}: "
                             f"codes must lie in [0, {MAX_CATEGORIES - 1}]")
        if high >= MAX_CATEGORIES:
            raise ValueError(f"categorical feature {j} holds the code {high:g}: codes must "
                             f"lie in [0, {MAX_CATEGORIES - 1}] (at most {MAX_CATEGORIES} "
                             "categories); merge rare ones, or treat the column as numeric")
        if high >= _SPREAD_CODES:
            levels = np.unique(present).size
            if high + 1 > 64 * levels:
                # every split on the column stores a bit per code up to the largest
                raise ValueError(
                    f"categorical feature {j} holds codes up to {high:g} but only "
                    f"{levels} distinct ones: each split on it would keep {high / 8:,.0f} "
                    "bytes; number the categories 0, 1, 2, ... (for example with "
                    "sklearn.preprocessing.OrdinalEncoder; a pandas column: drop the "
                    "categories it does not hold, .cat.remove_unused_categories())")
    return mask.astype(np.uint8)


def check_categorical_params(est, monotonic, criterion):
    """Categorical features cannot take monotonic constraints or the absolute error."""
    mask = getattr(est, "is_categorical_", None)
    if mask is None:
        return
    if monotonic is not None and np.any(np.asarray(monotonic)[mask] != 0):
        raise ValueError("monotonic_cst must be 0 for categorical features (features "
                         f"{np.flatnonzero(mask & (np.asarray(monotonic) != 0)).tolist()})")
    if criterion == "absolute_error":
        raise ValueError("criterion='absolute_error' does not support categorical "
                         "features yet; use squared_error, or encode them as numbers")


# -- columns of strings: what scikit-learn's "could not convert string to float" meant --

_LISTED = 5                         # columns named in the message at most


def _first_string(values):
    """The first value of ``values`` that is a string which ``float`` cannot read (an
    example for the message), or None.  Missing values and non-strings are passed over:
    those are not what the message is about."""
    for value in values:
        if isinstance(value, (str, bytes)):
            try:
                float(value)
            except ValueError:
                return value
    return None


def _strings_in(values):
    """``_first_string`` of a 1-D array, skipping a column that converts as a whole."""
    try:
        np.asarray(values, dtype=np.float64)
        return None
    except (TypeError, ValueError):
        return _first_string(values)


def _string_columns(X):
    """[(index, name or None, example, has the category dtype)] for the columns of X that
    hold strings which cannot be read as numbers: a pandas or polars DataFrame's, by
    name, or those of an array (of objects, str or bytes; a list of rows), by index."""
    found = []
    if _is_frame(X):                                            # pandas
        for j in range(X.shape[1]):
            column = X.iloc[:, j]
            dtype = column.dtype
            if isinstance(dtype, np.dtype) and dtype.kind in "biufcmM":
                continue
            category = getattr(dtype, "name", None) == "category"
            values = (column.cat.categories if category else column).to_numpy(dtype=object)
            example = _strings_in(values)
            if example is not None:
                found.append((j, X.columns[j], example, category))
        return found
    if type(X).__module__.split(".")[0] == "polars" and hasattr(X, "get_column"):
        for j, name in enumerate(X.columns):
            column = X.get_column(name)
            is_numeric = getattr(column.dtype, "is_numeric", None)
            if callable(is_numeric) and is_numeric():
                continue
            example = _first_string(column.to_list())
            if example is not None:
                found.append((j, name, example, False))
        return found
    if hasattr(X, "tocsr") or hasattr(X, "columns"):            # sparse, other frames
        return found
    try:
        array = X if isinstance(X, np.ndarray) else np.asarray(X)
    except (TypeError, ValueError):
        return found                    # (ragged rows: scikit-learn says why)
    if array.ndim != 2 or array.dtype.kind not in "OUS":
        return found
    for j in range(array.shape[1]):
        example = _strings_in(array[:, j])
        if example is not None:
            found.append((j, None, example, False))
    return found


def _shown(value):
    """An example value as the message shows it: a plain str or bytes, at most 40
    characters."""
    value = bytes(value) if isinstance(value, bytes) else str(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:36] + "...'"


def _named(columns, label):
    """'column 'color' (e.g. 'red')', or several of them (the first few)."""
    parts = [f"{label(c)} (e.g. {_shown(c[2])})" for c in columns[:_LISTED]]
    if len(columns) > _LISTED:
        parts.append(f"and {len(columns) - _LISTED} more")
    text = ", ".join(parts)
    return ("column " if len(columns) == 1 else "columns ") + text


def string_columns_error(est, X, original, reset):
    """The ValueError for an X whose columns hold strings that cannot be read as numbers
    (the cause of scikit-learn's "could not convert string to float"), which names them,
    shows a value of each and says how to use them: as categories (a DataFrame's
    ``category`` dtype, read by ``categorical_features="from_dtype"``) or encoded.  None
    when X has no such column (the caller's error stands).

    ``X``: the input as ``categorical_input`` left it (categorical columns coded);
    ``original``: as the caller passed it (which library's advice to give); ``reset``:
    a fit (otherwise the fitted model's columns are meant)."""
    try:
        columns = _string_columns(X)
    except Exception:           # (the diagnosis must never hide the original error)
        return None
    if not columns:
        return None
    frame = columns[0][1] is not None
    polars = type(original).__module__.split(".")[0] == "polars"
    mask = getattr(est, "is_categorical_", None)
    shape = getattr(X, "shape", None)
    if mask is None or shape is None or len(shape) != 2 or shape[1] != len(mask):
        mask = ()               # (not of the fitted width: scikit-learn says so later)
    # columns marked categorical, of the category dtype (not marked), of plain strings
    marked = [c for c in columns if c[0] < len(mask) and mask[c[0]]]
    dtyped = [c for c in columns if c[3] and c not in marked]
    plain = [c for c in columns if not c[3] and c not in marked]

    def label(c):
        return repr(c[1]) if frame else str(c[0])

    def names(group):
        return [c[1] if frame else c[0] for c in group]

    def it(group):
        return "it" if len(group) == 1 else "them"

    def labels(group):
        return ("column " if len(group) == 1 else "columns ") + ", ".join(
            label(c) for c in group)

    def to_category(group):
        """The line of code that gives the columns categories, in the caller's library."""
        keys = names(group)
        if len(keys) > _LISTED:
            if polars:
                return "X = X.with_columns(pl.col(pl.Utf8).cast(pl.Categorical))"
            return ("X[cols] = X[cols].astype('category') for cols the columns of "
                    "strings")
        if polars:
            listed = ", ".join(repr(str(k)) for k in keys)
            return f"X = X.with_columns(pl.col({listed}).cast(pl.Categorical))"
        key = repr(keys[0]) if len(keys) == 1 else repr(keys)
        return f"X[{key}] = X[{key}].astype('category')"

    setting = est.categorical_features
    from_dtype = isinstance(setting, str) and setting == "from_dtype"
    kind = "polars' Categorical" if polars else "pandas' 'category'"
    lines = [f"X's {_named(columns, label)} "
             f"{'holds' if len(columns) == 1 else 'hold'} strings: could not convert "
             f"{'it' if len(columns) == 1 else 'them'} to numbers."]
    n_fitted = getattr(est, "n_features_in_", None)
    if not reset and n_fitted is not None and (shape is None or len(shape) != 2
                                               or shape[1] != n_fitted):
        lines.append(f"Besides, the model was fitted on {n_fitted} features: pass those "
                     "columns, encoded as they were for fit.")
        return ValueError(" ".join(lines))
    if not reset:
        if plain or dtyped:
            which = it(plain + dtyped) if not marked else labels(plain + dtyped)
            lines.append(
                f"The fitted model reads {which} as numbers, as in fit: pass the values "
                "it was fitted on (encoded as they were for fit). To split strings as "
                f"categories, refit with {it(plain + dtyped)} as {kind} dtype "
                "(categorical_features='from_dtype' reads such columns).")
        if marked:
            fitted_frame = bool(getattr(est, "_category_maps", None))
            lines.append(
                f"{labels(marked)[0].upper()}{labels(marked)[1:]} "
                f"{'is' if len(marked) == 1 else 'are'} categorical in the fitted model, "
                + ("which was fitted on a DataFrame's 'category' columns: pass a "
                   "DataFrame with those columns (their values are coded by the "
                   "categories seen in fit)." if fitted_frame and not frame else
                   f"which reads {it(marked)} as the integer codes it was fitted on: "
                   f"encode {it(marked)} as for fit."))
        return ValueError(" ".join(lines))
    if plain:
        ref = it(plain) if len(plain) == len(columns) else labels(plain)
        if frame:
            how = (f"which categorical_features='from_dtype' (the default) reads as "
                   f"categorical: {to_category(plain)}" if from_dtype else
                   f"and pass categorical_features='from_dtype' (now {setting!r}) or "
                   f"name {it(plain)} there: {to_category(plain)}")
            lines.append(
                f"To split {ref} as categories, give {it(plain)} {kind} dtype"
                f"{',' if from_dtype else ''} {how}; "
                f"or encode {it(plain)} as numbers (e.g. with "
                "sklearn.preprocessing.OrdinalEncoder, and name the codes' columns in "
                "categorical_features to split them as categories).")
        else:
            lines.append(
                f"To split {ref} as categories, encode {it(plain)} as integer codes "
                "(e.g. with sklearn.preprocessing.OrdinalEncoder) and pass "
                f"categorical_features={names(plain)}, or pass a pandas DataFrame with "
                f"{'this column' if len(plain) == 1 else 'these columns'} as 'category' "
                "dtype (categorical_features='from_dtype', the default, reads "
                f"{it(plain)}); otherwise encode {it(plain)} as numbers.")
    if marked:
        lines.append(
            f"categorical_features={setting!r} marks {labels(marked)} as categorical, "
            "but a categorical "
            f"column must have {kind} dtype"
            + (f" ({to_category(marked)})" if frame else "")
            + " or hold integer codes 0, 1, 2, ... (e.g. from "
              "sklearn.preprocessing.OrdinalEncoder).")
    if dtyped:
        lines.append(
            f"{labels(dtyped)[0].upper()}{labels(dtyped)[1:]} "
            f"{'has' if len(dtyped) == 1 else 'have'} the 'category' dtype, but "
            f"categorical_features={setting!r} does not mark "
            f"{'it' if len(dtyped) == 1 else 'them'} as categorical: pass "
            "categorical_features='from_dtype' or include "
            f"{'it' if len(dtyped) == 1 else 'them'} in categorical_features.")
    return ValueError(" ".join(lines))
