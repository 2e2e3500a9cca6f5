"""``Hashing``: strings or integers to hash bins, with TensorFlow's stable hashes."""
from __future__ import annotations

from ... import backend, ops
from ...backend.host_data import host_array, map_elements
from ...backend.string_hashing import fingerprint64, siphash64
from .category_encoding import check_not_sparse, check_output_mode, encode, encoded_shape
from .host_layer import HostLayer
from ...core.symbolic import SymbolicTensor
from .index_lookup import _check_salt


class Hashing(HostLayer):
    """Hashes each value into ``num_bins`` bins (Keras 3's ``Hashing``), exactly as Keras's
    TensorFlow ops do: FarmHash ``Fingerprint64`` of the value's text (integers as decimal
    text, floats truncated to integers first) mod the bins, or SipHash-2-4 keyed by
    ``salt`` when given. With ``mask_value``, that value goes to bin 0 and the others to
    1 + hash mod (num_bins - 1). Runs on the host (see :class:`HostLayer`).

    Args:
        num_bins: Number of bins, including the mask bin when ``mask_value`` is set.
        mask_value: Value that goes to bin 0 (the mask); None: no mask bin.
        salt: Key (an int or a pair of ints) for SipHash-2-4 hashing; None uses FarmHash64.
        output_mode: 'int' (bin indices), 'one_hot', 'multi_hot' or 'count'.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else backend.floatx()
        super().__init__(**kwargs)
        if num_bins is None or isinstance(num_bins, bool) or not isinstance(num_bins, int) \
                or num_bins <= 0:
            raise ValueError(f"{self.name}: The `num_bins` for `Hashing` cannot be `None` or "
                             f"non-positive (argument 'num_bins' must be a positive int); "
                             f"received {num_bins!r}")
        if output_mode == "int" and self.compute_dtype not in ("int32", "int64"):
            raise ValueError(f"{self.name}: When `output_mode=\"int\"`, `dtype` should be an "
                             f"integer type, 'int32' or 'int64'; received "
                             f"{self.compute_dtype!r}")
        self.output_mode = check_output_mode(self.name, output_mode,
                                             ("int", "one_hot", "multi_hot", "count"))
        self.sparse = check_not_sparse(self.name, sparse, self.output_mode)
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.salt = _check_salt(self.name, salt)
        self.built = True

    def _bin(self, value, bins: int) -> int:
        if isinstance(value, float):
            value = int(value)
        text = value if isinstance(value, str) else str(value)
        raw = text.encode("utf-8")
        digest = siphash64(self.salt, raw) if self.salt is not None else fingerprint64(raw)
        return digest % bins

    def hash_values(self, values):
        """The bin of every value of ``values`` (host data), as a numpy int64 array."""
        data = host_array(values)
        if self.mask_value is not None and self.num_bins > 1:
            return map_elements(lambda v: 0 if v == self.mask_value else
                                1 + self._bin(v, self.num_bins - 1), data, "int64")
        return map_elements(lambda v: self._bin(v, self.num_bins), data, "int64")

    def call(self, inputs):
        indices = ops.convert_to_tensor(self.hash_values(inputs))
        if self.output_mode == "int":
            return ops.cast(indices, self.compute_dtype)
        if self.output_mode == "one_hot" and indices.ndim and indices.shape[-1] == 1:
            indices = ops.squeeze(indices, -1)
        return encode(self.name, indices, self.output_mode, self.num_bins, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        if self.output_mode == "one_hot" and input_shape and input_shape[-1] == 1:
            input_shape = input_shape[:-1]          # call squeezes a trailing axis of 1
        return encoded_shape(input_shape, self.output_mode, self.num_bins)

    def host_output_spec(self, inputs):
        if not isinstance(inputs, SymbolicTensor):
            return None
        return SymbolicTensor(self.compute_output_shape(inputs.shape), self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": self.sparse}
