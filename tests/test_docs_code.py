"""Every ```python block of README.md and of the docs' Markdown pages runs as written.

A reader copies one block into a fresh interpreter: each block runs here on its own, in a
new namespace (``__name__ == "__main__"``, as in a script), in an empty working
directory, with matplotlib on its non-interactive Agg backend.  One test per block,
named ``page:line`` (the line of the opening fence).

- A block that imports an optional package (dask, shap, onnx, onnxruntime, skl2onnx,
  pandas, polars, pyarrow, matplotlib), or calls something that needs one (``to_onnx``,
  ``.to_shap()``, ``as_frame=True``, ``PartialDependenceDisplay``), is skipped, with
  the package named, when that package is not installed.
- A block that reads ``../shared/...`` (the data sets beside the project) is skipped when
  that path is absent; it runs in a directory whose ``../shared`` is the project's.
- A block that cannot run on its own (a cluster's address, say) is marked in its page
  by an HTML comment on the line before its fence, ``<!-- not-standalone: reason -->``,
  and is reported here as skipped with that reason.  Prefer a block that runs.

Only ```python (or ```py, ```python3, ```{code-block} python) fences are run: ```bash,
```text and bare fences (console output) are not.
"""
import ast
import importlib.util
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

_EXCLUDED_DIRS = {"auto_examples", "_build", "build", "generated", "node_modules",
                  ".ipynb_checkpoints"}
PAGES = [ROOT / "README.md"] + sorted(
    p for p in (ROOT / "docs").rglob("*.md")
    if not _EXCLUDED_DIRS.intersection(p.relative_to(ROOT / "docs").parts))

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>.*?)\s*$")
_PYTHON_INFO = re.compile(r"^(python3?|py|\{code-block\}\s+python3?|\{code\}\s+python3?)$",
                          re.IGNORECASE)
_MARKER = re.compile(r"<!--\s*not-standalone:\s*(?P<reason>.*?)\s*-->")

# Optional packages, by the top-level name a block imports, and the package that a
# missing one is reported as.
OPTIONAL = {"dask": "dask", "distributed": "dask[distributed]", "shap": "shap",
            "onnx": "onnx", "onnxruntime": "onnxruntime", "skl2onnx": "skl2onnx",
            "pandas": "pandas", "polars": "polars", "pyarrow": "pyarrow",
            "matplotlib": "matplotlib"}
# Calls that need an optional package although the block does not import it.
IMPLIED = [(re.compile(r"\bto_onnx\b"), "onnx"),
           (re.compile(r"\.to_shap\("), "shap"),
           (re.compile(r"\bas_frame\s*=\s*True\b"), "pandas"),
           (re.compile(r"\bPartialDependenceDisplay\b|\bDecisionBoundaryDisplay\b"),
            "matplotlib"),
           (re.compile(r"""\bbackend\s*=\s*["']dask["']"""), "distributed")]
_SHARED_PATH = re.compile(r"""\.\./shared(?:/[^\s"')]*)?""")


def _blocks(page):
    """(line of the opening fence, source, not-standalone reason or None) of each python
    block of a page.  Directive fences (```{note}) are scanned inside, so that a python
    block nested in one is found too."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, directives, i = [], [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info = match["fence"], match["info"]
        if (not info and directives and fence[0] == directives[-1][0]
                and len(fence) >= len(directives[-1])):
            directives.pop()    # the end of a directive
            i += 1
            continue
        if info.startswith("{") and not _PYTHON_INFO.match(info):
            directives.append(fence)    # a directive: its content is scanned on
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not (
                lines[end].strip().startswith(fence[0] * len(fence))
                and not lines[end].strip().strip(fence[0])):
            end += 1
        if _PYTHON_INFO.match(info):
            body = lines[i + 1:end]
            while body and body[0].lstrip().startswith(":") and info.startswith("{"):
                body = body[1:]     # the directive's options
            previous = next((line for line in reversed(lines[:i]) if line.strip()), "")
            marker = _MARKER.search(previous)
            indent = len(match["indent"])
            source = "\n".join(line[indent:] if line[:indent].isspace() else line
                               for line in body)
            found.append((i + 1, source + "\n", marker["reason"] if marker else None))
        i = end + 1
    return found


def _collect():
    params = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        for line, source, reason in _blocks(page):
            params.append(pytest.param(page, line, source, reason, id=f"{name}:{line}"))
    return params


BLOCKS = _collect()


def _without_comments(source):
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type != tokenize.COMMENT]
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError):
        return source


def _needed(source):
    """The optional packages a block needs: those it imports, and those its calls imply."""
    names = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None         # the test reports it when it compiles the block
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
            if node.module.startswith("dask.distributed"):
                names.add("distributed")
    code = _without_comments(source)
    names.update(name for pattern, name in IMPLIED if pattern.search(code))
    return sorted(name for name in names if name in OPTIONAL)


def _missing(name):
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return True


def _missing_optional(exc):
    """The optional package whose absence raised exc (along its chain of causes), if any."""
    while exc is not None:
        if isinstance(exc, ModuleNotFoundError) and exc.name:
            top = exc.name.split(".")[0]
            if top in OPTIONAL and _missing(top):
                return top
        exc = exc.__cause__ or exc.__context__
    return None


def test_the_pages_have_python_blocks():
    """Without pages or blocks the tests below would pass on nothing."""
    assert (ROOT / "README.md").is_file() and (ROOT / "docs" / "index.md").is_file()
    assert len(BLOCKS) >= 20


@pytest.mark.parametrize("page, line, source, reason", BLOCKS)
def test_block_runs_on_its_own(page, line, source, reason, tmp_path, monkeypatch):
    if reason is not None:
        pytest.skip(f"marked not standalone in the page: {reason}")
    for name in _needed(source):
        if _missing(name):
            pytest.skip(f"needs {OPTIONAL[name]} (not installed)")
    for path in _SHARED_PATH.findall(source):
        if not (ROOT / path).exists():
            pytest.skip(f"needs {path} (the shared data beside the project), absent")

    work = tmp_path / "work"
    work.mkdir()
    if SHARED.exists():
        (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if "matplotlib" in sys.modules:
        import matplotlib
        matplotlib.use("Agg", force=True)

    # compiled as the page's own lines, so that a traceback quotes the page
    code = compile("\n" * line + source, str(page), "exec")
    namespace = {"__name__": "__main__", "__file__": str(work / "block.py"),
                 "__builtins__": __builtins__}
    try:
        exec(code, namespace)
    except ImportError as exc:
        missing = _missing_optional(exc)
        if missing is None:
            raise
        pytest.skip(f"needs {OPTIONAL[missing]} (not installed)")
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


def test_the_collector_takes_python_blocks_only(tmp_path):
    """bash, text and bare (output) fences are not run; a python block inside a directive
    is; the marker comment on the line before a fence is read."""
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "# A page", "", "```bash", "pip install rotforest", "```", "",
        "```python", "x = 1", "```", "", "```", "1", "```", "",
        "````{note}", "```python", "y = 2", "```", "````", "",
        "<!-- not-standalone: needs a cluster -->", "```python", "z = 3", "```", "",
        "```text", "output", "```"]) + "\n", encoding="utf-8")
    assert _blocks(page) == [(7, "x = 1\n", None), (16, "y = 2\n", None),
                             (22, "z = 3\n", "needs a cluster")]
    assert _needed("import pandas as pd\nfrom dask.distributed import Client\n"
                   "model = to_onnx(m)  # ex.to_shap() in a comment\n") == [
        "dask", "distributed", "onnx", "pandas"]
