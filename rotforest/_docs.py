"""Estimators made from another one with other defaults or a few added parameters (the
extra trees and their forests, the quantile forests): an ``__init__`` with the other's
signature, its defaults replaced (``derived_init``), and a docstring with the other's
Parameters and Attributes sections, the new defaults written in, under a summary and
examples of their own (``derived_docstring``), so that the long parameter lists are
written once; and paragraphs that several estimators' docstrings share, written once
(``shared_entries``)."""
import inspect
import re
import textwrap

from rotforest._validation import store_params

_SECTION = re.compile(r"^(\w[\w ]*)\n-+\n", re.MULTILINE)


def _sections(doc):
    """A cleaned numpydoc docstring as {section title: its text, without the title};
    the text before the first section under ""."""
    doc = inspect.cleandoc(doc)
    heads = list(_SECTION.finditer(doc))
    out = {"": doc[:heads[0].start()] if heads else doc}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(doc)
        out[head.group(1)] = doc[head.end():end]
    return out


def _doc_value(value):
    """A default as the docstrings write it: strings in double quotes."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def with_defaults(parameters, defaults, base):
    """A Parameters section of ``base``'s docstring with the defaults of ``defaults``
    (name: value) written in; a clear error for a parameter it does not document."""
    for name, value in (defaults or {}).items():
        parameters, n = re.subn(rf"^({re.escape(name)} : .*?default=)[^\n]+$",
                                rf"\g<1>{_doc_value(value)}", parameters,
                                flags=re.MULTILINE)
        if n != 1:
            raise ValueError(f"{base.__name__}'s docstring has no default of {name}")
    return parameters


def derived_init(base, defaults=None, added=(), removed=()):
    """An ``__init__`` taking ``base``'s parameters but those named in ``removed``, with
    the defaults of ``defaults`` (name: value) in place of the base's, and the
    keyword-only parameters ``added`` ((name, default) pairs) after them, with that
    signature (scikit-learn's get_params reads it); it stores its arguments as they
    are."""
    signature = inspect.signature(base.__init__)
    signature = signature.replace(parameters=[
        p for p in signature.parameters.values() if p.name not in removed])
    defaults = dict(defaults or {})
    unknown = set(defaults) - set(signature.parameters)
    if unknown:
        raise ValueError(f"{base.__name__} has no parameter {sorted(unknown)}")
    params = [p.replace(default=defaults[p.name]) if p.name in defaults else p
              for p in signature.parameters.values()]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
               for name, default in added]
    signature = signature.replace(parameters=params)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        store_params(self, bound.arguments)

    __init__.__signature__ = signature
    return __init__


def without_entries(text, names):
    """A Parameters or Attributes section without the entries ``names`` (each entry's
    line and its indented description)."""
    for name in names:
        text = re.sub(rf"^{re.escape(name)} : [^\n]*\n(?:(?: {{4}}[^\n]*)?\n)*?"
                      rf"(?=\S|\Z)", "", text, flags=re.MULTILINE)
    return text


def derived_docstring(base, summary, *, defaults=None, replace=(), see_also="",
                      examples="", removed=()):
    """The docstring of a variant of ``base`` (a class): ``summary`` (its own text
    before the sections), ``base``'s Parameters and Attributes with each parameter of
    ``defaults`` (name: value, as derived_init takes them) given that default, and the
    (old, new) pairs of ``replace`` applied to them; then ``see_also`` and
    ``examples`` (their sections' text); the parameters ``removed`` (and their fitted
    attributes, the names with a trailing underscore) are left out."""
    parts = _sections(base.__doc__)
    body = {}
    for title in ("Parameters", "Attributes"):
        text = parts[title]
        if title == "Parameters":
            text = with_defaults(text, defaults, base)
        text = without_entries(text, removed if title == "Parameters"
                               else [name + "_" for name in removed])
        for old, new in replace:
            text = text.replace(old, new)
        body[title] = text
    out = [inspect.cleandoc(summary), ""]
    for title, text in (("Parameters", body["Parameters"]),
                        ("Attributes", body["Attributes"]),
                        ("See Also", inspect.cleandoc(see_also) if see_also else ""),
                        ("Examples", inspect.cleandoc(examples) if examples else "")):
        if text:
            out += [title, "-" * len(title), text.rstrip("\n"), ""]
    return "\n".join(out)


def shared_entries(**entries):
    """A class decorator writing each of ``entries`` (name: a numpydoc entry, its first
    line ``name : type`` unindented, its description indented four spaces) into the
    class's docstring in place of a line holding only ``<name>``, at that line's
    indentation: text that several estimators' docstrings share, written once."""
    def fill(cls):
        doc = cls.__doc__
        for name, text in entries.items():
            lines = textwrap.dedent(text).strip("\n").splitlines()
            found = re.search(rf"^( *)<{re.escape(name)}>$", doc, flags=re.MULTILINE)
            if found is None:
                raise ValueError(f"{cls.__name__}'s docstring has no <{name}> line")
            indent = found.group(1)
            doc = doc[:found.start()] + "\n".join(
                indent + line if line else line for line in lines) + doc[found.end():]
        cls.__doc__ = doc
        return cls
    return fill
