"""Graph autodiff sums the gradients of a value read by several ops in the eager tape's
order (the reverse of the order the program ran them), so the bits agree.

Float addition is not associative: ``(a + b) + c`` and ``(c + b) + a`` round differently.
The graph used to walk its nodes in a depth-first order from the loss, so the sigmoid
crossentropy's three terms (``max(x, 0)``, ``-x z``, ``log1p(exp(-|x|))``) reached the
logits' gradient in another order than eagerly: a 1-ulp difference, which a batch
normalization over identical rows amplified into whole AdamW steps (fuzzer seed 465).
"""
import numpy as np
import pytest

import lamina
from lamina import losses, ops


def _data():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((64, 16)).astype("float32") * 0.05
    labels = rng.integers(0, 2, (64, 16)).astype("float32")
    return ops.convert_to_tensor(logits), ops.convert_to_tensor(labels)


def _gradient_of(loss_fn):
    def step(logits, labels):
        with lamina.GradientTape() as tape:
            tape.watch(logits)
            loss = ops.mean(loss_fn(labels, logits))
        return tape.gradient(loss, [logits])[0]
    return step


@pytest.mark.parametrize("polymorphic", [False, True])
def test_sigmoid_crossentropy_gradient_is_bit_equal_to_eager(polymorphic):
    step = _gradient_of(losses.BinaryCrossentropy(from_logits=True))
    logits, labels = _data()
    eager = step(logits, labels).numpy()
    graph = lamina.jit(step, batch_polymorphic=polymorphic)(logits, labels).numpy()
    np.testing.assert_array_equal(graph, eager)


def test_a_rewritten_graph_whose_creation_order_is_not_topological_keeps_its_order():
    """A node made after a node that reads it (a rewrite) cannot go first: the walk falls
    back to the topological order."""
    from lamina.core.symbolic import SymbolicTensor
    from lamina.graph.autodiff import _in_creation_order
    x = SymbolicTensor((2,), "float32")
    y = ops.exp(x)
    z = ops.negative(y)
    first, second = y.node, z.node
    first.seq, second.seq = second.seq, first.seq      # as if y's node were made last
    assert _in_creation_order([first, second]) == [first, second]
    first.seq, second.seq = second.seq, first.seq
    assert _in_creation_order([second, first]) == [first, second]
