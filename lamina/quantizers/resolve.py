"""``validate_and_resolve_config``: the config ``quantize(mode, config)`` runs with, checked
in Keras 3's order (the first of ``Layer.quantize``'s checks, lamina/layers/quantize.py)."""
from __future__ import annotations

from ..dtype_policies.quantized import check_known_mode
from .awq_config import AWQConfig
from .gptq_config import GPTQConfig
from .quantization_config import (Float8QuantizationConfig, Int4QuantizationConfig,
                                  Int8QuantizationConfig, QuantizationConfig)

_DEFAULTS = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig,
             "float8": Float8QuantizationConfig}


def validate_and_resolve_config(mode, config):
    """The config ``quantize(mode, config)`` runs with, checked in Keras's order: a
    known mode; a mode gives its default config (GPTQ and AWQ need theirs); a config must
    be a QuantizationConfig whose mode agrees with ``mode``."""
    if isinstance(config, str):
        mode, config = config, None
    if mode is not None:
        check_known_mode(mode)
    if config is None:
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        if mode == "gptq":
            raise ValueError("For GPTQ, you must pass a `GPTQConfig` object in the `config` "
                             "argument.")
        if mode == "awq":
            raise ValueError("For AWQ, you must pass an `AWQConfig` object in the `config` "
                             "argument.")
        return _DEFAULTS[mode]()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(f"Argument `config` must be an instance of `QuantizationConfig`. "
                         f"Received: config={config} (of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    check_known_mode(config.mode)
    for mode, kind in (("gptq", GPTQConfig), ("awq", AWQConfig)):
        if config.mode == mode and not isinstance(config, kind):
            raise ValueError(f"Mode '{mode}' requires a valid `config` argument of type "
                             f"`{kind.__name__}`. Received: {type(config)}")
    return config
