"""``HashedCrossing``: crosses scalar categorical features into hash bins."""
from __future__ import annotations

from ... import ops
from ...backend.host_data import host_array
from ...backend.string_hashing import fingerprint64, fingerprint_cat64
from ...core.symbolic import SymbolicTensor
from ...dtypes import is_int
from .category_encoding import check_not_sparse, check_output_mode, encode, encoded_shape
from .host_layer import HostLayer

# tf.sparse.cross_hashed's default key, the seed of every crossed hash.
CROSS_HASH_KEY = 0xDECAFCAFFE
_UINT64 = (1 << 64) - 1


class HashedCrossing(HostLayer):
    """Crosses two or more features of shape ``()``, ``(batch,)`` or ``(batch, 1)`` (ints or
    strings) into ``num_bins`` bins, exactly as Keras's ``tf.sparse.cross_hashed``: starting
    from the key 0xDECAFCAFFE, each feature's hash (an int as its own 64 bits, a string as
    its FarmHash64) is folded in with ``FingerprintCat64``; the bin is the result mod
    ``num_bins``. ``output_mode='one_hot'`` one-hot encodes the bins. Runs on the host.

    Args:
        num_bins: Number of bins of the crossed hash.
        output_mode: 'int' (bin indices) or 'one_hot'.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
        name: Name of the layer; None derives a unique one from the class name.
        dtype: Dtype or dtype policy of the layer (e.g. 'float32'); None uses the global policy.
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.output_mode = check_output_mode(self.name, output_mode, ("int", "one_hot"))
        self.sparse = check_not_sparse(self.name, sparse)
        if num_bins is None or isinstance(num_bins, bool) or not isinstance(num_bins, int) \
                or num_bins <= 0:
            raise ValueError(f"{self.name}: argument 'num_bins' must be a positive int; "
                             f"received {num_bins!r}")
        self.num_bins = num_bins
        self.built = True

    def _check_features(self, inputs) -> None:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"{self.name}: `HashedCrossing` should be called on a list or "
                             f"tuple of at least two features; received "
                             f"{type(inputs).__name__}")
        if len(inputs) < 2:
            raise ValueError(f"{self.name}: `HashedCrossing` should be called on at least "
                             f"two inputs (features); received {len(inputs)}")

    def _check_shapes(self, shapes: list) -> tuple:
        shape = tuple(shapes[0])
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError(f"{self.name}: all inputs should have shape (), (batch,) or "
                             f"(batch, 1); received {shape}")
        if any(tuple(s) != shape for s in shapes[1:]):
            raise ValueError(f"{self.name}: all inputs should have equal shape; received "
                             f"{[tuple(s) for s in shapes]}")
        return shape

    def _bad_dtype(self, dtype) -> ValueError:
        return ValueError(f"{self.name}: all inputs should have an integer or string dtype; "
                          f"received dtype {dtype}")

    def _features(self, inputs) -> list:
        self._check_features(inputs)
        features = [host_array(x) for x in inputs]
        self._check_shapes([f.shape for f in features])
        for f in features:
            if f.dtype.kind not in "iu" and not (f.dtype == object and all(
                    isinstance(v, str) for v in f.reshape(-1).tolist())):
                raise self._bad_dtype(f.dtype)
        return features

    def compute_output_shape(self, input_shape):
        shape = self._check_shapes(list(input_shape))
        if self.output_mode == "int":
            return shape
        return encoded_shape(shape, "one_hot", self.num_bins)

    def host_output_spec(self, inputs):
        self._check_features(inputs)
        if not all(isinstance(x, SymbolicTensor) for x in inputs):
            return None
        for x in inputs:
            if not is_int(x.dtype):
                raise self._bad_dtype(x.dtype)
        return SymbolicTensor(self.compute_output_shape([x.shape for x in inputs]),
                              self.compute_dtype)

    def call(self, inputs):
        features = self._features(inputs)
        shape = features[0].shape
        columns = [f.reshape(-1).tolist() for f in features]
        bins = []
        for values in zip(*columns):
            digest = CROSS_HASH_KEY
            for v in values:
                h = fingerprint64(v.encode("utf-8")) if isinstance(v, str) else int(v) & _UINT64
                digest = fingerprint_cat64(digest, h)
            bins.append(digest % self.num_bins)
        out = ops.reshape(ops.convert_to_tensor(bins, dtype="int64"), shape)
        if self.output_mode == "int":
            return ops.cast(out, self.compute_dtype)
        return encode(self.name, out, "one_hot", self.num_bins, self.compute_dtype)

    def get_config(self) -> dict:
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}
