"""Numpy re-implementations of Keras 3's update rules, for golden multi-step values.

Each ``*_step`` takes the weights ``w``, gradient ``g``, learning rate, the step count
``t`` (= iterations + 1) and a dict of slot arrays it updates in place; arithmetic stays
in the arrays' dtype (numpy treats Python floats as weak scalars), as Keras's ops do.
"""
import numpy as np


def sgd_step(w, g, lr, t, s, momentum=0.0, nesterov=False):
    if momentum == 0:
        return w - g * lr
    m = s.setdefault("m", np.zeros_like(w))
    m[...] = m * momentum - g * lr
    return w + (m * momentum - g * lr) if nesterov else w + m


def adam_step(w, g, lr, t, s, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False):
    m = s.setdefault("m", np.zeros_like(w))
    v = s.setdefault("v", np.zeros_like(w))
    dt = w.dtype.type
    b1t, b2t = dt(beta_1) ** dt(t), dt(beta_2) ** dt(t)
    alpha = dt(lr) * np.sqrt(1 - b2t) / (1 - b1t)
    m += (g - m) * (1 - beta_1)
    v += (g * g - v) * (1 - beta_2)
    if amsgrad:
        vh = s.setdefault("vh", np.zeros_like(w))
        vh[...] = np.maximum(vh, v)
        v = vh
    return w - m * alpha / (np.sqrt(v) + epsilon)


def rmsprop_step(w, g, lr, t, s, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    v = s.setdefault("v", np.zeros_like(w))
    v[...] = rho * v + (1 - rho) * (g * g)
    if centered:
        a = s.setdefault("a", np.zeros_like(w))
        a[...] = rho * a + (1 - rho) * g
        denominator = v - a * a + epsilon
    else:
        denominator = v + epsilon
    increment = lr * g / np.sqrt(denominator)
    if momentum > 0:
        mom = s.setdefault("mom", np.zeros_like(w))
        mom[...] = momentum * mom + increment
        return w - mom
    return w - increment


def adagrad_step(w, g, lr, t, s, initial_accumulator_value=0.1, epsilon=1e-7):
    acc = s.setdefault("acc", np.full_like(w, initial_accumulator_value))
    acc += g * g
    return w - lr * g / np.sqrt(acc + epsilon)


def adadelta_step(w, g, lr, t, s, rho=0.95, epsilon=1e-7):
    eg = s.setdefault("eg", np.zeros_like(w))
    edx = s.setdefault("edx", np.zeros_like(w))
    eg[...] = rho * eg + (1 - rho) * (g * g)
    delta = -(np.sqrt(edx + epsilon) * g / np.sqrt(eg + epsilon))
    edx[...] = rho * edx + (1 - rho) * (delta * delta)
    return w + lr * delta


def adamax_step(w, g, lr, t, s, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    m = s.setdefault("m", np.zeros_like(w))
    u = s.setdefault("u", np.zeros_like(w))
    dt = w.dtype.type
    m += (g - m) * (1 - beta_1)
    u[...] = np.maximum(beta_2 * u, np.abs(g))
    return w - lr * m / ((1 - dt(beta_1) ** dt(t)) * (u + epsilon))


def nadam_step(w, g, lr, t, s, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """One variable's Nadam step; ``s["u_product"]`` must already hold this step's
    product (the optimizer updates it once per step, before the variables)."""
    dt = w.dtype.type
    m = s.setdefault("m", np.zeros_like(w))
    v = s.setdefault("v", np.zeros_like(w))

    def cache(step):
        return beta_1 * (1.0 - 0.5 * dt(0.96) ** dt(step))

    u_t, u_t_1 = cache(t), cache(t + 1)
    u_product_t = s["u_product"]
    u_product_t_1 = u_product_t * u_t_1
    m += (g - m) * (1 - beta_1)
    v += (g * g - v) * (1 - beta_2)
    m_hat = u_t_1 * m / (1 - u_product_t_1) + (1 - u_t) * g / (1 - u_product_t)
    v_hat = v / (1 - dt(beta_2) ** dt(t))
    return w - m_hat * lr / (np.sqrt(v_hat) + epsilon)


def nadam_u_product(u_product, t, beta_1=0.9, dtype="float32"):
    dt = np.dtype(dtype).type
    return u_product * dt(beta_1) * (1.0 - 0.5 * dt(0.96) ** dt(t))


def lion_step(w, g, lr, t, s, beta_1=0.9, beta_2=0.99):
    m = s.setdefault("m", np.zeros_like(w))
    w = w - lr * np.sign(m * beta_1 + g * (1.0 - beta_1))
    m[...] = m * beta_2 + g * (1.0 - beta_2)
    return w


STEPS = {"SGD": sgd_step, "Adam": adam_step, "AdamW": adam_step, "RMSprop": rmsprop_step,
         "Adagrad": adagrad_step, "Adadelta": adadelta_step, "Adamax": adamax_step,
         "Nadam": nadam_step, "Lion": lion_step}


def run(name, weights, grad_fn, steps, lr, dtype, weight_decay=None, **hp):
    """``steps`` steps of optimizer ``name`` on a list of weight arrays, with gradients
    ``grad_fn(i, w)`` for weight ``i``; returns the final weights."""
    weights = [np.array(w, dtype=dtype) for w in weights]
    slots = [{} for _ in weights]
    u_product = np.array(1.0, dtype=dtype)
    lr = np.array(lr, dtype=dtype)
    for t in range(1, steps + 1):
        if name == "Nadam":
            u_product = nadam_u_product(u_product, t, hp.get("beta_1", 0.9), dtype)
        for i, w in enumerate(weights):
            g = grad_fn(i, w)
            if weight_decay is not None:
                w = w - w * weight_decay * lr
            if name == "Nadam":
                slots[i]["u_product"] = u_product
            weights[i] = STEPS[name](w, g, lr, t, slots[i], **hp)
    return weights
