"""LoRA, low-rank adaptation (Keras 3's ``enable_lora``), for the layers with one large
weight: ``Dense``, ``EinsumDense`` and ``Conv1D/2D/3D`` adapt ``kernel``, ``Embedding`` adapts
``embeddings``.

``layer.enable_lora(rank)`` on a built layer (or ``lora_rank=`` in the constructor, applied
at build) freezes the base weight and adds two factors: ``lora_<weight>_a`` (the base's shape
with its last axis replaced by ``rank``; he_uniform by default) and ``lora_<weight>_b``
(``(rank, last axis)``; zeros by default, so the layer's output does not change until
training moves it). They are float32, as in Keras, even in a float16 layer; a float64 layer
gets float64 factors (Keras's are float32 there too). The layer then computes with
``base + (lora_alpha / rank) * (a @ b)``, cast to its compute dtype; ``layer.kernel`` is that
merged weight and ``layer._kernel`` the frozen base, so gradients reach only the factors.
Freezing and unfreezing the layer keeps the base frozen.

Saving writes the merged weight where the base weight goes and leaves the factors out, so a
LoRA layer's file is a plain layer's file (Keras's layout), and the file of either kind loads
into either. Loading a LoRA layer puts the stored weight into the base and zeroes
``lora_<weight>_b``: the layer computes exactly what was saved, and ``a`` keeps its values so
that training the factors can go on (Keras zeroes ``a`` as well, which leaves both factors
without a gradient). Unlike Keras's ``Dense`` and ``Embedding``, whose ``build`` drops the
constructor's ``lora_alpha``, every layer here keeps it.

LoRA combines with int8 and int4 quantization (of ``Dense``, ``EinsumDense``, ``Embedding``),
either way round, as in Keras: ``quantize`` quantizes the frozen base weight and keeps the
factors; ``enable_lora`` on a quantized layer shapes the factors after the float weight.
The call then adds ``(lora_alpha / rank) * ((inputs @ a) @ b)`` (for EinsumDense the layer's
einsum with ``a``; for Embedding the rows of ``a``) to the quantized product, cast to the
compute dtype. Saving dequantizes the base, adds the update and quantizes the sum again
(Keras's lossy merge), so the file is a plain quantized layer's. The layer class names its
quantized modes' helpers in ``_lora_quantized`` (``dequantized(layer)`` and
``requantized(layer, weight)``); other modes (float8, GPTQ, AWQ) raise NotImplementedError.
"""
from __future__ import annotations

import math

from .. import initializers, ops
from ..core import structure
from ..errors import LaminaError

_NOUNS = {"kernel": "kernel", "embeddings": "embedding"}


class LoraError(LaminaError, ValueError):
    """``enable_lora`` or a LoRA argument was misused."""


def adapted_weight(name: str, doc: str) -> property:
    """The property ``name`` of a layer with LoRA: its base weight (stored as ``_<name>``)
    or, once LoRA is enabled, the merged weight. Assigning sets the base weight."""
    private = "_" + name

    def get(layer):
        base = layer.__dict__.get(private)
        if base is None:
            raise AttributeError(f"{layer.name}: '{name}' does not exist before the layer "
                                 f"is built")
        if not layer.__dict__.get("lora_enabled"):
            return base
        return _merged(layer, base, layer.compute_dtype)

    def put(layer, value):
        setattr(layer, private, value)

    return property(get, put, doc=doc)


def _merged(layer, base, dtype):
    a, b = layer._lora_factors()
    delta = ops.multiply(ops.matmul(a, b), layer.lora_alpha / layer.lora_rank)
    return ops.cast(ops.add(base, delta), dtype)


def _check_rank(layer, argument: str, rank, allow_none: bool) -> None:
    if rank is None and allow_none:
        return
    if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
        raise LoraError(f"{layer.name}: argument '{argument}' must be a positive int"
                        f"{' or None' if allow_none else ''}; received {rank!r}")


def _check_alpha(layer, alpha) -> None:
    if alpha is None:
        return
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or \
            not math.isfinite(alpha):
        raise LoraError(f"{layer.name}: argument 'lora_alpha' must be a finite number or "
                        f"None; received {alpha!r}")


class LoraMixin:
    """``enable_lora`` and LoRA-aware saving for a layer whose adapted weight is the
    attribute ``_lora_target`` ("kernel" or "embeddings"), declared in the class body with
    :func:`adapted_weight`; the layer calls :meth:`_init_lora` in ``__init__`` and
    :meth:`_build_lora` at the end of ``build``."""

    _lora_target = "kernel"
    _lora_quantized: dict = {}       # mode -> module with dequantized / requantized


    def _init_lora(self, lora_rank, lora_alpha) -> None:
        _check_rank(self, "lora_rank", lora_rank, allow_none=True)
        _check_alpha(self, lora_alpha)
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False

    def _build_lora(self) -> None:
        if self.lora_rank:
            self.built = True                # enable_lora needs a built layer
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform",
                    b_initializer="zeros") -> None:
        """Freeze the base weight and train ``base + (lora_alpha / rank) * (a @ b)``
        through the two new factors (see the module docstring); once per built layer."""
        target = self._lora_target
        if getattr(self, f"{target}_constraint", None) is not None:
            raise LoraError(f"{self.name}: Lora is incompatible with {_NOUNS[target]} "
                            f"constraints. In order to enable lora on this layer, remove the "
                            f"`{target}_constraint` argument.")
        if not self.built:
            raise LoraError(f"{self.name}: Cannot enable lora on a layer that isn't yet "
                            f"built. Call it on data or build(input_shape) first.")
        if self.lora_enabled:
            raise LoraError(f"{self.name}: lora is already enabled. This can only be done "
                            f"once per layer.")
        mode = self.quantization_mode
        if mode == "gptq":
            raise NotImplementedError(f"{self.name}: lora is not currently supported with "
                                      f"GPTQ quantization.")
        if mode is not None and mode not in self._lora_quantized:
            raise NotImplementedError(f"{self.name}: lora on a layer quantized to "
                                      f"'{mode}' is not supported by Lamina")
        _check_rank(self, "rank", rank, allow_none=False)
        _check_alpha(self, lora_alpha)
        base = self.__dict__["_" + target]
        # the float weight's shape (an int4 variable is packed; its view is not)
        shape = tuple(getattr(self, target).shape)
        regularizer = getattr(self, f"{target}_regularizer", None)
        # float32 at least, so that small updates do not underflow in a float16 layer
        dtype = "float64" if self.variable_dtype == "float64" else "float32"
        with self._state_unlocked():          # new weights on a built layer (as Keras)
            a = self.add_weight(name=f"lora_{target}_a", shape=shape[:-1] + (rank,),
                                initializer=initializers.get(a_initializer), dtype=dtype,
                                regularizer=regularizer)
            b = self.add_weight(name=f"lora_{target}_b", shape=(rank, shape[-1]),
                                initializer=initializers.get(b_initializer), dtype=dtype,
                                regularizer=regularizer)
            self._place_beside(base, [a, b])
            setattr(self, f"lora_{target}_a", a)
            setattr(self, f"lora_{target}_b", b)
        base.trainable = False
        self.lora_enabled = True
        self.lora_rank = rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else rank
        structure.changed()                  # compiled steps read the base weight alone

    def _add_lora(self, outputs, projected):
        """A quantized call's ``outputs`` plus LoRA's update, ``projected`` being the
        inputs taken through ``lora_<weight>_a`` (``inputs @ a``); as is without LoRA."""
        if not self.lora_enabled:
            return outputs
        update = ops.matmul(projected, self._lora_factors()[1])
        update = ops.multiply(update, self.lora_alpha / self.lora_rank)
        return ops.cast(ops.add(outputs, update), self.compute_dtype)

    def _with_lora(self, weight):
        """``weight`` plus LoRA's update (in the compute dtype) once LoRA is enabled."""
        if not self.__dict__.get("lora_enabled"):
            return weight
        return _merged(self, weight, self.compute_dtype)

    def _lora_factors(self) -> tuple:
        target = self._lora_target
        return getattr(self, f"lora_{target}_a"), getattr(self, f"lora_{target}_b")

    def _lora_config(self) -> dict:
        """``lora_rank`` and ``lora_alpha`` for get_config, when LoRA is asked for."""
        if not self.lora_rank:
            return {}
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha}

    # ------------------------------------------------------------------ freezing
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        super(LoraMixin, type(self)).trainable.fset(self, value)
        if self.__dict__.get("lora_enabled"):
            self.__dict__["_" + self._lora_target].trainable = False

    # ------------------------------------------------------------------ saving
    def _lora_saved_variables(self) -> list:
        """The variables saved in a plain layer's order: all but the factors (a quantized
        layer's order names no factor)."""
        saved = self._saved_variables()
        if saved is not None:
            return saved
        factors = [id(f) for f in self._lora_factors()]
        own = list(self._trainable_variables) + list(self._non_trainable_variables)
        return [v for v in own if id(v) not in factors]

    def save_own_variables(self, store) -> None:
        """A plain layer's variables, the merged weight in the base weight's place."""
        if not self.lora_enabled:
            super().save_own_variables(store)
            return
        merged = self._merged_for_saving()
        for i, variable in enumerate(self._lora_saved_variables()):
            store[str(i)] = merged.get(id(variable), variable)

    def _merged_for_saving(self) -> dict:
        """``{id(variable): value}`` for the variables whose saved value holds LoRA's update:
        the base weight, or (quantized) the weight re-quantized with its scale and zero."""
        base = self.__dict__["_" + self._lora_target]
        mode = self.quantization_mode
        if mode is None:
            return {id(base): _merged(self, base, base.dtype)}
        helpers = self._lora_quantized[mode]
        a, b = self._lora_factors()
        delta = ops.multiply(ops.matmul(a, b), self.lora_alpha / self.lora_rank)
        weight = ops.add(helpers.dequantized(self), ops.cast(delta, self.compute_dtype))
        values = helpers.requantized(self, weight)
        return {id(self._own_variable(name)): value for name, value in values.items()}

    def load_own_variables(self, store) -> None:
        """A plain layer's variables into the base weight and the rest; ``b`` zeroed."""
        if not self.lora_enabled:
            super().load_own_variables(store)
            return
        variables = self._lora_saved_variables()
        keys = list(store.keys())
        if sorted(keys) != sorted(str(i) for i in range(len(variables))):
            raise LoraError(f"{self.name}: a LoRA layer loads {len(variables)} variables "
                            f"({[v.name for v in variables]}, the {self._lora_target} merged) "
                            f"from keys '0' to '{len(variables) - 1}'; received keys "
                            f"{sorted(keys)}")
        values = [store[str(i)] for i in range(len(variables))]
        for i, (variable, value) in enumerate(zip(variables, values)):
            shape = tuple(getattr(value, "shape", ()))
            if shape != tuple(variable.shape):
                raise LoraError(f"{self.name}: variable {i} '{variable.name}' has shape "
                                f"{tuple(variable.shape)}; the stored value has shape "
                                f"{shape}")
        for variable, value in zip(variables, values):
            variable.assign(value)
        b = self._lora_factors()[1]
        b.assign(ops.zeros(b.shape, b.dtype))

    # Without LoRA the hooks are Layer's: the weights loader may check the file itself.
    save_own_variables.plain_layout_if = lambda layer: not layer.lora_enabled
    load_own_variables.plain_layout_if = lambda layer: not layer.lora_enabled

    def _check_quantize_args(self, mode, compute_dtype) -> None:
        super()._check_quantize_args(mode, compute_dtype)
        if self.lora_enabled and mode not in self._lora_quantized:
            raise NotImplementedError(f"{self.name}: quantizing a layer with lora enabled to "
                                      f"'{mode}' is not supported by Lamina (int8 and int4 "
                                      f"are)")
