"""Every layer Lamina exports has at least one harness case somewhere under tests/layers."""
import importlib
import pathlib

import lamina
from lamina.layers import Layer

ROOT = pathlib.Path(__file__).resolve().parent
NOT_LAYERS_UNDER_TEST = {"Layer", "InputLayer",   # the base, and Input's holder (tested
                                                  # by every functional model test)
                         "Wrapper"}               # abstract (no call): core/test_wrapper.py
# Layers the harness cannot feed (it calls layers on float tensors and symbolic Inputs):
# they work on host strings/ints outside the graph; dedicated tests in
# tests/layers/preprocessing/test_lookup_layers.py and test_text_vectorization.py.
HOST_DATA_LAYERS = {"StringLookup", "IntegerLookup", "Hashing", "HashedCrossing",
                    "TextVectorization"}


def _all_cases():
    cases = []
    for path in sorted(ROOT.rglob("test_*.py")):
        module = ".".join(path.relative_to(ROOT.parent.parent).with_suffix("").parts)
        cases.extend(getattr(importlib.import_module(module), "CASES", []))
    return cases


def test_every_exported_layer_has_a_harness_case():
    covered = {case.cls for case in _all_cases()}
    exported = {getattr(lamina.layers, name) for name in lamina.layers.__all__}
    layer_classes = {cls for cls in exported if isinstance(cls, type) and
                     issubclass(cls, Layer) and cls.__name__ not in NOT_LAYERS_UNDER_TEST
                     and cls.__name__ not in HOST_DATA_LAYERS}
    missing = sorted(cls.__name__ for cls in layer_classes - covered)
    assert not missing, f"layers without a LayerCase in tests/layers: {missing}"


def test_the_walk_finds_cases():
    assert any(case.cls is lamina.layers.Dense for case in _all_cases())
