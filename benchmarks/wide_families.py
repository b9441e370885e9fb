"""Synthetic families of wide data, for choosing and checking defaults on the classes of
data a user may hold (not only on the shared data sets).

Every generator takes the number of rows and features and a seed and returns ``(X, y)``
as float64 and int64 (classification) or float64 (regression) arrays; the same
arguments give the same data on any machine.

Classification families (``FAMILIES``, by name):

- ``signal``: a few informative features among many noise features (scikit-learn's
  ``make_classification``: 10 informative and 5 redundant, i.e. linear combinations of
  them, two Gaussian clusters per class on the vertices of a hypercube; the rest are
  standard normal noise). The classic design in which a feature subset can miss the
  signal.
- ``interactions``: the MADELON design (5 informative features on the 32 vertices of a
  hypercube, 16 clusters per class, so the class depends on the features jointly, and
  15 redundant combinations of them; 1% of the labels flipped; the rest noise).
- ``counts``: word counts. A vocabulary with Zipf-like term rates, documents of Poisson
  length (mean 150), each term a Poisson count; 60 informative terms are two to four
  times as frequent in one of three classes. About 98% of the cells are zero.
- ``binary``: few-valued columns. Binary features with rates between 2% and 50%; the
  class (two of them) is a noisy logistic function of 12 of them, two of those entering
  through their product (an interaction).
- ``images``: dense image-like data. Five classes, each a prototype of three Gaussian
  blobs on a square grid; an image is its class prototype shifted by up to 3 pixels,
  scaled in intensity by 0.6 to 1.4, with Gaussian pixel noise, clipped at 0.
  ``n_features`` is rounded down to a square.

Regression families (``REGRESSION_FAMILIES``):

- ``signal``: scikit-learn's ``make_regression`` with 10 informative features of many,
  noise of a tenth of the signal's standard deviation.
- ``friedman``: Friedman's first function (a nonlinear function of 5 features, with
  interactions) with the rest noise (``make_friedman1``), noise 1.0.
"""
import numpy as np
from sklearn.datasets import make_classification, make_friedman1, make_regression


def signal(n_samples, n_features, seed=0):
    return make_classification(n_samples, n_features, n_informative=10, n_redundant=5,
                               n_classes=2, n_clusters_per_class=2, random_state=seed)


def interactions(n_samples, n_features, seed=0):
    return make_classification(n_samples, n_features, n_informative=5, n_redundant=15,
                               n_repeated=0, n_classes=2, n_clusters_per_class=16,
                               flip_y=0.01, class_sep=1.0, random_state=seed)


def counts(n_samples, n_features, seed=0, n_informative=60, n_classes=3, length=150):
    rng = np.random.default_rng(seed)
    rates = 1.0 / (np.arange(n_features) + 10.0) ** 1.1
    rates /= rates.sum()
    y = rng.integers(n_classes, size=n_samples)
    lift = np.ones((n_classes, n_features))
    for term in rng.choice(n_features, min(n_informative, n_features), replace=False):
        lift[rng.integers(n_classes), term] = rng.uniform(2.0, 4.0)
    lengths = rng.poisson(length, size=n_samples)[:, None]
    X = rng.poisson(lengths * rates[None, :] * lift[y]).astype(np.float64)
    return X[:, rng.permutation(n_features)], y


def binary(n_samples, n_features, seed=0, n_informative=12):
    rng = np.random.default_rng(seed)
    rates = rng.uniform(0.02, 0.5, size=n_features)
    X = (rng.random((n_samples, n_features)) < rates).astype(np.float64)
    k = min(n_informative, n_features)
    used = rng.choice(n_features, k, replace=False)
    coef = rng.choice([-1.0, 1.0], size=k) * rng.uniform(1.0, 2.5, size=k)
    logit = X[:, used] @ coef
    if k >= 2:      # two of them act only together
        logit += 3.0 * (X[:, used[0]] * X[:, used[1]] - 0.5 * X[:, used[0]])
    logit -= np.median(logit)
    y = (rng.random(n_samples) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
    return X, y


def images(n_samples, n_features, seed=0, n_classes=5):
    rng = np.random.default_rng(seed)
    side = max(4, int(np.sqrt(n_features)))
    rows, cols = np.mgrid[0:side, 0:side]
    prototypes = np.zeros((n_classes, side, side))
    for c in range(n_classes):
        for _ in range(3):
            cy, cx = rng.uniform(side * 0.25, side * 0.75, 2)
            width = rng.uniform(1.5, 4.0) * side / 28
            prototypes[c] += np.exp(-((rows - cy) ** 2 + (cols - cx) ** 2)
                                    / (2 * width * width))
    y = rng.integers(n_classes, size=n_samples)
    X = np.empty((n_samples, side * side))
    shifts = rng.integers(-3, 4, size=(n_samples, 2))
    scales = rng.uniform(0.6, 1.4, size=n_samples)
    for i in range(n_samples):
        image = np.roll(prototypes[y[i]], tuple(shifts[i]), axis=(0, 1)) * scales[i]
        image += rng.normal(0.0, 0.35, image.shape)
        X[i] = np.clip(image, 0.0, None).ravel()
    return X, y


def regression_signal(n_samples, n_features, seed=0):
    X, y = make_regression(n_samples, n_features, n_informative=10, noise=0.0,
                           random_state=seed)
    y = y + np.random.default_rng(seed).normal(0.0, 0.1 * y.std(), size=n_samples)
    return X, y


def friedman(n_samples, n_features, seed=0):
    return make_friedman1(n_samples, max(5, n_features), noise=1.0, random_state=seed)


FAMILIES = {"signal": signal, "interactions": interactions, "counts": counts,
            "binary": binary, "images": images}
REGRESSION_FAMILIES = {"signal": regression_signal, "friedman": friedman}

# the default grid: (family, rows, features), 200 to 10,000 features
GRID = [("signal", 2000, 200), ("signal", 2000, 1000), ("signal", 1000, 10000),
        ("interactions", 2000, 500), ("interactions", 2000, 2000),
        ("counts", 2000, 1000), ("counts", 2000, 3000), ("counts", 1000, 10000),
        ("binary", 2000, 500), ("binary", 2000, 2000),
        ("images", 2000, 256), ("images", 2000, 1024)]
REGRESSION_GRID = [("signal", 2000, 500), ("signal", 1000, 5000),
                   ("friedman", 2000, 500), ("friedman", 2000, 2000)]


def make(family, n_samples, n_features, seed=0, task="classification"):
    table = FAMILIES if task == "classification" else REGRESSION_FAMILIES
    if family not in table:
        raise ValueError(f"unknown {task} family {family!r}; choose among {sorted(table)}")
    return table[family](n_samples, n_features, seed)
