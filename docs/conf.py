"""Sphinx configuration of rotforest's documentation.

Build with the package installed (``pip install ".[docs]"``)::

    sphinx-build -W -b html docs docs/_build/html

The API reference is generated from the docstrings of the installed package; the
examples in ``examples/`` are run by sphinx-gallery on small data (seconds). The benchmark
figures under ``docs/images/`` are produced by the scripts in ``benchmarks/`` and
committed; they are not recomputed here.
"""
import os
from datetime import date

import rotforest

project = "rotforest"
author = "rotforest developers"
copyright = f"{date.today().year}, {author}"
version = release = rotforest.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints",
                    "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.codeobj.json"]
templates_path = ["_templates"]

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# API reference: one page per class or function, written by autosummary from the
# docstrings (numpydoc format).
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# numpydoc checks the docstrings while building: with -W a missing section fails the build.
numpydoc_validation_checks = {"PR01", "PR02", "PR03", "PR10", "RT01", "GL02", "GL03",
                              "GL06", "GL07", "SS01"}
numpydoc_validation_exclude = {r"\.__init__$", r"\.set_.*_request$", r"\.get_params$",
                               r"\.set_params$", r"\.get_metadata_routing$", r"\.score$"}

sphinx_gallery_conf = {
    "examples_dirs": os.path.join("..", "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "doc_module": ("rotforest",),
    "backreferences_dir": os.path.join("generated", "backreferences"),
    "reference_url": {"rotforest": None},
}

html_theme = "pydata_sphinx_theme"
html_title = f"rotforest {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": []}
html_show_sourcelink = False
