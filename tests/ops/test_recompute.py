"""recompute_barrier (lamina.remat's fence): x unchanged, no gradient to its extra inputs."""
import pytest

from lamina.core import op as op_module
from tests.harness import case, rand, run_case

_barrier = op_module.OP_REGISTRY["recompute_barrier"]

CASES = [
    case("recompute_barrier", lambda x, g: _barrier(x, g) * 2.0, lambda x, g: x * 2.0,
         [rand(3, 2), rand(4)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)
