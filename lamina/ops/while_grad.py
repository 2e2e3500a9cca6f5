"""The gradient of a ``while`` node (``lamina/ops/control_flow.py``): the loop is run
forward again (its trip count is data, known only then), keeping per iteration the values
the body's vector-Jacobian program reads, then that program runs once per iteration in
reverse order, carrying the loop variables' cotangents and summing the gradients of the
values the body reads from outside (TensorFlow differentiates ``tf.while_loop`` the same
way; Keras's TensorFlow and torch backends differentiate ``while_loop``)."""
from __future__ import annotations

from ..dtypes import is_float
from ..core.op import Op, Spec, register_op


def while_gradient(ctx, grads, while_grad):
    """``While.gradient``: the gradients of the float inputs that need one."""
    wrt = tuple(i for i, (x, need) in enumerate(zip(ctx.inputs, ctx.needs_grad))
                if need and is_float(x.dtype))
    result = [None] * len(ctx.inputs)
    if not wrt:
        return tuple(result)
    found = while_grad(*ctx.inputs, *grads, cond=ctx.attrs["cond"], body=ctx.attrs["body"],
                       n_cond=ctx.attrs["n_cond"], wrt=wrt)
    found = found if isinstance(found, (tuple, list)) else (found,)
    for i, g in zip(wrt, found):
        result[i] = g
    return tuple(result)


@register_op
class WhileGrad(Op):
    """Inputs: the ``while`` node's inputs (loop variables, the condition's values, the
    body's values), then one cotangent per loop variable; outputs: the gradients of the
    inputs numbered in ``wrt`` (zeros for the condition's values: a boolean has no
    gradient). Created only by ``While.gradient``; no second order through it."""
    name = "while_grad"
    differentiable = False

    def output_spec(self, *inputs, cond=None, body=None, n_cond=0, wrt=()):
        n = body.n_carry
        total = n + n_cond + body.n_const
        if len(inputs) != total + n:
            raise ValueError(f"{self.name}: expected the loop's {total} inputs and {n} "
                             f"cotangents; received {len(inputs)} inputs")
        if not wrt or any(not 0 <= i < total for i in wrt):
            raise ValueError(f"{self.name}: attribute 'wrt' must name inputs in "
                             f"[0, {total}); received {wrt!r}")
        specs = tuple(Spec(tuple(inputs[i].shape), inputs[i].dtype) for i in wrt)
        return specs if len(specs) > 1 else specs[0]

    def forward(self, backend, *arrays, out=None, cond=None, body=None, n_cond=0, wrt=()):
        n = body.n_carry
        first_body = n + n_cond
        total = first_body + body.n_const
        carries = list(arrays[:n])
        cond_inputs, constants = list(arrays[n:first_body]), list(arrays[first_body:total])
        body_wrt = tuple(i - n_cond for i in wrt if i >= first_body)
        backward, kept = body.backward(body_wrt)
        values = []
        while bool(backend.to_host(cond.forward(backend, carries + cond_inputs)[0][0])):
            outputs, slots = body.forward(backend, carries + constants)
            values.append([slots[i] for i in kept])
            carries = list(outputs)
        fed = body.forward.input_slots[n:]
        sums = {i: backend.full(arrays[i].shape, 0, arrays[i].dtype)
                for i in wrt if i >= n}
        d_carries = list(arrays[total:])
        for k in range(len(values) - 1, -1, -1):
            slots = list(backward.template)
            for i, value in zip(kept, values[k]):
                slots[i] = value
            for i, value in zip(fed, constants):
                slots[i] = value
            for i, value in zip(backward.input_slots, d_carries):
                slots[i] = value
            grads = backward.run(backend, slots)
            for i in wrt:
                g = grads[i - n_cond] if i >= first_body else None
                if g is not None:
                    backend.binary("add", sums[i], g, out=sums[i])
            d_carries = [grads[j] if grads[j] is not None
                         else backend.full(arrays[j].shape, 0, arrays[j].dtype)
                         for j in range(n)]
        for j in range(n):
            if j in sums or j in wrt:          # a copy: it may alias a cotangent
                sums[j] = backend.cast(d_carries[j], str(arrays[j].dtype))
        results = tuple(sums[i] for i in wrt)
        return results if len(results) > 1 else results[0]
