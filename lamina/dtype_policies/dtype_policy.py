"""Dtype policies (Keras 3's ``keras.DTypePolicy``) and the global default policy.

A policy names the dtype a layer creates its variables in (``variable_dtype``) and the dtype
it computes in (``compute_dtype``): ``"float32"`` is both float32, ``"mixed_float16"`` and
``"mixed_bfloat16"`` keep float32 variables and compute in float16 / bfloat16 (the layer
reads its variables through an autocast, see ``lamina/core/autocast.py``).
"""
from __future__ import annotations

from ..settings import register_clear_hook
from ..dtypes import floatx, standardize
from ..errors import DTypeError
from ..registry import register_builtin

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
_global_policy = None
# A policy from its name, quantized ones ("int8_from_float32") included: bound by
# lamina/dtype_policies/__init__.py to ``lookup.get`` (which imports this module).
_policy_from_name = None


@register_builtin
class DTypePolicy:
    """A layer's compute and variable dtypes.

    Layers take one as their ``dtype`` argument (a name is turned into one): the
    variables are created in ``policy.variable_dtype`` and the computation runs in
    ``policy.compute_dtype``.

    Args:
        name: A dtype (``"float32"``), or ``"mixed_float16"`` / ``"mixed_bfloat16"``
            (float32 variables, 16-bit compute). ``None`` (default) takes the global
            policy's name (``keras.config.dtype_policy()``).

    Raises:
        TypeError: If ``name`` is not a string.
        ValueError: If ``name`` is not a dtype or mixed policy name.

    Example:

    >>> policy = DTypePolicy("mixed_float16")
    >>> policy.compute_dtype, policy.variable_dtype
    ('float16', 'float32')
    """

    _keras_module = "keras"

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    def _parse_name(self, name) -> tuple[str, str]:
        if not isinstance(name, str):
            raise TypeError(f"DTypePolicy: argument 'name' must be a string, such as "
                            f"'mixed_float16'; received {name!r} (of type "
                            f"{type(name).__name__})")
        if name in _MIXED:
            return standardize(_MIXED[name]), "float32"
        try:
            dtype = standardize(name)
        except DTypeError as error:
            if "ml_dtypes" in str(error):
                raise
            raise ValueError(f"DTypePolicy: cannot convert {name!r} to a dtype policy; valid "
                             f"policies are 'mixed_float16', 'mixed_bfloat16' and the name "
                             f"of a dtype such as 'float32'") from None
        return dtype, dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layers compute in (and their outputs have)."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype layers create their variables in."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None: quantized policies are not part of Lamina yet."""
        return self._quantization_mode

    def get_config(self) -> dict:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        class_name = "DTypePolicy" if type(self) is FloatDTypePolicy else type(self).__name__
        return f'<{class_name} "{self._name}">'

    def __eq__(self, other) -> bool:
        plain = (DTypePolicy, FloatDTypePolicy)
        if type(self) in plain:
            if type(other) not in plain:
                return False
        elif type(other) is not type(self):
            return False
        return self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)


@register_builtin
class FloatDTypePolicy(DTypePolicy):
    """Keras 3's alias of :class:`DTypePolicy`.

    Args:
        name: A dtype or ``"mixed_float16"`` / ``"mixed_bfloat16"``; ``None`` (default)
            takes the global policy's name.

    Example:

    >>> FloatDTypePolicy("float16").compute_dtype
    'float16'
    """


def set_dtype_policy(policy) -> None:
    """Set the global dtype policy, taken by new layers made without ``dtype=``.

    Also reachable as ``lamina.config.set_dtype_policy`` and
    ``lamina.mixed_precision.set_global_policy``.

    Args:
        policy: A policy name (such as ``"mixed_float16"``, ``"float32"`` or a quantized
            name) or a ``DTypePolicy``.

    Raises:
        ValueError: If ``policy`` is neither a name nor a ``DTypePolicy``.

    Example:

    >>> lamina.config.set_dtype_policy("mixed_float16")
    >>> lamina.layers.Dense(4).dtype_policy.compute_dtype
    'float16'
    >>> lamina.config.set_dtype_policy("float32")     # back to the default
    """
    global _global_policy
    if isinstance(policy, str):
        policy = (_policy_from_name or DTypePolicy)(policy)
    elif not isinstance(policy, DTypePolicy):
        raise ValueError(f"set_dtype_policy: argument 'policy' must be the name of a policy "
                         f"(such as 'mixed_float16') or a DTypePolicy; received {policy!r} "
                         f"(of type {type(policy).__name__})")
    _global_policy = policy


def dtype_policy() -> DTypePolicy:
    """The global dtype policy: the one set, else ``DTypePolicy(floatx())`` (following
    ``set_floatx`` until a policy is set)."""
    if _global_policy is None:
        return DTypePolicy(floatx())
    return _global_policy


def reset_dtype_policy() -> None:
    """Forget the global policy (``clear_session``): the next read follows ``floatx()``."""
    global _global_policy
    _global_policy = None


register_clear_hook(reset_dtype_policy)
