"""``AWQConfig`` (Keras 3's): how ``model.quantize("awq", config=...)`` calibrates.

AWQ (activation-aware weight quantization) quantizes the Dense and EinsumDense layers of a
model's sequential blocks to 4 bits, one block at a time: from the largest magnitude each
input channel reaches on calibration data it searches per-channel scales that enlarge the
salient weights before rounding (lamina/quantizers/awq.py, calibration.py).
"""
from __future__ import annotations

from ..registry import register_builtin
from .gptq_config import policy_of
from .quantization_config import QuantizationConfig
from ..dtype_policies.quantized import AWQDTypePolicy


@register_builtin
class AWQConfig(QuantizationConfig):
    """AWQ's settings: ``weight_bits`` (4 only), ``group_size`` input columns per scale and
    zero point (-1: one per output channel), ``num_grid_points`` ratios tried between 0
    and 1 in the scale search, and the calibration data (``num_samples`` windows of
    ``sequence_length`` tokens from ``dataset``) with the blocks to quantize
    (``quantization_layer_structure``, as for GPTQConfig; left out of ``get_config``).

    Args:
        dataset: the calibration text: a list of strings, or an iterable of token arrays.
        tokenizer: an object whose ``tokenize`` maps a string to token ids (used for
            string data only).
        weight_bits: int, the bits per weight (4 only; default 4).
        num_samples: int, the number of calibration windows (default 128).
        sequence_length: int, the tokens per calibration window (default 512).
        group_size: int, input columns sharing a scale and zero point (default 128;
            -1: one per output channel).
        num_grid_points: int, the ratios between 0 and 1 tried by the scale search
            (default 20).
        quantization_layer_structure: a dict ``{"pre_block_layers": [...],
            "sequential_blocks": [...]}`` naming the layers run before the blocks and the
            blocks to quantize (default None: found from the model).
    """

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 sequence_length: int = 512, group_size: int = 128,
                 num_grid_points: int = 20, quantization_layer_structure: dict = None):
        super().__init__()
        if weight_bits != 4 or isinstance(weight_bits, bool):
            raise ValueError(f"AWQ only supports 4-bit quantization. Received "
                             f"weight_bits={weight_bits}.")
        for name, value in (("num_samples", num_samples),
                            ("sequence_length", sequence_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive integer.")
        if isinstance(group_size, bool) or not isinstance(group_size, int) or \
                group_size < -1 or group_size == 0:
            raise ValueError(f"Invalid group_size. Supported values are -1 (per-channel) or "
                             f"a positive integer, but got {group_size}.")
        if isinstance(num_grid_points, bool) or not isinstance(num_grid_points, int) or \
                num_grid_points <= 0:
            raise ValueError("num_grid_points must be a positive integer.")
        if quantization_layer_structure is not None and not isinstance(
                quantization_layer_structure, dict):
            raise ValueError(f"AWQConfig: argument 'quantization_layer_structure' must be a "
                             f"dict with keys 'pre_block_layers' and 'sequential_blocks', or "
                             f"None; received {quantization_layer_structure!r}")
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.weight_bits = weight_bits
        self.num_samples = num_samples
        self.sequence_length = sequence_length
        self.group_size = group_size
        self.num_grid_points = num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "awq"

    def dtype_policy_string(self) -> str:
        """The mode of the layers' policy: ``"awq/<weight_bits>/<group_size>"``."""
        return f"awq/{self.weight_bits}/{self.group_size}"

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "sequence_length": self.sequence_length,
                "group_size": self.group_size, "num_grid_points": self.num_grid_points,
                "quantization_layer_structure": None}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def awq_group_size(layer, config) -> int:
    """The group size of an AWQ layer: its config's, else its AWQDTypePolicy's."""
    if isinstance(config, AWQConfig):
        return config.group_size
    policy = policy_of(layer)
    if isinstance(policy, AWQDTypePolicy):
        return policy.group_size
    raise ValueError("For AWQ quantization, group_size must be specified through AWQConfig "
                     "or AWQDTypePolicy.")
