"""The shared layer harness: one :class:`LayerCase` checks a layer the way Keras's
``run_layer_test`` does.

``run_layer_case(case)`` checks, for real input values:

- the output shape and dtype, called eagerly and on a symbolic ``Input`` (the functional
  path), and ``compute_output_shape`` where the layer defines it;
- the number of trainable / non-trainable weights, their shapes by name, the parameter
  count (compare with Keras's for the same arguments);
- ``get_config`` -> ``from_config`` gives an equal config, and with the same weights
  (``set_weights`` in ``get_weights`` order) the same outputs;
- a functional model wrapping the layer computes what the eager call computes;
- every trainable weight receives a non-zero gradient, and one plain gradient step
  (no optimizer) changes the output.

Each test module lists its cases in ``CASES``; ``tests/layers/test_registry.py`` fails if
a layer in ``lamina.layers`` appears in no module's ``CASES``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import lamina
from lamina import ops


@dataclass
class LayerCase:
    cls: type
    kwargs: dict = field(default_factory=dict)
    input_shape: Any = (2, 3)              # batch included; a list of shapes for several inputs
    output_shape: Any = None               # expected; None skips the check
    trainable_weights: int | None = None
    non_trainable_weights: int | None = 0
    weight_shapes: dict[str, tuple] | None = None   # weight name -> shape
    params: int | None = None              # Keras's count_params for the same arguments
    input_dtype: str = "float32"
    make_input: Callable[[np.random.Generator, Any], Any] | None = None
    call_kwargs: dict = field(default_factory=dict)
    output_dtype: str | None = None
    check_training_step: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    id: str = ""

    def __post_init__(self):
        # Random augmentation layers default to training=True (Keras 3): the harness
        # compares deterministic inference outputs across the model kinds, so it asks for
        # them; each layer's own tests cover its training-mode draws.
        call = getattr(self.cls, "call", None)
        default = inspect.signature(call).parameters.get("training") if call else None
        if default is not None and default.default is True:
            self.call_kwargs = {"training": False, **self.call_kwargs}
        if not self.id:
            args = ",".join(f"{k}={_stable_repr(v)}" for k, v in self.kwargs.items())
            self.id = f"{self.cls.__name__}({args})"


def _stable_repr(value) -> str:
    """``repr(value)``, but a function by its name: its repr holds its address, which
    differs between processes, and pytest-xdist's workers must collect the same test ids."""
    text = repr(value)
    if callable(value) and " at 0x" in text:
        return getattr(value, "__qualname__", text)
    return text


def case_id(case: LayerCase) -> str:
    return case.id


def _several(case) -> bool:
    return isinstance(case.input_shape, list)


def make_inputs(case: LayerCase, seed: int = 0):
    rng = np.random.default_rng(seed)
    if case.make_input is not None:
        return case.make_input(rng, case.input_shape)
    shapes = case.input_shape if _several(case) else [case.input_shape]
    arrays = [rng.standard_normal(s).astype(case.input_dtype) for s in shapes]
    return arrays if _several(case) else arrays[0]


def to_tensors(x):
    return lamina.tree.map_structure(lambda a: ops.convert_to_tensor(a), x)


def _numpy(x):
    return lamina.tree.map_structure(lambda t: np.asarray(t.numpy()), x)


def _assert_close(a, b, case, what):
    for x, y in zip(lamina.tree.flatten(a), lamina.tree.flatten(b)):
        np.testing.assert_allclose(x, y, rtol=case.rtol, atol=case.atol, err_msg=what)


def _symbolic_inputs(case, data):
    leaves = lamina.tree.flatten(data)
    symbols = [lamina.layers.Input(batch_shape=(None, *np.shape(a)[1:]),
                                   dtype=str(np.asarray(a).dtype)) for a in leaves]
    return lamina.tree.pack_sequence_as(data, symbols)


def run_layer_case(case: LayerCase):
    data = make_inputs(case)
    layer = case.cls(**case.kwargs)
    out = layer(to_tensors(data), **case.call_kwargs)
    outputs = lamina.tree.flatten(out)

    # output shape and dtype
    if case.output_shape is not None:
        expected = case.output_shape if isinstance(case.output_shape, list) else \
            [case.output_shape]
        assert [tuple(o.shape) for o in outputs] == [tuple(s) for s in expected], \
            f"{case.id}: output shapes {[o.shape for o in outputs]} != {expected}"
    want_dtype = case.output_dtype or layer.compute_dtype
    for o in outputs:
        assert o.dtype == want_dtype, f"{case.id}: output dtype {o.dtype} != {want_dtype}"

    # weights
    if case.trainable_weights is not None:
        assert len(layer.trainable_weights) == case.trainable_weights, \
            f"{case.id}: {[w.path for w in layer.trainable_weights]}"
    if case.non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == case.non_trainable_weights, \
            f"{case.id}: {[w.path for w in layer.non_trainable_weights]}"
    if case.weight_shapes is not None:
        got = {w.name: tuple(w.shape) for w in layer.weights}
        assert got == {k: tuple(v) for k, v in case.weight_shapes.items()}, \
            f"{case.id}: weights {got}"
    if case.params is not None:
        assert layer.count_params() == case.params, \
            f"{case.id}: {layer.count_params()} params, Keras has {case.params}"

    # symbolic call and compute_output_shape agree with the eager result
    symbols = _symbolic_inputs(case, data)
    sym_out = layer(symbols, **case.call_kwargs)
    for s, o in zip(lamina.tree.flatten(sym_out), outputs):
        assert len(s.shape) == len(o.shape) and all(
            d is None or d == e for d, e in zip(s.shape, o.shape)), \
            f"{case.id}: symbolic shape {s.shape} vs eager {o.shape}"
        assert s.dtype == o.dtype

    # the functional model computes the eager result
    model = lamina.Model(symbols, sym_out)
    _assert_close(_numpy(model(to_tensors(data), **case.call_kwargs)), _numpy(out), case,
                  f"{case.id}: functional model != eager call")

    # config round trip, with the same weights the same outputs
    config = layer.get_config()
    clone = case.cls.from_config(config)
    clone_config = clone.get_config()
    config.pop("name"), clone_config.pop("name")
    assert clone_config == config, f"{case.id}: config changed in a round trip"
    clone_out = clone(to_tensors(data), **case.call_kwargs)
    clone.set_weights(layer.get_weights())
    clone_out = clone(to_tensors(data), **case.call_kwargs)
    _assert_close(_numpy(clone_out), _numpy(out), case, f"{case.id}: from_config clone")

    if case.check_training_step and layer.trainable_weights:
        _check_training_step(case, layer, data)
    return layer


def _check_training_step(case, layer, data):
    rng = np.random.default_rng(1)
    inputs = to_tensors(data)
    first = _numpy(layer(inputs, **case.call_kwargs))
    probes = [ops.convert_to_tensor(rng.standard_normal(np.shape(o)).astype(o.dtype))
              for o in lamina.tree.flatten(first)]
    with lamina.GradientTape() as tape:
        outs = lamina.tree.flatten(layer(inputs, **case.call_kwargs))
        loss = sum(ops.sum(ops.multiply(ops.cast(o, "float32"), p))
                   for o, p in zip(outs, probes) if "float" in o.dtype)
    weights = layer.trainable_weights
    grads = tape.gradient(loss, weights)
    for w, g in zip(weights, grads):
        assert g is not None, f"{case.id}: no gradient reaches {w.path}"
        assert g.shape == w.shape
        assert np.any(np.asarray(g.numpy()) != 0), f"{case.id}: zero gradient for {w.path}"
    for w, g in zip(weights, grads):
        w.assign_sub(ops.multiply(g, 0.1))
    second = _numpy(layer(inputs, **case.call_kwargs))
    assert any(not np.allclose(a, b) for a, b in zip(lamina.tree.flatten(first),
                                                     lamina.tree.flatten(second))), \
        f"{case.id}: a gradient step did not change the output"
