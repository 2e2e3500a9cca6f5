"""GPTQ and AWQ calibration of a model (Keras 3's ``gptq_core``, ``awq_core``):
``model.quantize("gptq", config=GPTQConfig(...))`` quantizes the model's Dense and
EinsumDense layers in "gptq" mode, then :func:`calibrate` calibrates them block by block.

The calibration data are ``num_samples`` windows of ``sequence_length`` tokens cut from
the dataset (:func:`get_dataloader`); they run through the structure's
``pre_block_layers`` (an embedding), then through each of its ``sequential_blocks`` in
turn. While a block runs, each of its GPTQ (AWQ) layers feeds its inputs to a Hessian
(activation maxima) (:func:`stream_inputs`); the layers are then quantized
(lamina/quantizers/gptq.py, awq.py), and the block runs again, quantized, to give the next
block its inputs -- so later blocks see the errors of earlier ones.
"""
from __future__ import annotations

import contextlib
import functools
import math
import random
import zlib

from .. import ops
from .awq import AWQ
from .gptq import GPTQ
from .selection import leaf_layers, should_quantize_layer

STRUCTURE_ERROR = ("a valid quantization structure must be provided either via "
                   "`config.quantization_layer_structure` or by overriding "
                   "`model.get_quantization_layer_structure(mode)`. The structure should be "
                   "a dictionary with keys 'pre_block_layers' and 'sequential_blocks'.")


def _starts(strategy, count, max_start, seed, stride) -> list:
    if strategy == "random":
        # Keras draws with numpy's default_rng(seed); Lamina with Python's Random(seed).
        chooser = random.Random(seed)
        return [chooser.randint(0, max_start) for _ in range(count)]
    if strategy == "linspace":     # numpy.linspace's float64 steps, truncated
        if count == 1:
            return [0]
        step = max_start / (count - 1)
        return [int(i * step) for i in range(count - 1)] + [max_start]
    if strategy == "strided":
        stride = max(1, (max_start + 1) // count) if stride is None else stride
        # Keras offsets by Python's salted hash(), which changes from run to run; Lamina's
        # offset is a fixed function of the seed, so calibration is reproducible.
        offset = zlib.crc32(f"gptq-calib/{seed}".encode()) % (max_start + 1) \
            if max_start > 0 else 0
        return [(offset + i * stride) % (max_start + 1) for i in range(count)]
    raise ValueError(f"Unknown strategy: {strategy}")


def get_dataloader(tokenizer, sequence_length, dataset, num_samples=128, *,
                   strategy="strided", seed=42, stride=None, eos_id=None):
    """``num_samples`` windows of ``sequence_length`` tokens, int32 ``(num_samples, 1,
    sequence_length)``, from ``dataset`` -- strings (tokenized by ``tokenizer.tokenize``,
    with ``eos_id`` between documents) or token arrays -- joined end to end and repeated
    when short. ``strategy``: "strided" (evenly spaced from a seed-given offset),
    "linspace" (from the first token to the last window) or "random"."""
    if not hasattr(dataset, "__iter__") or isinstance(dataset, (str, bytes)):
        raise TypeError(f"The `dataset` argument must be an iterable (e.g., a list of "
                        f"strings, a generator, or a NumPy array). Got type: "
                        f"{type(dataset).__name__}. Please pass the loaded dataset directly.")
    items = list(dataset)
    if not items:
        raise ValueError("Provided dataset is empty.")
    pieces = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            item = tokenizer.tokenize(item)
        pieces.append(ops.cast(ops.reshape(ops.convert_to_tensor(item), (-1,)), "int32"))
        if isinstance(items[0], str) and eos_id is not None and i < len(items) - 1:
            pieces.append(ops.convert_to_tensor([eos_id], dtype="int32"))
    tokens = ops.concatenate(pieces, axis=0) if len(pieces) > 1 else pieces[0]
    size = tokens.shape[0]
    if size < num_samples * sequence_length:
        tokens = ops.tile(tokens, (math.ceil(num_samples * sequence_length / max(1, size)),))
    max_start = tokens.shape[0] - sequence_length
    if max_start < 0:
        raise ValueError(f"Not enough tokens to form one sample of length {sequence_length} "
                         f"(have {tokens.shape[0]}).")
    starts = ops.convert_to_tensor(_starts(strategy, num_samples, max_start, seed, stride),
                                   dtype="int32")
    windows = ops.add(ops.expand_dims(starts, 1), ops.arange(sequence_length, dtype="int32"))
    return ops.expand_dims(ops.take(tokens, windows, axis=0), 1)


class _Algorithm:
    """What the driver needs of GPTQ or AWQ: the per-layer object, how it observes a
    layer's inputs, how it quantizes, and Keras's wording of the errors."""

    def __init__(self, name, make, observe, finish, config_name, blocks_error):
        self.name, self.make, self.observe, self.finish = name, make, observe, finish
        self.config_name, self.blocks_error = config_name, blocks_error


ALGORITHMS = {
    "gptq": _Algorithm("GPTQ", GPTQ, GPTQ.update_hessian_with_batch,
                       GPTQ.quantize_and_correct_layer, "`GPTQConfig`",
                       "No sequential blocks found in the provided structure to quantize."),
    "awq": _Algorithm("AWQ", AWQ, AWQ.update_activation_magnitudes, AWQ.quantize_layer,
                      "AWQConfig", "No sequential blocks found in the structure to "
                                   "quantize."),
}


def _hook(call, observe, target):
    @functools.wraps(call)
    def hook(*args, **kwargs):
        inputs = args[0] if args else kwargs["inputs"]
        observe(target, ops.reshape(inputs, (-1, target.rows)))
        return call(*args, **kwargs)
    return hook


@contextlib.contextmanager
def stream_inputs(layers_map, targets, observe):
    """While a block runs, each layer of ``layers_map`` passes its inputs (as rows) to
    ``observe(targets[name], rows)`` -- a GPTQ's Hessian, an AWQ's activation maxima --
    before computing; the layers' own ``call`` is restored on exit.

    The hook goes on ``call``, which Lamina's quantized layers run (Keras 3.15.1 hooks the
    same method, but its quantized layers run ``quantized_call``, so its calibration sees no
    activation at all: zero Hessians, AWQ scales of 1)."""
    patched = []
    try:
        for name, layer in layers_map.items():
            own = layer.__dict__.get("call")
            layer.call = _hook(layer.call, observe, targets[name])
            patched.append((layer, own))
        yield
    finally:
        for layer, own in patched:
            if own is None:
                del layer.__dict__["call"]
            else:
                layer.call = own


def _batched(x):
    return ops.expand_dims(x, axis=0) if len(x.shape) == 2 else x


def apply_layerwise(dataloader, config, structure, filters=None) -> None:
    """Calibrate the ``config.mode`` layers of ``structure["sequential_blocks"]``, block by
    block, on ``dataloader``'s samples passed through ``structure["pre_block_layers"]``."""
    algorithm = ALGORITHMS[config.mode]
    pre_layers = structure.get("pre_block_layers", [])
    blocks = structure.get("sequential_blocks", [])
    if not blocks:
        raise ValueError(algorithm.blocks_error)
    inputs = []
    for i in range(dataloader.shape[0]):
        batch = ops.convert_to_tensor(dataloader[i], dtype="int32")
        for layer in pre_layers:
            batch = layer(batch)
        inputs.append(batch)
    count = min(config.num_samples, len(inputs))
    for index, block in enumerate(blocks):
        chosen = [layer for layer in leaf_layers(block)
                  if layer.quantization_mode == config.mode
                  and getattr(layer, f"_{config.mode}_calibrated", None) is not None
                  and should_quantize_layer(layer, filters)]
        if chosen:
            layers_map = dict(enumerate(chosen))
            targets = {key: algorithm.make(layer, config) for key, layer in layers_map.items()}
            with stream_inputs(layers_map, targets, algorithm.observe):
                for sample in inputs[:count]:
                    block(_batched(sample))
            for target in targets.values():
                algorithm.finish(target)
                target.free()
        if index < len(blocks) - 1:
            inputs = [block(_batched(sample))[0] for sample in inputs[:count]]


def calibrate(config, quantization_layer_structure, filters=None) -> None:
    """Calibrate with ``config``'s (a GPTQConfig or AWQConfig) dataset and tokenizer (both
    required)."""
    algorithm = ALGORITHMS[config.mode]
    if config.dataset is None or config.tokenizer is None:
        tokenizer = "tokenizer" if config.mode == "awq" else "a tokenizer"
        raise ValueError(f"{algorithm.name} quantization requires a dataset and {tokenizer}. "
                         f"Please provide them in the {algorithm.config_name}.")
    if quantization_layer_structure is None:
        raise ValueError(f"For '{config.mode}' mode, {STRUCTURE_ERROR}")
    dataloader = get_dataloader(config.tokenizer, config.sequence_length, config.dataset,
                                num_samples=config.num_samples)
    apply_layerwise(dataloader[:config.num_samples], config, quantization_layer_structure,
                    filters=filters)
