"""Op-harness cases for the parametric random draws (ops/random_distributions.py): each runs
in both float dtypes and under lamina.jit, where it must draw what eager draws. Their
statistics are tested in tests/random/test_distributions.py."""
import numpy as np
import pytest

from lamina.ops import random_distributions as rd
from tests.harness import case, rand, run_case


def _host_reference(method, *args):
    """numpy's Generator on the Philox stream of an int seed at counter 0."""
    from lamina.ops.seed_generator import _INT_SEED_STREAM

    def ref(x):
        bits = np.random.Philox(key=args[0] | (_INT_SEED_STREAM << 64), counter=(1 << 256) - 1)
        return getattr(np.random.Generator(bits), method)(*args[1:], size=x.shape) \
            .astype(x.dtype)
    return ref


CASES = [
    case("random_gamma", lambda x: rd.random_gamma(x.shape, 1.7, dtype=x.dtype, seed=3),
         _host_reference("standard_gamma", 3, 1.7), [np.zeros((4, 5))], grad=False),
    case("random_beta", lambda x: rd.random_beta(x.shape, 2.0, 0.5, dtype=x.dtype, seed=4),
         _host_reference("beta", 4, 2.0, 0.5), [np.zeros((3, 3))], grad=False),
    case("random_binomial",
         lambda x: rd.random_binomial(x.shape, 7, 0.25, dtype=x.dtype, seed=5),
         _host_reference("binomial", 5, 7, 0.25), [np.zeros((6,))], grad=False),
    case("random_categorical", lambda x: rd.random_categorical(x, 6, seed=6), None,
         [rand(3, 4)], grad=False),
    case("random_permutation", lambda x: rd.random_shuffle(x, axis=1, seed=7), None,
         [rand(2, 5)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)
