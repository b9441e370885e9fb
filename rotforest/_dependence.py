"""Partial dependence by weighted tree traversal (work in progress)."""
