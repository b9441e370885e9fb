"""
Categorical features: native splits on a pandas DataFrame
=========================================================

A column of categories (a city, a product, a plan) has no order. One-hot encoding gives
each category its own column, so a split can only set one category apart; ordinal codes
force splits to follow an arbitrary order of the categories. rotforest's estimators split
a categorical column on *sets* of categories instead: at each node the categories are
ordered by their share of the positive class (their mean target for a regressor) and
the best cut of that order is the best partition of the categories into two sets.

Here the target depends on which of 40 cities a row comes from (half of them "good",
in no order) and on a numeric feature. The DataFrame's ``category`` column is found by
its dtype (``categorical_features="from_dtype"``, the default): no encoder is needed, in
a ``Pipeline`` or in ``GridSearchCV`` either. The bars compare the cross-validated
accuracy of the same random forest on native categories (by default, sets of cities in
half of the trees and thresholds of the city codes in the others; here, where the cities
have no order, sets in every tree do better), one-hot columns and ordinal codes.
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

from rotforest import DecisionTreeClassifier, RandomForestClassifier, export_text

rng = np.random.default_rng(0)
n = 3000
cities = np.array([f"city {i:02d}" for i in range(40)])
good = set(rng.choice(cities, 20, replace=False))
city = rng.choice(cities, n)
x = rng.normal(size=n)
signal = np.array([c in good for c in city]) + 0.5 * x + 0.5 * rng.normal(size=n)
y = (signal > 0.5).astype(int)
frame = pd.DataFrame({"city": pd.Categorical(city), "x": x})

forest = dict(n_estimators=50, max_depth=6, n_jobs=2, random_state=0)
models = {
    "native categories": RandomForestClassifier(**forest),
    "native, sets in every tree": RandomForestClassifier(categorical_set_fraction=1.0,
                                                         **forest),
    "one-hot": make_pipeline(
        make_column_transformer((OneHotEncoder(), ["city"]), remainder="passthrough"),
        RandomForestClassifier(**forest)),
    "ordinal codes": make_pipeline(
        make_column_transformer((OrdinalEncoder(), ["city"]), remainder="passthrough"),
        RandomForestClassifier(**forest)),
}
scores = {name: cross_val_score(model, frame, y, cv=3).mean()
          for name, model in models.items()}
for name, score in scores.items():
    print(f"{name:26s} accuracy {score:.3f}")

# one shallow tree: its root splits the cities into two sets
tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(frame, y)
left = tree.tree_.categories_left(0)
print("root splits on", frame.columns[tree.tree_.feature[0]], "- left:",
      ", ".join(frame["city"].cat.categories[left][:6]), "...")
print("share of 'good' cities on the left:",
      np.mean([c in good for c in frame["city"].cat.categories[left]]))
# rotforest's export_text prints the sets by the DataFrame's category names
print(export_text(tree, max_depth=1))

fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(list(scores), list(scores.values()),
        color=["tab:green", "tab:olive", "tab:blue", "tab:gray"])
ax.set_xlim(min(scores.values()) - 0.05, 1.0)
ax.set_xlabel("3-fold accuracy, RandomForestClassifier (50 trees, max_depth=6)")
ax.invert_yaxis()
fig.tight_layout()
plt.show()
