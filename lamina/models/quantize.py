"""``Model.quantize`` (Keras 3's API): quantize every leaf layer that can be.

Each layer without sublayers (that ``filters`` selects) gets ``layer.quantize(mode,
config=config)``; a layer that cannot be quantized in that mode (Flatten, Conv2D, an
Embedding asked for float8) is skipped with Keras's warning. For GPTQ and AWQ the layers are
then calibrated, block by block, on the config's dataset (lamina/quantizers/calibration.py),
with the blocks that ``config.quantization_layer_structure`` or the model's
``get_quantization_layer_structure(mode)`` names. Compiled steps retrace by themselves:
the new weights change the model's fingerprint (lamina/core/structure.py).
"""
from __future__ import annotations

import warnings

from ..quantizers.calibration import STRUCTURE_ERROR, calibrate
from ..quantizers.selection import leaf_layers, should_quantize_layer


class ModelQuantizeMixin:
    def get_quantization_layer_structure(self, mode=None):
        """The blocks a calibrating mode (GPTQ) quantizes in order: ``{"pre_block_layers":
        [layers run first, e.g. the embedding], "sequential_blocks": [blocks]}``, or None
        (the default: pass ``quantization_layer_structure`` in the config instead). Model
        authors override it."""
        del mode
        return None

    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantize every leaf layer that supports ``mode`` (``"int8"``, ``"int4"``,
        ``"float8"``, ``"gptq"``, ``"awq"``) or ``config``'s mode: Dense and EinsumDense
        (all five), Embedding and ReversibleEmbedding (int8, int4), the attention
        projections (int8); the others are skipped with Keras's warning. ``filters``: a
        regular expression (or a list of them) searched in layer names, or a predicate on
        layers. GPTQ and AWQ need a GPTQConfig / AWQConfig with calibration data (see the
        module docstring)."""
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to "
                             f"{type(self).__name__}: {kwargs}")
        if filters is not None and not (isinstance(filters, (str, list, tuple))
                                        or callable(filters)):
            raise ValueError(f"The `filters` argument must be a regex string, a list of regex "
                             f"strings, or a callable. Received: {type(filters)}")
        for layer in leaf_layers(self):
            if not should_quantize_layer(layer, filters):
                continue
            try:
                layer.quantize(mode, type_check=type_check, config=config)
            except NotImplementedError as error:
                warnings.warn(str(error), stacklevel=2)
        # Keras 3.15.1 looks at the `mode` argument only, so quantize(config=GPTQConfig(..))
        # leaves the layers uncalibrated; the config's mode counts here.
        mode = getattr(config, "mode", mode)
        if mode in ("gptq", "awq"):
            structure = config.quantization_layer_structure
            if structure is None:
                structure = self.get_quantization_layer_structure(mode)
            if structure is None:
                raise ValueError(f"For mode='{mode}', {STRUCTURE_ERROR}")
            calibrate(config, structure, filters=filters)
