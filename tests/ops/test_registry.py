"""Walks the op registry and lamina.ops: every op must have a case in some test module."""
import importlib
import pkgutil

import lamina
from lamina import ops

import tests.ops


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(tests.ops.__path__):
        if info.name.startswith("test_") and info.name != "test_registry":
            module = importlib.import_module(f"tests.ops.{info.name}")
            cases.extend(getattr(module, "CASES", []))
    return cases


def test_every_registered_op_has_forward_and_gradient_cases():
    cases = all_cases()
    covered = {c.op for c in cases}
    with_grad = {c.op for c in cases if c.grad}
    missing = sorted(name for name in ops.OP_REGISTRY if name not in covered)
    assert not missing, f"registered ops with no test case: {missing}"
    no_grad = sorted(name for name, op in ops.OP_REGISTRY.items()
                     if op.differentiable and name not in with_grad)
    assert not no_grad, f"differentiable ops with no gradient check: {no_grad}"


def test_every_public_function_has_a_case():
    covered = {c.op for c in all_cases()}
    public = [name for name in ops.__all__
              if name not in ops.UTILITIES and callable(getattr(ops, name))]
    missing = sorted(name for name in public if name not in covered)
    assert not missing, f"public lamina.ops functions with no test case: {missing}"


def test_registry_walk_can_fail():
    # The walk above is only worth something if an op with no case is noticed.
    @ops.register_op
    class _Uncovered(ops.Op):
        name = "_uncovered_for_registry_test"
    try:
        covered = {c.op for c in all_cases()}
        assert "_uncovered_for_registry_test" not in covered
        assert "_uncovered_for_registry_test" in ops.OP_REGISTRY
    finally:
        del ops.OP_REGISTRY["_uncovered_for_registry_test"]
    assert isinstance(lamina.ops.OP_REGISTRY, dict)
