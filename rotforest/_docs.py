"""Docstrings of estimators that differ from another one only in defaults (the extra
trees and their forests): the other's Parameters and Attributes sections, with the
defaults that differ written in, under a summary and examples of their own, so that the
long parameter lists are written once."""
import inspect
import re

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


def derived_docstring(base, summary, *, defaults=None, replace=(), see_also="",
                      examples=""):
    """The docstring of a variant of ``base`` (a class): ``summary`` (its own text
    before the sections), ``base``'s Parameters and Attributes with each parameter of
    ``defaults`` (name: the default as the docs show it) given that default, and the
    (old, new) pairs of ``replace`` applied to them; then ``see_also`` and
    ``examples`` (their sections' text)."""
    parts = _sections(base.__doc__)
    body = {}
    for title in ("Parameters", "Attributes"):
        text = parts[title]
        for name, value in (defaults or {}).items():
            text, n = re.subn(rf"^({re.escape(name)} : .*?default=)[^\n]+$",
                              rf"\g<1>{value}", text, flags=re.MULTILINE)
            if title == "Parameters" and n != 1:
                raise ValueError(f"{base.__name__}'s docstring has no default of {name}")
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
