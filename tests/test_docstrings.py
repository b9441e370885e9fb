"""The docstrings of the public API: every example runs and prints what it says, and every
public class, method and function documents its parameters (numpydoc format).

The modules are imported as installed (the suite runs with ``--import-mode=importlib``),
so the examples run against the compiled package."""
import doctest
import importlib
import inspect
import re

import numpy as np
import pytest

import rotforest

MODULES = ["rotforest", "rotforest.tree", "rotforest.forest", "rotforest.extra",
           "rotforest.rotation",
           "rotforest.pruning", "rotforest.explain", "rotforest.quantile"]


def _public_objects():
    """name -> object: rotforest.__all__ (but __version__) and the public functions
    defined in rotforest.pruning."""
    out = {f"rotforest.{name}": getattr(rotforest, name)
           for name in rotforest.__all__ if name != "__version__"}
    pruning = importlib.import_module("rotforest.pruning")
    for name, obj in vars(pruning).items():
        if (not name.startswith("_") and inspect.isfunction(obj)
                and obj.__module__ == pruning.__name__):
            out[f"rotforest.pruning.{name}"] = obj
    return out


def _public_methods(cls):
    """Public methods and properties defined by ``cls`` or by rotforest's own (private)
    base classes, not those inherited from scikit-learn."""
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("rotforest"):
            continue
        for name, member in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            if inspect.isfunction(member) or isinstance(member, property):
                seen.add(name)
                yield name, member


def _doctests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = []
    for name in MODULES:
        module = importlib.import_module(name)
        tests.extend(t for t in finder.find(module) if t.examples)
    return sorted(tests, key=lambda t: t.name)


DOCTESTS = _doctests()
PUBLIC = _public_objects()


def test_the_public_api_is_what_the_docs_list():
    assert sorted(PUBLIC) == sorted([
        "rotforest.DecisionTreeClassifier", "rotforest.DecisionTreeRegressor",
        "rotforest.RandomForestClassifier", "rotforest.RandomForestRegressor",
        "rotforest.ExtraTreeClassifier", "rotforest.ExtraTreeRegressor",
        "rotforest.ExtraTreesClassifier", "rotforest.ExtraTreesRegressor",
        "rotforest.Explanation",
        "rotforest.RotationForestClassifier", "rotforest.RotationForestRegressor",
        "rotforest.explain", "rotforest.export_text", "rotforest.pruning.cost_complexity_path",
        "rotforest.pruning.prune_cost_complexity", "rotforest.pruning.prune_reduced_error",
        "rotforest.to_onnx", "rotforest.RandomForestQuantileRegressor",
        "rotforest.RotationForestQuantileRegressor", "rotforest.ExtraTreesQuantileRegressor",
    ])


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_docstring_example(test):
    """Run one docstring's examples; any output that differs fails."""
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    report = []
    with np.printoptions(legacy=False):
        runner.run(test, out=report.append, clear_globs=True)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def _sections(doc):
    """Names of the numpydoc sections in a docstring (underlined headings)."""
    lines = inspect.cleandoc(doc).splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip())}


def _documented_parameters(doc, section="Parameters"):
    """Parameter names listed in a numpydoc section (``name : type`` lines)."""
    lines = inspect.cleandoc(doc).splitlines()
    names, inside = [], False
    for i, line in enumerate(lines):
        if line.strip() == section and i + 1 < len(lines) and lines[i + 1].startswith("---"):
            inside = True
            continue
        if inside:
            if line.startswith("---"):
                continue
            if line and not line.startswith(" "):
                if i + 1 < len(lines) and lines[i + 1].startswith("---"):
                    break                     # the next section's heading
                names.extend(n.strip() for n in line.split(" : ")[0].split(","))
    return names


def _signature_parameters(func):
    return [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_object_has_a_complete_docstring(name):
    obj = PUBLIC[name]
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    sections = _sections(doc)
    assert "Parameters" in sections, f"{name}: no Parameters section"
    assert "Examples" in sections and ">>>" in doc.split("Examples")[-1], \
        f"{name}: no Examples section with an example"
    init = obj.__init__ if inspect.isclass(obj) else obj
    assert _documented_parameters(doc) == _signature_parameters(init), \
        f"{name}: the Parameters section does not list the signature's parameters in order"
    if inspect.isclass(obj):
        assert "Attributes" in sections, f"{name}: no Attributes section"
    else:
        assert "Returns" in sections, f"{name}: no Returns section"


@pytest.mark.parametrize("cls", [obj for obj in PUBLIC.values() if inspect.isclass(obj)],
                         ids=lambda c: c.__name__)
def test_public_methods_have_docstrings(cls):
    for name, member in _public_methods(cls):
        doc = inspect.getdoc(member)
        assert doc, f"{cls.__name__}.{name} has no docstring"
        sections = _sections(doc)
        assert "Returns" in sections, f"{cls.__name__}.{name}: no Returns section"
        if isinstance(member, property):
            continue
        params = _signature_parameters(member)
        if params:
            assert _documented_parameters(doc) == params, \
                f"{cls.__name__}.{name}: Parameters do not match the signature"


def test_fitted_attributes_are_documented():
    """Every fitted attribute (trailing underscore) that a fit sets is in the class's
    Attributes section."""
    from sklearn.datasets import load_iris

    from sklearn.datasets import load_diabetes

    for name in ("DecisionTreeClassifier", "RandomForestClassifier",
                 "RotationForestClassifier", "DecisionTreeRegressor",
                 "RandomForestRegressor", "RotationForestRegressor"):
        X, y = (load_diabetes if "Regressor" in name else load_iris)(return_X_y=True)
        cls = getattr(rotforest, name)
        params = {"n_estimators": 25} if "Forest" in name else {}
        if "Forest" in name:
            params["bootstrap"] = True
            params["oob_score"] = True
        est = cls(random_state=0, **params).fit(X, y)
        fitted = {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}
        documented = set(_documented_parameters(inspect.getdoc(cls), "Attributes"))
        assert fitted <= documented, f"{name}: undocumented {sorted(fitted - documented)}"


def test_numpydoc_validation():
    """numpydoc's own checks, when numpydoc is installed (it comes with the docs extra)."""
    validate = pytest.importorskip("numpydoc.validate")
    checks = {"GL02", "GL03", "GL06", "GL07", "PR01", "PR02", "PR03", "PR10", "RT01",
              "SS01"}
    objects = []
    for name, obj in PUBLIC.items():
        objects.append((name, obj))
        if inspect.isclass(obj):
            objects.extend((f"{name}.{m}", member) for m, member in _public_methods(obj))
    problems = []
    for name, obj in objects:
        # validated as objects, not by name, so that nothing is imported again
        result = validate.validate(validate.get_doc_object(obj))
        problems.extend(f"{name}: {code} {message}" for code, message in result["errors"]
                        if code in checks or (code == "EX01" and name in PUBLIC))
    assert not problems, "\n".join(problems)


def _all_docstrings():
    """Every docstring of the public objects, their methods and properties, and of
    the rotation forest's tree wrappers."""
    rotation = importlib.import_module("rotforest.rotation")
    objects = dict(PUBLIC, **{f"rotforest.rotation.{n}": getattr(rotation, n)
                              for n in ("RotatedTreeClassifier", "RotatedTreeRegressor")})
    for name, obj in objects.items():
        yield name, inspect.getdoc(obj) or ""
        if inspect.isclass(obj):
            for method, member in _public_methods(obj):
                target = member.fget if isinstance(member, property) else member
                yield f"{name}.{method}", inspect.getdoc(target) or ""


def test_doc_references_name_their_page_for_help_readers():
    """In ``help()`` a Sphinx reference is plain text: each ``:doc:`` names its page
    (``:doc:`Title </path>```), and the page exists (built docs would warn, help() would
    not)."""
    root = __import__("pathlib").Path(__file__).resolve().parents[1] / "docs"
    found = 0
    for name, doc in _all_docstrings():
        for ref in re.findall(r":doc:`([^`]*)`", doc):
            found += 1
            m = re.fullmatch(r"([^<>]+\S) <(/[\w/]+)>", ref)
            assert m, f"{name}: :doc:`{ref}` does not name its page"
            assert (root / (m.group(2).lstrip("/") + ".md")).exists() or \
                (root / (m.group(2).lstrip("/") + ".rst")).exists(), (name, ref)
    assert found >= 10


def test_shared_entries_are_written_in_at_their_place():
    """A docstring entry written once for several estimators (_docs.shared_entries)
    lands at the placeholder's indentation, as if written there; a docstring without the
    placeholder is refused."""
    from rotforest._docs import shared_entries

    entry = "depth : int, default=3\n    How deep.\n\n    Two paragraphs.\n"

    @shared_entries(depth=entry)
    class A:
        """Summary.

        Parameters
        ----------
        <depth>
        other : int
            Other.
        """

    class Written:      # the same docstring written out (Python 3.13 dedents them)
        """Summary.

        Parameters
        ----------
        depth : int, default=3
            How deep.

            Two paragraphs.
        other : int
            Other.
        """

    assert A.__doc__ == Written.__doc__
    with pytest.raises(ValueError, match="no <depth> line"):
        shared_entries(depth=entry)(type("B", (), {"__doc__": "Nothing."}))
    for name in ("DecisionTreeClassifier", "DecisionTreeRegressor",
                 "RandomForestClassifier", "RandomForestRegressor",
                 "RotationForestClassifier", "RotationForestRegressor"):
        doc = getattr(rotforest, name).__doc__
        assert "<max_bins>" not in doc and len(re.findall(r"^ *max_bins : ", doc,
                                                          flags=re.MULTILINE)) == 1
