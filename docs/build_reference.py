"""Build Lamina's API reference: one HTML page per Keras-shaped namespace (``lamina``,
``lamina.layers``, ``lamina.ops``, ...), made by pdoc from the docstrings, offline.

    pip install -e ".[docs]"
    python docs/build_reference.py [--out docs/reference]     # then open index.html

The namespaces are Keras 3's (tests/api/keras_api.json); Lamina's internal modules are
left out. ``gaps()`` lists the public names whose docstring is missing or not in Keras's
form (a summary line, then ``Args:`` for a callable taking arguments); the tests use it.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pathlib
import pkgutil
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def namespaces() -> list:
    """The Lamina modules of Keras 3's public namespaces (``keras.layers`` -> ``lamina.layers``)."""
    from tests.api import api_walk
    names = []
    for namespace in api_walk.load_reference():
        module = "lamina" + namespace[len("keras"):]
        try:
            if inspect.ismodule(importlib.import_module(module)):
                names.append(module)
        except ImportError:
            continue
    return sorted(set(names))


def _internal_modules(public: list) -> list:
    import lamina
    found = [m.name for m in pkgutil.walk_packages(lamina.__path__, "lamina.")]
    return sorted(set(found) - set(public))


def build(out: str) -> list:
    """Write the reference into ``out``; the pages' module names."""
    import pdoc
    import pdoc.render
    public = namespaces()
    pdoc.render.configure(docformat="google", footer_text="Lamina API reference",
                          show_source=False)
    with warnings.catch_warnings():     # pdoc notes modules reached by two namespaces
        warnings.simplefilter("ignore", UserWarning)
        pdoc.pdoc(*public, *("!" + m for m in _internal_modules(public)),
                  output_directory=pathlib.Path(out))
    return public


def _params(obj) -> list:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL,
                                                                p.VAR_KEYWORD)]


def gaps(namespaces_in_keras_form=()) -> dict:
    """{"missing": [...], "not in Keras's form": [...]}: public classes and functions
    without a docstring, and, in the namespaces given, those without ``Args:`` though
    they take arguments."""
    from tests.api import api_walk
    missing, informal = [], []
    for namespace, name, status, _ in api_walk.walk():
        if status not in ("present", "signature"):
            continue
        obj, _ = api_walk.lookup(namespace, name)
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        doc = obj.__doc__ or ""
        if not doc.strip():
            missing.append(f"{namespace}.{name}")
        elif namespace in namespaces_in_keras_form and _params(obj) and \
                "Args:" not in doc and "Arguments:" not in doc:
            informal.append(f"{namespace}.{name}")
    return {"missing": missing, "not in Keras's form": informal}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "reference"))
    args = parser.parse_args(argv)
    pages = build(args.out)
    print(f"{len(pages)} namespace pages in {args.out}")


if __name__ == "__main__":
    main()
