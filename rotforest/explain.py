"""Exact SHAP values of every estimator (work in progress)."""
