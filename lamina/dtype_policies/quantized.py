"""The policies of quantized layers (Keras 3's): ``"<mode>_from_<source>"``.

A layer quantized with ``layer.quantize("int8")`` takes ``int8_from_float32`` (its source
policy's name behind the mode): it computes and keeps its float variables (bias, scales) in
the source policy's dtypes, while its kernel is quantized. A layer created with such a
policy (a quantized model loaded from a file) builds its quantized variables directly.

- :class:`QuantizedDTypePolicy`: ``int8``, and ``int4`` with one scale per output channel
  (``int4_from_float32``);
- :class:`Int4DTypePolicy`: ``int4/<block_size>_from_<source>``, int4 with the sub-channel
  groups of ``block_size`` rows (-1: per channel), what ``quantize("int4")`` gives;
- :class:`QuantizedFloat8DTypePolicy`: ``float8_from_<source>`` with the length of the
  delayed-scaling amax history.

- :class:`GPTQDTypePolicy`, :class:`AWQDTypePolicy`:
  ``gptq/<weight_bits>/<group_size>_from_<source>`` (``awq/4/...``), a layer calibrated by
  GPTQ or AWQ.
"""
from __future__ import annotations

from ..registry import register_builtin
from .dtype_policy import DTypePolicy, dtype_policy

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
"""Keras 3.15.1's quantization modes (the ones its errors list)."""


def check_known_mode(mode) -> None:
    """Keras's error for a mode it does not know."""
    if mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")


def check_mode(mode, compute_dtype=None) -> None:
    """Keras's checks of a policy's mode: known, and int8 not with float16."""
    check_known_mode(mode)
    if mode == "int8" and compute_dtype == "float16":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                         f"compute_dtype='float16'.")


@register_builtin
class QuantizedDTypePolicy(DTypePolicy):
    """The dtype policy of a quantized layer: a quantization mode on a float policy.

    Its name is ``f"{mode}_from_{source_name}"``; it has the source's compute and
    variable dtypes, and ``quantization_mode == mode``.

    Args:
        mode: ``"int8"``, ``"int4"`` or ``"float8"``.
        source_name: The name of the policy it applies to, such as ``"float32"``;
            ``None`` (default) takes the global policy's name.

    Raises:
        ValueError: If ``mode`` is not a quantization mode, or does not fit the source's
            compute dtype.

    Example:

    >>> policy = QuantizedDTypePolicy("int8", "float32")
    >>> policy.name, policy.compute_dtype
    ('int8_from_float32', 'float32')
    """

    _keras_module = "keras.dtype_policies"

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = dtype_policy().name
        self._compute_dtype, self._variable_dtype = self._parse_name(source_name)
        check_mode(mode, self._compute_dtype)
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    def __eq__(self, other) -> bool:
        return (type(other) is type(self) and self._name == other._name
                and self._quantization_mode == other._quantization_mode
                and self._source_name == other._source_name)

    __hash__ = DTypePolicy.__hash__

    def get_config(self) -> dict:
        return {"mode": self._quantization_mode, "source_name": self._source_name}


@register_builtin
class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """The dtype policy of float8 training (``"float8_from_float32"``).

    Args:
        mode: ``"float8"``.
        source_name: The policy whose compute and variable dtypes it keeps; ``None``
            (default) takes the global policy's name.
        amax_history_length: The length of the delayed-scaling window the layer keeps for
            its inputs, kernel and output gradients. Defaults to 1024 (Keras 3's).

    Example:

    >>> QuantizedFloat8DTypePolicy("float8", "float32").name
    'float8_from_float32'
    """

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode=mode, source_name=source_name)
        if not isinstance(amax_history_length, int) or isinstance(amax_history_length, bool):
            raise TypeError(f"`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        if amax_history_length <= 0:
            raise ValueError(f"QuantizedFloat8DTypePolicy: argument 'amax_history_length' "
                             f"must be a positive int; received {amax_history_length}")
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self) -> int:
        """The length of the amax history window of float8 delayed scaling."""
        return self._amax_history_length

    def __eq__(self, other) -> bool:
        return super().__eq__(other) and \
            self._amax_history_length == other._amax_history_length

    __hash__ = DTypePolicy.__hash__

    def get_config(self) -> dict:
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


@register_builtin
class Int4DTypePolicy(QuantizedDTypePolicy):
    """The dtype policy of an int4-quantized layer with a block size.

    ``policy.mode`` is ``"int4"``, ``policy.block_size`` the int. Unlike Keras 3.15.1,
    whose name then reads ``int4/128_from_None``, a policy made without ``source_name`` is
    named after the global policy it takes its dtypes from.

    Args:
        mode: ``"int4/<block_size>"``: a positive block size quantizes groups of that many
            input rows with a scale and zero point each (sub-channel), -1 one scale per
            output channel.
        source_name: The policy whose compute and variable dtypes it keeps; ``None``
            (default) takes the global policy's name.

    Raises:
        ValueError: If ``mode`` is not of that form.

    Example:

    >>> Int4DTypePolicy("int4/128", "float32").name
    'int4/128_from_float32'
    """

    def __init__(self, mode, source_name=None):
        expected = "'int4/<block_size>'"
        parts = mode.split("/") if isinstance(mode, str) else []
        if len(parts) != 2 or parts[0] != "int4":
            raise ValueError(f"Invalid mode for Int4DTypePolicy. Expected format {expected}, "
                             f"but got '{mode}'.")
        try:
            block_size = int(parts[1])
        except ValueError:
            raise ValueError(f"Invalid mode for Int4DTypePolicy. <block_size> must be an "
                             f"integer. Expected format {expected}, but got '{mode}'.") from None
        if block_size < -1 or block_size == 0:
            raise ValueError(f"Invalid block_size in mode. Supported values are -1 "
                             f"(per-channel) or a positive integer (sub-channel), but got "
                             f"{block_size} from '{mode}'.")
        super().__init__(mode="int4", source_name=source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def __eq__(self, other) -> bool:
        return super().__eq__(other) and self.block_size == other.block_size

    __hash__ = DTypePolicy.__hash__

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class _CalibratedPolicy(QuantizedDTypePolicy):
    """``"<mode>/<weight_bits>/<group_size>"`` policies (GPTQ, AWQ): ``policy.mode`` is the
    mode, ``weight_bits`` and ``group_size`` ints (group size -1: one scale per output
    channel). Made without ``source_name`` they are named after the global policy (Keras
    3.15.1: ``..._from_None``)."""

    _MODE = ""
    _GROUP_MEANING = ""

    def __init__(self, mode, source_name=None):
        cls, base = type(self).__name__, self._MODE
        expected = f"'{base}/<weight_bits>/<group_size>'"
        parts = mode.split("/") if isinstance(mode, str) else []
        if len(parts) != 3 or parts[0] != base:
            raise ValueError(f"Invalid mode for {cls}. Expected format {expected}, but got "
                             f"'{mode}'.")
        try:
            weight_bits, group_size = int(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(f"Invalid mode for {cls}. <weight_bits> and <group_size> must "
                             f"be integers. Expected format {expected}, but got "
                             f"'{mode}'.") from None
        self._check_bits(weight_bits, mode)
        if group_size < -1 or group_size == 0:
            raise ValueError(f"Invalid group_size in mode. Supported values are -1 "
                             f"({self._GROUP_MEANING}) or a positive integer, but got "
                             f"{group_size} from '{mode}'.")
        super().__init__(mode=base, source_name=source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = base
        self.weight_bits = weight_bits
        self.group_size = group_size

    def __eq__(self, other) -> bool:
        return super().__eq__(other) and (self.weight_bits, self.group_size) == (
            other.weight_bits, other.group_size)

    __hash__ = DTypePolicy.__hash__

    def get_config(self) -> dict:
        return {**super().get_config(),
                "mode": f"{self._MODE}/{self.weight_bits}/{self.group_size}"}


@register_builtin
class GPTQDTypePolicy(_CalibratedPolicy):
    """The dtype policy of a GPTQ-calibrated layer.

    Its name is ``"gptq/<weight_bits>/<group_size>_from_<source_name>"``;
    ``policy.mode`` is ``"gptq"``, ``policy.weight_bits`` and ``policy.group_size`` ints.
    Made without ``source_name`` it is named after the global policy (Keras 3.15.1 writes
    ``..._from_None``).

    Args:
        mode: ``"gptq/<weight_bits>/<group_size>"``: bits 2, 3, 4 or 8; the group size is
            a positive int or -1 (the whole tensor).
        source_name: The policy whose compute and variable dtypes it keeps; ``None``
            (default) takes the global policy's name.

    Raises:
        ValueError: If ``mode`` is not of that form.

    Example:

    >>> GPTQDTypePolicy("gptq/4/128", "float32").name
    'gptq/4/128_from_float32'
    """

    _MODE, _GROUP_MEANING = "gptq", "whole-tensor"

    def _check_bits(self, weight_bits, mode) -> None:
        if weight_bits not in (2, 3, 4, 8):
            raise ValueError(f"Invalid weight_bits in mode. Supported values are 2, 3, 4, "
                             f"and 8, but got {weight_bits} from '{mode}'.")


@register_builtin
class AWQDTypePolicy(_CalibratedPolicy):
    """The dtype policy of an AWQ-calibrated (activation-aware 4-bit) layer.

    Its name is ``"awq/4/<group_size>_from_<source_name>"``; ``policy.mode`` is
    ``"awq"``, ``policy.weight_bits`` 4 and ``policy.group_size`` an int. Made without
    ``source_name`` it is named after the global policy (Keras 3.15.1 writes
    ``..._from_None``).

    Args:
        mode: ``"awq/4/<group_size>"``: AWQ is 4-bit only; the group size is a positive
            int or -1 (one scale per output channel).
        source_name: The policy whose compute and variable dtypes it keeps, such as
            ``"float32"``; ``None`` (default) takes the global policy's name.

    Raises:
        ValueError: If ``mode`` is not of that form.

    Example:

    >>> AWQDTypePolicy("awq/4/128", "float32").name
    'awq/4/128_from_float32'
    """

    _MODE, _GROUP_MEANING = "awq", "per-channel"

    def _check_bits(self, weight_bits, mode) -> None:
        if weight_bits != 4:
            raise ValueError(f"Invalid weight_bits in mode. AWQ only supports 4-bit "
                             f"quantization, but got {weight_bits} from '{mode}'.")


def quantized_policy_from_name(name: str) -> QuantizedDTypePolicy:
    """A quantized policy from its name, as Keras reads it: ``"int8_from_float32"`` and
    ``"int4_from_float32"`` -> QuantizedDTypePolicy, ``"int4/128_from_float32"`` ->
    Int4DTypePolicy, ``"float8_from_float32"`` -> QuantizedFloat8DTypePolicy,
    ``"gptq/4/128_from_float32"`` -> GPTQDTypePolicy, ``"awq/4/128_from_float32"`` ->
    AWQDTypePolicy."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError(f"Cannot convert `policy` into a valid pair (`mode`, `source_name`) "
                         f"to instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    mode, source_name = parts
    if mode.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source_name)
    if mode.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source_name)
    if mode.startswith("gptq"):
        return GPTQDTypePolicy(mode, source_name)
    if mode.startswith("awq"):
        return AWQDTypePolicy(mode, source_name)
    return QuantizedDTypePolicy(mode, source_name)
