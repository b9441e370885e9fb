"""
Quantile regression forests: prediction intervals, raw and calibrated
=====================================================================

A quantile regression forest keeps the training targets of every leaf, so it can
predict any quantile of the target, not only its mean. Two quantiles make a prediction
interval: here the 5% and 95% quantiles of
:class:`~rotforest.RandomForestQuantileRegressor` on a noisy sine whose noise grows
with ``x``, so that the interval should widen from left to right.

The left panel draws the raw interval (the two quantiles) and the median; the right
panel the interval calibrated to 90% coverage on the forest's out-of-bag calibration
scores (``predict_interval(X, coverage=0.9)``). The titles give the share of 2,000
held-out targets that each interval holds and its mean width.
"""
import matplotlib.pyplot as plt
import numpy as np

from rotforest import RandomForestQuantileRegressor


def sample(n, rng):
    x = rng.uniform(0, 10, n)
    return x[:, None], np.sin(x) + rng.normal(0, 0.1 + 0.08 * x)


rng = np.random.default_rng(0)
X, y = sample(800, rng)
X_test, y_test = sample(2000, rng)
forest = RandomForestQuantileRegressor(n_estimators=200, min_samples_leaf=10, n_jobs=2,
                                       random_state=0).fit(X, y)

grid = np.linspace(0, 10, 500)[:, None]
median = forest.predict(grid, quantiles=0.5)
intervals = {
    "raw 5%-95% quantiles": (forest.predict(grid, quantiles=[0.05, 0.95]),
                             forest.predict_interval(X_test, 0.9, calibrated=False)),
    "calibrated to 90% (out of bag)": (forest.predict_interval(grid, 0.9),
                                       forest.predict_interval(X_test, 0.9)),
}

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
for ax, (name, (band, held_out)) in zip(axes, intervals.items()):
    covered = np.mean((y_test >= held_out[:, 0]) & (y_test <= held_out[:, 1]))
    width = np.mean(held_out[:, 1] - held_out[:, 0])
    ax.scatter(X[:, 0], y, s=5, color="0.6", label="training data")
    ax.fill_between(grid[:, 0], band[:, 0], band[:, 1], color="C0", alpha=0.3,
                    label="interval")
    ax.plot(grid[:, 0], median, color="C1", lw=2, label="median")
    ax.plot(grid[:, 0], np.sin(grid[:, 0]), color="k", lw=1, label="sin(x)")
    ax.set_title(f"{name}\nheld-out coverage {covered:.3f}, mean width {width:.2f}",
                 fontsize=10)
    ax.set_xlabel("x")
axes[0].set_ylabel("y")
axes[0].legend(fontsize=8, loc="lower left")
fig.tight_layout()
plt.show()
