"""Every layer class in every CI run: seed ``k`` features the ``k % N``-th of the N layer
classes ``lamina.layers`` exports, and the model it generates starts with that layer (or,
for a merging layer, with a two-branch merge by it; for a first-layer-only class, on the
input it needs). The rest of the model is random as before. A class that no rule can
generate is not featured, and the coverage test (tests/graph/test_fuzz_coverage.py) fails
until a rule for it is added to a catalogue.
"""
from __future__ import annotations

import random
import re

import lamina

from . import catalogue, catalogue_inputs, catalogue_merges
from .catalogue import Choice

# Exported classes the fuzzer does not generate as layers of their own, and why.
EXCLUDED = {
    "Layer": "the base class: every generated layer is one",
    "InputLayer": "made by lamina.Input in every functional and Sequential model",
    "Wrapper": "an abstract base (no call); SpectralNormalization is one",
    **{name: "works on host strings/ints outside the graph (no string tensors): refuses "
             "symbolic inputs" for name in ("StringLookup", "IntegerLookup", "Hashing",
                                            "HashedCrossing", "TextVectorization")},
}
MERGE_NAMES = ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
               "Concatenate", "Dot", "Attention", "AdditiveAttention")
SEQUENTIAL_KINDS = ("sequential", "gan")


def layer_classes() -> dict:
    """{class: name} for every layer class ``lamina.layers`` exports, one entry per class
    object (the aliases MaxPool2D, Convolution1D, ... are the classes MaxPooling2D, ...)."""
    found = {}
    for name in sorted(dir(lamina.layers)):
        obj = getattr(lamina.layers, name)
        if isinstance(obj, type) and issubclass(obj, lamina.layers.Layer):
            if obj not in found or name == obj.__name__:
                found[obj] = name
    return found


def classes_in(source: str) -> set:
    """The layer classes a model's source constructs (``layers.Name(``), as objects."""
    return {getattr(lamina.layers, n) for n in re.findall(r"layers\.([A-Z]\w*)\(", source)
            if isinstance(getattr(lamina.layers, n, None), type)}


def featured_names() -> list:
    return sorted(n for n in layer_classes().values() if n not in EXCLUDED)


def random_shape(r, rank):
    if rank == 1:
        return (r.randint(2, 8),)
    if rank == 2:
        return (r.randint(3, 7), r.randint(1, 4))
    if rank == 3:
        return (r.randint(4, 6), r.randint(4, 6), r.randint(1, 3))
    return (r.randint(3, 4), r.randint(3, 4), r.randint(3, 4), r.randint(1, 2))


_PRODUCERS: dict = {}


def _producers(rules, name):
    """The rules that can write ``layers.<name>(`` (found once by sampling each rule)."""
    if not _PRODUCERS:
        for rule in dict.fromkeys(rules):
            for rank in (1, 2, 3, 4):
                for i in range(12):
                    r = random.Random(i)
                    choice = rule(r, random_shape(r, rank))
                    if choice is not None:
                        for found in re.findall(r"layers\.([A-Z]\w*)\(", choice.code):
                            _PRODUCERS.setdefault(found, {})[rule] = None
    return list(_PRODUCERS.get(name, ()))


def _same_shape(r, shapes, shape):
    for _ in range(10):
        choice = r.choice(catalogue.SAME_SHAPE)(r, shape)
        if choice is not None and shapes.apply(choice, shape) == shape:
            return choice
    return None


def start(seed, r, shapes, kind, rules, stmt_type):
    """The start of seed's model: (kind, input shape, vocabulary, statements, shape after
    them), or None when the featured class does not fit (the generator starts randomly)."""
    names = featured_names()
    name = names[seed % len(names)]
    if name in catalogue_inputs.NAMES:
        if kind == "gan":
            kind = r.choice(["sequential", "functional", "subclass", "custom_step"])
        shape, vocab, codes = catalogue_inputs.first(r, name)
        out = shapes.chain(codes, shape, "int32" if vocab else None)
        if out is None:
            return None
        return kind, shape, vocab, [stmt_type("layer", [Choice(c)]) for c in codes], out
    if kind in SEQUENTIAL_KINDS and name in MERGE_NAMES:
        kind = r.choice(["functional", "subclass", "custom_step"])
    for _ in range(80):
        shape = random_shape(r, r.choice([1, 2, 3, 4]))
        if name in MERGE_NAMES:
            code = catalogue_merges.merge(r, shape, name)
            out = shapes.merge(code, shape)
            if out is None:
                continue
            # one branch transforms h: merging h with itself is degenerate (h - h == 0)
            layer = _same_shape(r, shapes, shape)
            if layer is not None:
                return kind, shape, 0, [stmt_type("branch", [], [layer], merge=code)], out
            continue
        producers = _producers(rules, name)
        if not producers:
            return None
        choice = r.choice(producers)(r, shape)
        if choice is None or f"layers.{name}(" not in choice.code:
            continue
        out = shapes.apply(choice, shape)
        if out is not None:
            if kind in SEQUENTIAL_KINDS and not choice.sequential:
                kind = r.choice(["functional", "subclass", "custom_step"])
            return kind, shape, 0, [stmt_type("layer", [choice])], out
    return None
