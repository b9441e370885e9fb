"""
Regression: a tree, a random forest and a rotation forest on one curve
======================================================================

A regression tree predicts a constant in each leaf, so its prediction is a staircase.
Averaging many trees smooths the steps. Trees grown on rotated axes put their steps
along oblique directions too, which suits targets that change along a mix of features.

The first row fits :class:`~rotforest.DecisionTreeRegressor`,
:class:`~rotforest.RandomForestRegressor` and :class:`~rotforest.RotationForestRegressor`
to a noisy sine of one feature and draws their predictions. The second row has a target
that depends on the sum of two features, ``sin(x1 + x2)``: the contour lines of each
model's prediction show the axis-parallel steps of the random forest and the oblique ones
of the rotation forest, with the held-out R² of each.
"""
import matplotlib.pyplot as plt
import numpy as np

from rotforest import DecisionTreeRegressor, RandomForestRegressor, RotationForestRegressor

rng = np.random.default_rng(0)
models = {
    "DecisionTreeRegressor (max_depth=5)": DecisionTreeRegressor(max_depth=5,
                                                                 random_state=0),
    "RandomForestRegressor": RandomForestRegressor(n_estimators=100, min_samples_leaf=3,
                                                   n_jobs=2, random_state=0),
    "RotationForestRegressor": RotationForestRegressor(n_estimators=100,
                                                       min_samples_leaf=3, n_jobs=2,
                                                       random_state=0),
}

fig, axes = plt.subplots(2, 3, figsize=(13, 8))

# one feature: a noisy sine
x = np.sort(rng.uniform(0, 6, 300))[:, None]
y = np.sin(x[:, 0]) + rng.normal(0, 0.25, x.shape[0])
grid = np.linspace(0, 6, 600)[:, None]
for ax, (name, model) in zip(axes[0], models.items()):
    model.fit(x, y)
    ax.scatter(x[:, 0], y, s=6, color="0.6", label="training data")
    ax.plot(grid[:, 0], np.sin(grid[:, 0]), color="k", lw=1, label="sin(x)")
    ax.plot(grid[:, 0], model.predict(grid), color="C1", lw=2, label="prediction")
    ax.set_title(name, fontsize=10)
axes[0, 0].legend(fontsize=8, loc="lower left")

# two features: the target changes along x1 + x2
X = rng.uniform(-3, 3, (1500, 2))
target = np.sin(X[:, 0] + X[:, 1])
y = target + rng.normal(0, 0.1, X.shape[0])
X_test = rng.uniform(-3, 3, (2000, 2))
y_test = np.sin(X_test[:, 0] + X_test[:, 1])
a, b = np.meshgrid(np.linspace(-3, 3, 200), np.linspace(-3, 3, 200))
points = np.column_stack([a.ravel(), b.ravel()])
for ax, (name, model) in zip(axes[1], models.items()):
    model.fit(X, y)
    surface = model.predict(points).reshape(a.shape)
    ax.contourf(a, b, surface, levels=15, cmap="RdBu_r")
    ax.set_title(f"held-out R² {model.score(X_test, y_test):.3f}", fontsize=10)
    ax.set_xlabel("x1")
axes[1, 0].set_ylabel("x2")
fig.suptitle("Top: y = sin(x) + noise.  Bottom: predictions of y = sin(x1 + x2) + noise")
fig.tight_layout()
plt.show()
