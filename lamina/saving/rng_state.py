"""The random generators' states, to save and restore so that a resumed run draws what an
uninterrupted one would have drawn:

- numpy's global generator (``fit``'s shuffling, see lamina/data_adapters/array_adapter.py)
  and Python's ``random`` (both seeded by ``lamina.utils.set_random_seed``);
- Lamina's: the global seed, the next stream number, the global generator (``seed=None``
  draws) and every ``SeedGenerator`` held by a layer of the model (Dropout's
  ``seed_generator``, RNN cells', attention's), keyed by the layer's path in the model
  (:func:`.object_graph.saveables`: the same in every process that builds the same model).

A generator's *key* is restored as well as its counter: an unseeded generator's key comes
from the global seed, which a new process without ``set_random_seed`` draws afresh.
"""
from __future__ import annotations

import itertools
import random

import numpy as np

from ..ops import seed_generator as seeds
from .errors import SavingError
from .object_graph import saveables


def model_seed_generators(model) -> dict:
    """``{"<layer path>/<attribute>": SeedGenerator}`` for every generator the model's
    layers hold, in the model's walk order."""
    found = {}
    for saveable in saveables(model):
        for attribute, value in sorted(vars(saveable.obj).items()):
            if isinstance(value, seeds.SeedGenerator):
                path = f"{saveable.path}/{attribute}" if saveable.path else attribute
                found.setdefault(path, value)
    return found


def _generator_state(generator) -> dict:
    return {"key": [int(k) for k in generator.key],
            "counter": int(generator.state.numpy())}


def _set_generator_state(generator, state: dict) -> bool:
    """Returns whether the key changed (a compiled step that drew with it is stale)."""
    seed, stream = (int(k) for k in state["key"])
    changed = tuple(generator.key) != (seed, stream)
    generator.seed, generator.key = seed, (seed, stream)
    generator.state.assign(np.asarray(state["counter"], dtype="int64"))
    return changed


def _next_stream() -> int:
    # itertools.count cannot be read without taking a number: take it and start again there.
    number = next(seeds._streams)
    seeds._streams = itertools.count(number)
    return number


def collect_host() -> dict:
    """numpy's and Python's global generators (what ``fit`` shuffles with)."""
    name, keys, position, has_gauss, cached_gaussian = np.random.get_state()
    version, internal, gauss_next = random.getstate()
    return {
        "numpy": {"name": name, "keys": np.array(keys), "position": int(position),
                  "has_gauss": int(has_gauss), "cached_gaussian": float(cached_gaussian)},
        "python": {"version": version, "internal": list(internal), "gauss_next": gauss_next}}


def collect(model, host: dict | None = None) -> dict:
    """The state of every generator a resumed ``fit`` of ``model`` draws from; ``host``
    replaces numpy's and Python's current states (with those of the epoch's start, for a
    backup in the middle of an epoch that will be replayed with the same shuffle)."""
    global_generator = seeds._global_generator
    return {
        **(host if host is not None else collect_host()),
        "lamina": {
            "global_seed": seeds.global_seed(), "next_stream": _next_stream(),
            "global_generator": None if global_generator is None
            else _generator_state(global_generator),
            "generators": {path: _generator_state(generator) for path, generator in
                           model_seed_generators(model).items()}}}


def check(model, state: dict, filepath: str) -> None:
    """SavingError unless ``state`` holds a state for each of the model's generators."""
    generators = sorted(model_seed_generators(model))
    saved = sorted(state["lamina"]["generators"])
    if generators != saved:
        raise SavingError(f"cannot restore the random state in '{filepath}': it was saved "
                          f"for a model whose random generators are {saved}; this model "
                          f"has {generators}. Resume with the same model.")


def restore(model, state: dict, filepath: str) -> bool:
    """Put back what :func:`collect` returned (after :func:`check`). Returns whether a
    generator of the model changed its key: graphs traced with the old key must go."""
    check(model, state, filepath)
    lamina_state = state["lamina"]
    saved = lamina_state["generators"]
    numpy_state = state["numpy"]
    np.random.set_state((numpy_state["name"], np.asarray(numpy_state["keys"], np.uint32),
                         numpy_state["position"], numpy_state["has_gauss"],
                         numpy_state["cached_gaussian"]))
    python_state = state["python"]
    random.setstate((python_state["version"], tuple(python_state["internal"]),
                     python_state["gauss_next"]))
    seeds._global_seed = int(lamina_state["global_seed"])
    seeds._streams = itertools.count(int(lamina_state["next_stream"]))
    seeds._global_generator = None
    if lamina_state["global_generator"] is not None:
        _set_generator_state(seeds.global_generator(), lamina_state["global_generator"])
    changed = [_set_generator_state(generator, saved[path])
               for path, generator in model_seed_generators(model).items()]
    return any(changed)
