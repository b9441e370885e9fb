"""The house rules of the package's source, read from the files themselves:

* no function in rotforest/ is longer than ``MAX_LINES`` lines, docstring included
  (``def``/``cdef``/``cpdef`` in .py, .pyx, .pxi and .pxd files, by indentation; C
  functions and multi-line macros in .h files, by brace matching);
* the modules of rotforest/ import one another without a cycle (``from rotforest.x
  import``, ``from . import x``, ``import rotforest.x``, at any level of the file:
  an import inside a function counts as an edge too; the package's ``__init__``, which
  every submodule's import runs first, counts with its own imports only);
* the C headers use GCC's and Clang's extensions only through _compiler.h's macros or
  inside ``#if RF_X86_AVX512`` (MSVC builds the rest), and the version is meson.build's
  alone.

Run as a script, it lists every function's length (longest first) and the import graph's
cycles:  ``python tests/test_house.py [--all]``.
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "rotforest")
MAX_LINES = 150

# A Python/Cython function's first line: def, cpdef, or cdef followed by a return type
# and a name with its opening parenthesis (cdef class/struct/enum/extern and variable
# declarations do not match: a declaration has no "(" before its "=", and a signature
# ends with ":" once its parentheses close).
_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?(?:def|cpdef|cdef)\s+"
                     r"(?!class\b|struct\b|enum\b|union\b|extern\b|packed\b|fused\b)"
                     r"([^=(]*?)([A-Za-z_]\w*)\s*\(")


def _sources(exts):
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(exts):
            yield os.path.join(PACKAGE, name)


def _indent(line):
    return len(line) - len(line.lstrip())


def _signature_end(lines, i):
    """The index of the line that closes the signature starting at line i, or None when
    the statement is not a definition (a forward declaration has no ':')."""
    depth = 0
    for j in range(i, min(i + 40, len(lines))):
        code = lines[j].split("#", 1)[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0:
            return j if code.rstrip().endswith(":") else None
    return None


def _in_long_strings(lines):
    """Per line, whether it starts inside a triple-quoted string (whose lines may have
    any indentation)."""
    inside, quote = [], None
    for line in lines:
        inside.append(quote is not None)
        k = 0
        while True:
            if quote is None:
                code = line[k:].split("#", 1)[0]
                hits = [(code.find(q), q) for q in ('"""', "'''") if q in code]
                if not hits:
                    break
                at, quote = min(hits)
                k += at + 3
            else:
                at = line.find(quote, k)
                if at < 0:
                    break
                quote, k = None, at + 3
    return inside


def python_functions(path):
    """(name, first line, number of lines) of every def/cdef/cpdef function in a Python
    or Cython file: from its signature to its last non-blank line more indented than
    the signature (nested functions are listed too, and count in their parent)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    inside = _in_long_strings(lines)
    found = []
    for i, line in enumerate(lines):
        m = None if inside[i] else _PY_DEF.match(line)
        if m is None:
            continue
        end = _signature_end(lines, i)
        if end is None:
            continue
        level, last = len(m.group(1)), end
        for j in range(end + 1, len(lines)):
            if not lines[j].strip() or inside[j]:
                if inside[j]:
                    last = j
                continue
            if _indent(lines[j]) <= level:
                break
            last = j
        found.append((m.group(3), i + 1, last - i + 1))
    return found


def _strip_c(text):
    """C source with comments and string/char literals blanked (newlines kept), so that
    braces and parentheses can be counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(q + " " * (j - i - 1) + q)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def c_functions(path):
    """(name, first line, number of lines) of every function defined in a C header (from
    its signature's first line to its closing brace) and of every multi-line macro."""
    with open(path, encoding="utf-8") as fh:
        raw = fh.read().split("\n")
    lines = _strip_c("\n".join(raw)).split("\n")
    found, code, i = [], [], 0
    while i < len(lines):                  # macros out, measured on their own
        m = re.match(r"\s*#\s*define\s+(\w+)", lines[i])
        start = i
        while raw[i].rstrip().endswith("\\"):
            code.append("")
            i += 1
        if re.match(r"\s*#", lines[start]):
            if m and i > start:
                found.append((m.group(1), start + 1, i - start + 1))
            code.append("")
        else:
            code.append(lines[i])
        i += 1
    depth, head, head_line = 0, [], None
    for number, line in enumerate(code, 1):
        for k, ch in enumerate(line):
            if depth == 0 and ch not in "{};" and not ch.isspace() and head_line is None:
                head_line = number
            if ch == "{":
                if depth == 0:
                    name = _c_name("".join(head) + line[:k])
                    opened = (name, head_line or number)
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    if opened[0] is not None:
                        found.append((opened[0], opened[1], number - opened[1] + 1))
                    head, head_line = [], None
                    continue
            elif ch == ";" and depth == 0:
                head, head_line = [], None
                continue
        if depth == 0 and re.match(r"\s*[A-Z][A-Z0-9_]*\(.*\)\s*$", line):
            head, head_line = [], None     # a macro's use at the top level: RF_X(a, b)
        elif depth == 0 and head_line is not None:
            head.append(line + "\n")
    return found


def _c_name(head):
    """The function's name in the text before a top-level '{', or None when the block is
    not a function body (a struct, an enum, an initializer, extern "C")."""
    head = head.strip()
    while True:                            # trailing __attribute__((...)) groups
        m = re.search(r"__attribute__\s*\(\(.*\)\)\s*$", head, re.S)
        if m is None or not head.endswith(")"):
            break
        head = head[:m.start()].rstrip()
    if not head.endswith(")") or "=" in head.split("(")[0]:
        return None
    depth = 0
    for k in range(len(head) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(head[k], 0)
        if depth == 0:
            m = re.search(r"([A-Za-z_]\w*)\s*$", head[:k])
            return m.group(1) if m else None
    return None


def function_lengths():
    """(length, file, line, name) of every function in rotforest/, longest first."""
    rows = []
    for path in _sources((".py", ".pyx", ".pxi", ".pxd")):
        rows += [(n, os.path.basename(path), line, name)
                 for name, line, n in python_functions(path)]
    for path in _sources((".h",)):
        rows += [(n, os.path.basename(path), line, name)
                 for name, line, n in c_functions(path)]
    return sorted(rows, reverse=True)


def import_graph():
    """{module: set of rotforest modules it imports} over rotforest/*.py, counting imports
    at every level of a file (inside functions too)."""
    modules = {os.path.basename(p)[:-3] for p in _sources((".py",))}
    graph = {}
    for path in _sources((".py",)):
        name = os.path.basename(path)[:-3]
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        edges = set()
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:                       # relative: from . import x / from .x
                    base = "rotforest" + ("." + base if base else "")
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                parts = t.split(".")
                if parts[0] == "rotforest" and len(parts) > 1 and parts[1] in modules:
                    edges.add(parts[1])
        edges.discard(name)
        graph[name] = edges
    return graph


def import_cycles(graph):
    """The graph's cycles, one per strongly connected component of more than one module
    (Tarjan's algorithm), each as a sorted list of modules."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_parser_finds_the_known_functions():
    """The parsers see functions of every kind of file (a guard against a parser that
    silently finds nothing, and so passes everything)."""
    names = {(f, name) for _, f, _, name in function_lengths()}
    for expected in [("_builder.pyx", "build_tree"), ("_split.pxi", "_find_split"),
                     ("_sparse.pxi", "_sparse_scan"), ("tree.py", "fit"),
                     ("_simd.h", "rf_cpu_has_avx512"), ("_values.h", "RF_GATHER_FLOATS")]:
        assert expected in names, expected


def test_parsers_on_small_sources(tmp_path):
    py = tmp_path / "a.pyx"
    py.write_text("cdef int x = f(1)\n"
                  "cdef void g(int a,\n"
                  "            int b) noexcept nogil:\n"
                  "    '''doc'''\n"
                  "\n"
                  "    a = b\n"
                  "cdef void h(int a) noexcept nogil\n"
                  "def k():\n"
                  "    def inner():\n"
                  "        pass\n"
                  "    return inner\n")
    assert python_functions(str(py)) == [("g", 2, 5), ("k", 8, 4), ("inner", 9, 2)]
    h = tmp_path / "a.h"
    h.write_text("struct s { int a; };\n"
                 "static inline __attribute__((target(\"avx512f\"))) int\n"
                 "f(int a) {  /* } */\n"
                 "    if (a) { return 1; }\n"
                 "    return '}';\n"
                 "}\n"
                 "#define M(x) \\\n"
                 "    do { x; } while (0)\n"
                 "static const int t[2] = {1, 2};\n")
    assert sorted(c_functions(str(h))) == [("M", 7, 2), ("f", 2, 5)]


def test_no_function_is_too_long():
    long = [f"{f}:{line} {name}: {n} lines" for n, f, line, name in function_lengths()
            if n > MAX_LINES]
    assert not long, f"functions over {MAX_LINES} lines: " + "; ".join(long)


def test_no_import_cycle():
    cycles = import_cycles(import_graph())
    assert not cycles, "rotforest modules import one another in a cycle: " + "; ".join(
        " <-> ".join(c) for c in cycles)


if __name__ == "__main__":
    show_all = "--all" in sys.argv
    for n, f, line, name in function_lengths():
        if show_all or n > 100:
            print(f"{n:5d}  {f}:{line}  {name}")
    for cycle in import_cycles(import_graph()):
        print("import cycle:", " <-> ".join(cycle))


# GCC's and Clang's extensions in the C headers: only in _compiler.h and _prefetch.h
# (which define portable macros) or inside ``#if RF_X86_AVX512`` (kernels compiled
# with GCC or Clang only), so that MSVC builds the rest
_GNU_ONLY = re.compile(r"__attribute__|__builtin_")


def gnu_extensions_outside_guards(text):
    """The lines (numbers) of ``text`` (a C header) that use __attribute__ or a
    __builtin_ outside an ``#if RF_X86_AVX512`` block (its #else part is outside)."""
    found, stack = [], []
    for number, line in enumerate(text.splitlines(), 1):
        directive = line.strip()
        if directive.startswith("#if"):
            stack.append(directive.split("//")[0].split("/*")[0].strip()
                         == "#if RF_X86_AVX512")
        elif directive.startswith(("#else", "#elif")) and stack:
            stack[-1] = False
        elif directive.startswith("#endif") and stack:
            stack.pop()
        elif _GNU_ONLY.search(line.split("/*")[0]) and not any(stack):
            found.append(number)
    return found


def test_headers_are_portable_to_other_compilers():
    assert gnu_extensions_outside_guards(
        "#if RF_X86_AVX512\n__builtin_popcount(x);\n#else\nint a;\n#endif\n") == []
    assert gnu_extensions_outside_guards(
        "#if RF_X86_AVX512\nint a;\n#else\n__builtin_ctz(x);\n#endif\n"
        "static __attribute__((cold)) void f(void);\n") == [4, 6]
    offenders = {}
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".h") and name not in ("_compiler.h", "_prefetch.h"):
            with open(os.path.join(PACKAGE, name)) as f:
                lines = gnu_extensions_outside_guards(f.read())
            if lines:
                offenders[name] = lines
    assert not offenders, ("GCC/Clang extensions outside #if RF_X86_AVX512 (use "
                           f"_compiler.h's macros): {offenders}")


def test_the_version_is_meson_builds():
    """One version: meson.build's project(); pyproject.toml declares it dynamic and
    rotforest.__version__ is the installed package's."""
    import rotforest
    with open(os.path.join(ROOT, "meson.build")) as f:
        version = re.search(r"project\([^)]*?version:\s*'([^']+)'", f.read(), re.S).group(1)
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        project = f.read().split("[project]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^dynamic\s*=\s*\[[^]]*"version"', project, re.M)
    assert not re.search(r"^version\s*=", project, re.M)
    assert rotforest.__version__ == version
    with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
        assert f"## {version} " in f.read()      # the release has its section
