"""The documentation pages hold what a reader needs: every public estimator named on the
front page of the docs, and the project's facts rather than the story of its making."""
import inspect
import re
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import rotforest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
PAGES = [p for p in PAGES if "auto_examples" not in p.parts and "_build" not in p.parts]

ESTIMATORS = sorted(name for name in rotforest.__all__
                    if inspect.isclass(getattr(rotforest, name))
                    and issubclass(getattr(rotforest, name), BaseEstimator))


def test_there_are_pages_to_check():
    """The checks below read the source tree's docs: without them they would pass on
    nothing."""
    assert (ROOT / "docs" / "index.md").is_file()
    assert len(PAGES) > 10
    assert len(ESTIMATORS) >= 13


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_docs_index_names_every_public_estimator(name):
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.search(rf"\b{name}\b", index), f"docs/index.md does not name {name}"


# "the seventeenth session", "this session", "in session 12": the history of the work,
# which belongs in commit messages.  (An ONNX Runtime InferenceSession is another word.)
_HISTORY = re.compile(r"\b(\w+(st|nd|rd|th)|this|last|previous|earlier|next) sessions?\b"
                      r"|\bsessions? \d+\b", re.IGNORECASE)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_pages_speak_of_the_project_not_of_sessions(page):
    hits = [f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            if _HISTORY.search(line)]
    assert not hits, "\n".join(hits)
