"""``Masking``: marks timesteps whose features all equal ``mask_value`` as padding."""
from __future__ import annotations

from ... import ops
from ..input_spec import InputSpec
from ..layer import Layer


class Masking(Layer):
    """Masks a timestep when every feature equals ``mask_value`` (Keras 3's ``Masking``).

    The output is the input with masked timesteps set to zero; the mask
    ``any(inputs != mask_value, axis=-1)`` is attached for downstream layers.

    Args:
        mask_value: A timestep is masked when every feature equals this value.
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(mask_value, bool) or not isinstance(mask_value, (int, float)):
            raise TypeError(f"{self.name}: argument 'mask_value' must be a number; "
                            f"received {mask_value!r}")
        self.mask_value = mask_value
        self.supports_masking = True
        self.input_spec = InputSpec.described("(batch, ..., features)", min_ndim=2)
        self._build_at_init()

    def _keep(self, inputs, keepdims: bool):
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=keepdims)

    def call(self, inputs):
        return ops.multiply(inputs, ops.cast(self._keep(inputs, True), inputs.dtype))

    def compute_mask(self, inputs, mask=None):
        return self._keep(inputs, False)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
