"""float8 variants for the differential fuzzer: Dense and EinsumDense layers built for the
input shape and quantized to float8 (``layer.quantize("float8")``, or made with a
``QuantizedFloat8DTypePolicy`` of a short amax history) in their constructor expression.
Their delayed-scaling state is overwritten by its "gradient" at every training step, so the
fuzzer's training steps check that rule in both modes. tests/graph/test_fuzz_float8.py runs
the fuzzer with these rules added to the pool.

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``.
"""
from __future__ import annotations

from .catalogue import Choice, _act, _units

# The shape trials evaluate a rule's code with only ``layers`` and ``ops`` in scope.
POLICY = "__import__('lamina').dtype_policies.QuantizedFloat8DTypePolicy"


def _float8(make: str, shape, r) -> str:
    """``make`` is a constructor call with a ``{dtype}`` slot."""
    if r.random() < 0.5:
        return make.format(dtype=f", dtype={POLICY}('float8', 'float32', {r.randint(1, 4)})")
    build = (None, *shape)
    return (f"(lambda q: (q.build({build!r}), q.quantize('float8'), q)[-1])("
            f"{make.format(dtype='')})")


# Without biases: a bias right before a normalization has a gradient that is rounding
# noise (tests/graph/fuzz/checks.py freezes such weights), and here the noise first goes
# through the float8_e5m2 rounding of the output gradient, which makes it look clean at the
# first step and then lets one ulp between the modes' sums flip whole e5m2 steps. The
# float8 bias (added through bfloat16, as Keras) is checked in both modes against Keras's
# numbers by tests/quantizers/test_float8.py.
def float8_dense(r, s):
    make = f"layers.Dense({_units(r)}, activation={_act(r)!r}, use_bias=False{{dtype}})"
    return Choice(_float8(make, s, r))


def float8_einsum_dense(r, s):
    if len(s) != 2:
        return None
    make = (f"layers.EinsumDense('abc,cd->abd', output_shape=({s[0]}, {_units(r)}), "
            f"activation={_act(r)!r}{{dtype}})")
    return Choice(_float8(make, s, r))


RULES = [float8_dense, float8_einsum_dense]
