"""What every estimator shares, trees and forests alike: the mixins of accepted inputs
(``_AcceptsNaN``), atomic fits and unpickling defaults (``_AtomicFit``), the classifiers'
``predict_log_proba`` and ``score`` (``_LogProba``), and the predictions of several
outputs as one array (``_stack_outputs``, ``subset_accuracy``)."""
import numpy as np
from sklearn.utils.validation import check_is_fitted


class _AcceptsNaN:
    """Missing values (NaN) are accepted in X; infinities are not. Sparse X is accepted
    and expanded to a dense array.  (Also the tag of several outputs: every estimator
    takes a 2-D y.)"""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        return tags


class _LogProba:
    """predict_log_proba of every classifier, from its predict_proba; and its score with
    several outputs."""

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y); several outputs: the (weighted) share of samples
        whose every output is predicted right.

        scikit-learn's ``score`` computes the latter only for outputs of 0s and 1s
        (``accuracy_score`` refuses other labels); this one takes any labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        if self.n_outputs_ == 1:
            return super().score(X, y, sample_weight=sample_weight)
        predicted = self.predict(X)
        y = np.asarray(y)
        if y.shape != predicted.shape:
            raise ValueError(f"y has shape {y.shape}; the model predicts "
                             f"{predicted.shape} (one column per output)")
        return subset_accuracy(y, predicted, sample_weight)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes), or a list of such arrays
            ``-inf`` for a class of probability 0 (several outputs: one array per
            output).
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):     # several outputs
                return [np.log(p) for p in proba]
            return np.log(proba)


def subset_accuracy(y, predicted, sample_weight=None):
    """The (weighted) share of rows of several outputs whose every output is right,
    for labels of any kind (scikit-learn's accuracy_score computes it for 0/1 outputs
    only)."""
    return float(np.average(np.all(predicted == y, axis=1), weights=sample_weight))


def _stack_outputs(columns):
    """The outputs' predictions as the columns of one array (n_samples, n_outputs), of
    a dtype that holds every output's labels (numpy's promotion; object when they mix
    strings and numbers)."""
    try:
        dtype = np.result_type(*[c.dtype for c in columns])
    except TypeError:
        dtype = object
    out = np.empty((columns[0].shape[0], len(columns)), dtype=dtype)
    for o, c in enumerate(columns):
        out[:, o] = c
    return out


class _AtomicFit:
    """``fit`` either completes or leaves the estimator exactly as it was.  Also: a
    model pickled before a parameter existed gets, when unpickled, the value that
    reproduces how it was fitted (``_pickle_defaults``), so that ``get_params``,
    ``clone`` and refits work on it."""

    # parameters added after the first release: the behaviour of the models before them
    _pickle_defaults = {"categorical_features": None, "min_category_samples": 10}

    def __setstate__(self, state):
        super().__setstate__(state)
        for name, value in self._pickle_defaults.items():
            self.__dict__.setdefault(name, value)

    def _atomic(self, fit, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return fit(*args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
