"""
Pruning a tree: cost-complexity and reduced-error pruning
=========================================================

A fully grown tree on noisy labels has a leaf for almost every noisy point. This example
grows one on data with 20% of the labels flipped and prunes it two ways:

* **cost-complexity pruning**: :meth:`~rotforest.DecisionTreeClassifier.cost_complexity_pruning_path`
  gives the sequence of subtrees, and cross-validation picks ``ccp_alpha``;
* **reduced-error pruning**: ``validation_fraction=0.3`` grows the tree on 70% of the
  training data and prunes it on the other 30%, in one fit.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, train_test_split

from rotforest import DecisionTreeClassifier

X, y = make_classification(n_samples=3000, n_features=10, n_informative=5, flip_y=0.2,
                           random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

full = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
print(f"fully grown: {full.get_n_leaves()} leaves, "
      f"held-out accuracy {full.score(X_test, y_test):.3f}")

# %%
# The pruning path: every alpha at which the pruned tree changes, with the total
# impurity of its leaves. Cross-validation over (a thinned list of) these alphas picks
# one.

path = full.cost_complexity_pruning_path(X_train, y_train)
alphas = path.ccp_alphas[:-1]                     # the last alpha leaves only the root
candidates = np.unique(np.quantile(alphas, np.linspace(0, 1, 30)))
search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": candidates},
                      cv=5).fit(X_train, y_train)
best = search.best_estimator_
print(f"cost-complexity, ccp_alpha={search.best_params_['ccp_alpha']:.5f}: "
      f"{best.get_n_leaves()} leaves, held-out accuracy {best.score(X_test, y_test):.3f}")

reduced = DecisionTreeClassifier(validation_fraction=0.3, random_state=0).fit(X_train,
                                                                              y_train)
print(f"reduced-error (30% held out for pruning): {reduced.get_n_leaves()} leaves, "
      f"held-out accuracy {reduced.score(X_test, y_test):.3f}")

# %%
# Leaves and accuracy along the path. The held-out accuracy (computed here only to draw
# the curve; the choice above used cross-validation on the training part) rises as the
# noise-fitting branches go, then falls once real structure is pruned.

leaves, held_out = [], []
for alpha in candidates:
    tree = DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X_train, y_train)
    leaves.append(tree.get_n_leaves())
    held_out.append(tree.score(X_test, y_test))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
ax1.plot(path.ccp_alphas, path.impurities, drawstyle="steps-post")
ax1.set_xlabel("effective alpha")
ax1.set_ylabel("total impurity of the leaves")
ax1.set_title("Cost-complexity pruning path")
ax2.semilogx(leaves, held_out, "o-", ms=3, label="ccp_alpha along the path")
ax2.semilogx(leaves, search.cv_results_["mean_test_score"], "s--", ms=3, alpha=0.7,
             label="5-fold CV accuracy (used to choose)")
ax2.semilogx([full.get_n_leaves()], [full.score(X_test, y_test)], "kx", ms=9,
             label="fully grown")
ax2.semilogx([reduced.get_n_leaves()], [reduced.score(X_test, y_test)], "r^", ms=8,
             label="reduced-error pruning")
ax2.axvline(best.get_n_leaves(), color="0.6", lw=0.8)
ax2.set_xlabel("leaves (log scale)")
ax2.set_ylabel("accuracy")
ax2.set_title("Smaller trees generalise better on noisy labels")
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The pruned tree is small enough to read. scikit-learn's exporters work on rotforest's
# trees:

from sklearn.tree import export_text  # noqa: E402

small = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X_train, y_train)
print(export_text(small, feature_names=[f"x{i}" for i in range(X.shape[1])]))
