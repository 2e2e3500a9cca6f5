"""``GPTQConfig`` (Keras 3's): how ``model.quantize("gptq", config=...)`` calibrates.

GPTQ quantizes the Dense and EinsumDense layers of a model's sequential blocks one block
at a time, from the Hessian of each layer's inputs on calibration data (``dataset``,
strings tokenized by ``tokenizer`` or token arrays), correcting each column's rounding
error in the columns still to come (lamina/quantizers/gptq.py, calibration.py).
"""
from __future__ import annotations

from ..dtype_policies.dtype_policy_map import DTypePolicyMap
from ..dtype_policies.quantized import GPTQDTypePolicy
from ..registry import register_builtin
from .quantization_config import QuantizationConfig


@register_builtin
class GPTQConfig(QuantizationConfig):
    """GPTQ's settings: ``weight_bits`` (2, 3, 4 or 8), ``group_size`` input columns per
    scale and zero point (-1: one per output channel), ``symmetric`` ranges,
    ``activation_order`` (quantize the columns with the largest Hessian diagonal first),
    ``hessian_damping`` (a fraction of the mean diagonal added for stability), and the
    calibration data: ``num_samples`` windows of ``sequence_length`` tokens from
    ``dataset``. ``quantization_layer_structure`` (``{"pre_block_layers": [...],
    "sequential_blocks": [...]}``) says which layers run before the blocks and which blocks
    to quantize in order; without it the model's ``get_quantization_layer_structure``
    must say.

    Like ``dataset`` and ``tokenizer``, the structure (layers) is used once, for the
    calibration, and is left out of ``get_config`` (Keras 3.15.1 writes it and then cannot
    save the model).

    Args:
        dataset: the calibration text: a list of strings, or an iterable of token arrays.
        tokenizer: an object whose ``tokenize`` maps a string to token ids (used for
            string data only).
        weight_bits: int, the bits per weight: 2, 3, 4 or 8 (default 4).
        num_samples: int, the number of calibration windows (default 128).
        per_channel: bool; one scale per output channel rather than per tensor
            (default True).
        sequence_length: int, the tokens per calibration window (default 512).
        hessian_damping: float, the fraction of the mean Hessian diagonal added for
            stability (default 0.01).
        group_size: int, input columns sharing a scale and zero point (default 128;
            -1: one per output channel).
        symmetric: bool; symmetric ranges without zero point (default False).
        activation_order: bool; quantize the columns with the largest Hessian diagonal
            first (default False).
        quantization_layer_structure: a dict ``{"pre_block_layers": [...],
            "sequential_blocks": [...]}`` naming the layers run before the blocks and the
            blocks to quantize (default None: found from the model).
    """

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 per_channel: bool = True, sequence_length: int = 512,
                 hessian_damping: float = 0.01, group_size: int = 128,
                 symmetric: bool = False, activation_order: bool = False,
                 quantization_layer_structure: dict = None):
        super().__init__()
        if weight_bits not in [2, 3, 4, 8] or isinstance(weight_bits, bool):
            raise ValueError(f"Unsupported weight_bits {weight_bits}. Supported values are "
                             f"2, 3, 4, and 8.")
        for name, value in (("num_samples", num_samples),
                            ("sequence_length", sequence_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive integer.")
        if not isinstance(hessian_damping, (int, float)) or not 0 <= hessian_damping <= 1:
            raise ValueError("hessian_damping must be between 0 and 1.")
        if isinstance(group_size, bool) or not isinstance(group_size, int) or \
                group_size < -1 or group_size == 0:
            raise ValueError(f"Invalid group_size. Supported values are -1 (whole-tensor) "
                             f"or a positive integer, but got {group_size}.")
        if quantization_layer_structure is not None and not isinstance(
                quantization_layer_structure, dict):
            raise ValueError(f"GPTQConfig: argument 'quantization_layer_structure' must be a "
                             f"dict with keys 'pre_block_layers' and 'sequential_blocks', or "
                             f"None; received {quantization_layer_structure!r}")
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.num_samples = num_samples
        self.per_channel = per_channel
        self.sequence_length = sequence_length
        self.hessian_damping = hessian_damping
        self.weight_bits = weight_bits
        self.group_size = group_size
        self.symmetric = symmetric
        self.activation_order = activation_order
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "gptq"

    def dtype_policy_string(self) -> str:
        """The mode of the layers' policy: ``"gptq/<weight_bits>/<group_size>"``."""
        return f"gptq/{self.weight_bits}/{self.group_size}"

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "per_channel": self.per_channel,
                "sequence_length": self.sequence_length,
                "hessian_damping": self.hessian_damping, "group_size": self.group_size,
                "symmetric": self.symmetric, "activation_order": self.activation_order,
                "quantization_layer_structure": None}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def policy_of(layer):
    """The policy of ``layer`` itself (its entry in a DTypePolicyMap)."""
    policy = layer.dtype_policy
    if isinstance(policy, DTypePolicyMap):
        policy = policy[layer.path]
    return policy


def gptq_setting(layer, config, name: str) -> int:
    """``weight_bits`` or ``group_size`` of a GPTQ layer: its config's (at quantize time),
    else its GPTQDTypePolicy's (a layer loaded from a file)."""
    if isinstance(config, GPTQConfig):
        return getattr(config, name)
    policy = policy_of(layer)
    if isinstance(policy, GPTQDTypePolicy):
        return getattr(policy, name)
    raise ValueError(f"For GPTQ quantization, the {name} must be specified either through a "
                     f"`dtype_policy` of type `GPTQDTypePolicy` or the `config` argument.")
