"""Eager vs graph on one generated model: standalone (numpy and lamina only), because a
reproduction script embeds this file verbatim after the model's source.

``run_checks(namespace)`` takes the namespace the model source ran in (``build_model``,
``make_optimizer``, ``LOSS``, ``DATA``, ``TRAINING``), builds two twins from the same seed
with the same weights (``set_weights``) -- one compiled with ``run_eagerly=True``, one in
graph mode -- and compares, stopping at the first difference:

Functional and Sequential models without Python lambdas (``DATA["round_trip"]``) are
rebuilt by ``from_config(get_config())`` for both twins, and check 0 ("config round trip")
compares the model as built, with the eager twin's weights, to the eager twin (inference).

1. ``predict`` with a batch size that may not divide the data (a ragged last batch);
2. loss and gradients: a GradientTape run eagerly vs ``lamina.jit`` of the same function,
   in training mode (dropout masks are counter-based, so both twins draw the same ones);
3. 3-5 training steps (``fit`` with a ragged last batch, or ``train_on_batch`` with a
   different batch size each call): the logs and then every weight;
4. ``predict`` again after training.

It returns a list of ``(check, message)``; empty when the twins agree.
"""
import numpy as np

import lamina
from lamina import ops

SEED = 1234


def tolerances(dtype):
    # DESIGN.md / issue 9: float32 after several optimizer steps, and float64.
    return (1e-4, 1e-5) if dtype == "float32" else (1e-10, 1e-12)


def make_data(data, seed=0):
    rng = np.random.default_rng(seed)
    n, shape, dtype, units = data["n"], data["input_shape"], data["dtype"], data["units"]
    if data["vocab"]:
        x = rng.integers(0, data["vocab"], (n, *shape)).astype("int32")
    else:
        x = rng.standard_normal((n, *shape)).astype(dtype)
    if data["inputs"] == 2:
        x = [x, rng.standard_normal((n, *shape)).astype(dtype)]
    ints = rng.integers(0, units, n)
    labels = {
        "sparse": lambda: ints,
        "onehot": lambda: np.eye(units, dtype=dtype)[ints],
        "binary": lambda: rng.integers(0, 2, (n, units)).astype(dtype),
        "real": lambda: rng.standard_normal((n, units)).astype(dtype),
        "probs": lambda: _softmax(rng.standard_normal((n, units))).astype(dtype),
        "counts": lambda: rng.poisson(1.0, (n, units)).astype(dtype),
        "pm1": lambda: rng.choice([-1.0, 1.0], (n, units)).astype(dtype),
    }
    return x, labels[data["labels"]]()


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def rows(x, count):
    return [a[:count] for a in x] if isinstance(x, list) else x[:count]


def twins(ns, x):
    models = []
    for eager in (True, False):
        lamina.utils.set_random_seed(SEED)
        model = ns["build_model"]()
        if ns["DATA"].get("round_trip"):
            # both twins are the model rebuilt from its config (op nodes included), made
            # alike so layers with seed=None draw alike; see ``round_trip_check``
            config = model.get_config()
            lamina.utils.set_random_seed(SEED)
            model = type(model).from_config(config)
        model(rows(x, 2))                           # creates the weights
        model.compile(optimizer=ns["make_optimizer"](), loss=ns["LOSS"], run_eagerly=eager)
        models.append(model)
    models[1].set_weights(models[0].get_weights())
    return models


def _host(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value, dtype=float)


def differences(got, want, dtype, what):
    rtol, atol = tolerances(dtype)
    got, want = lamina.tree.flatten(got), lamina.tree.flatten(want)
    if len(got) != len(want):
        return [(what, f"{len(got)} values in graph mode, {len(want)} eagerly")]
    for i, (g, w) in enumerate(zip(got, want)):
        if (g is None) != (w is None):
            return [(what, f"[{i}]: graph {g!r}, eager {w!r}")]
        if g is None:
            continue
        g, w = _host(g), _host(w)
        if g.shape != w.shape:
            return [(what, f"[{i}]: graph shape {g.shape}, eager {w.shape}")]
        if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            err = np.abs(g - w)
            rel = np.max(err / np.maximum(np.abs(w), atol))
            return [(what, f"[{i}] of {len(got)}: max abs diff {np.nanmax(err):.3g}, "
                           f"max rel diff {rel:.3g} (rtol {rtol}, atol {atol})")]
    return []


def _run(what, eager_fn, graph_fn, dtype):
    try:
        want = eager_fn()
    except Exception as exc:                      # noqa: BLE001 - reported as a finding
        try:
            graph_fn()
        except Exception as graph_exc:            # noqa: BLE001
            return None, [(what, f"both raised: eager {type(exc).__name__}: {exc}; "
                                 f"graph {type(graph_exc).__name__}: {graph_exc}")]
        return None, [(what, f"eager raised {type(exc).__name__}: {exc}")]
    try:
        got = graph_fn()
    except Exception as exc:                      # noqa: BLE001
        return None, [(what, f"graph raised {type(exc).__name__}: {exc}")]
    return (got, want), differences(got, want, dtype, what)


def gradient_function(model, loss_name):
    loss_fn = lamina.losses.get(loss_name)

    def step(x, y):
        with lamina.GradientTape() as tape:
            loss = ops.mean(loss_fn(y, model(x, training=True)))
            for extra in model.losses:
                loss = loss + ops.cast(extra, loss.dtype)
        return loss, tape.gradient(loss, model.trainable_weights)
    return step


def _train(model, x, y, training):
    if training["fit_batch"]:
        history = model.fit(x, y, batch_size=training["fit_batch"], epochs=1, shuffle=False,
                            verbose=0)
        return history.history
    return [model.train_on_batch(rows(x, b), y[:b], return_dict=True)
            for b in training["train_batches"]]


def noise_weights(model, grads, other_grads, dtype) -> set:
    """Positions in ``model.weights`` of the trainable weights whose gradient is rounding
    noise, when the optimizer's step does not scale with the gradient (everything but SGD:
    Adam, RMSprop, Lion, ...). A bias right before a normalization has a true gradient of
    zero: what is computed is rounding, either tiny (at most 1e-6 of the largest gradient;
    1e-13 in float64) or, where the normalization's backward cancels large terms, as large
    as the disagreement between two correct computations (eager's ``grads`` and the
    graph's ``other_grads`` differ by over 1% of it). Such a weight moves by whole steps in
    directions that rounding decides, so eager and graph train it apart (a scan's per-step
    gradient sums against the eager tape's running sum), and the statistics after it
    (BatchNormalization's moving mean) follow. ``run_checks`` freezes these weights in
    both twins before training; their gradients were compared (absolute tolerance)."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or isinstance(optimizer, lamina.optimizers.SGD):
        return set()

    def size(g):
        return float(np.max(np.abs(_host(g)))) if g is not None and _host(g).size else 0.0
    sizes = [size(g) for g in grads]
    floor = max(sizes, default=0.0) * (1e-6 if dtype == "float32" else 1e-13)
    noisy = set()
    for v, g, other, magnitude in zip(model.trainable_weights, grads, other_grads, sizes):
        disagreement = size(_host(g) - _host(other)) if g is not None and other is not None \
            else 0.0
        if magnitude <= floor or disagreement > 0.01 * magnitude:
            noisy.add(id(v))
    return {k for k, v in enumerate(model.weights) if id(v) in noisy}


def first_batch_noise(ns, eager, graph, x, y, training, dtype) -> set:
    """``noise_weights`` on the first training batch, whose step starts from exactly the
    weights compared above: a gradient can be rounding noise there and real on the whole
    data set (a balanced batch at a uniform softmax, where the true gradient of every bias
    is 0; no sample of the batch in a clipped region of hard_sigmoid, so a normalization
    cancels a bias's shift exactly). Adam-like steps then move by the noise's ratio to
    epsilon, and the twins train apart from a true gradient of 0. In float32 the true
    gradient is also computed in float64 (the same weights): a weight whose float64
    gradient is at most 1e-13 of the largest is noise even where eager and graph agree.
    Under SGD no weight counts as noise (its step scales with the gradient), so nothing is
    computed."""
    if isinstance(getattr(eager, "optimizer", None), lamina.optimizers.SGD):
        return set()
    count = training["fit_batch"] or training["train_batches"][0]
    x, y = rows(x, count), y[:count]
    tensors = (lamina.tree.map_structure(ops.convert_to_tensor, x), ops.convert_to_tensor(y))
    grads = gradient_function(eager, ns["LOSS"])(*tensors)[1]
    other = lamina.jit(gradient_function(graph, ns["LOSS"]))(*tensors)[1]
    noisy = noise_weights(eager, grads, other, dtype)
    if dtype == "float32":
        exact = _float64_gradients(ns, eager, x, y)
        noisy |= noise_weights(eager, exact, exact, "float64")
    return noisy


def _float64_gradients(ns, model, x, y):
    def wide(a):
        return a.astype("float64") if np.issubdtype(a.dtype, np.floating) else a
    floatx = lamina.config.floatx()
    lamina.config.set_floatx("float64")
    try:
        lamina.utils.set_random_seed(SEED)
        twin = ns["build_model"]()
        twin(lamina.tree.map_structure(wide, rows(x, 2)))
        twin.set_weights([wide(w) for w in model.get_weights()])
        tensors = (lamina.tree.map_structure(lambda a: ops.convert_to_tensor(wide(a)), x),
                   ops.convert_to_tensor(wide(y)))
        return gradient_function(twin, ns["LOSS"])(*tensors)[1]
    finally:
        lamina.config.set_floatx(floatx)


def round_trip_check(ns, eager, x, batch):
    """The model as ``build_model`` makes it, given the eager twin's weights (the order
    of its weights must be the round-tripped model's), predicting eagerly: this step
    checks the config round trip; graph against eager is every other step's (a third
    trace made heavy models' seeds take over 10 s)."""
    lamina.utils.set_random_seed(SEED)
    original = ns["build_model"]()
    original(rows(x, 2))
    original.set_weights(eager.get_weights())
    original.compile(run_eagerly=True)
    return original.predict(x, batch_size=batch, verbose=0)


def run_checks(ns):
    data, training, dtype = ns["DATA"], ns["TRAINING"], ns["DATA"]["dtype"]
    x, y = make_data(data)
    eager, graph = twins(ns, x)
    tensors = (lamina.tree.map_structure(ops.convert_to_tensor, x), ops.convert_to_tensor(y))
    batch = training["predict_batch"]
    steps = [
        ("predict", lambda m: m.predict(x, batch_size=batch, verbose=0), None),
        ("gradients", lambda m: gradient_function(m, ns["LOSS"])(*tensors),
         lambda m: lamina.jit(gradient_function(m, ns["LOSS"]))(*tensors)),
        ("training logs", lambda m: _train(m, x, y, training), None),
        ("weights after training", lambda m: m.get_weights(), None),
        # From the same weights: the trained weights were compared just above, and a model
        # whose outputs amplify their rounding-level differences (a normalization of a
        # near-constant map) would otherwise fail on that amplification, not on graph mode
        # (seed 26: two LayerNormalizations after nearest-neighbour resizing)
        ("predict after training", lambda m: m.predict(x, batch_size=batch, verbose=0),
         lambda m: (m.set_weights(eager.get_weights()),
                    m.predict(x, batch_size=batch, verbose=0))[1]),
    ]
    if data.get("round_trip"):
        steps.insert(0, ("config round trip", lambda m: m.predict(x, batch_size=batch, verbose=0),
                         lambda m: round_trip_check(ns, eager, x, batch)))
    for what, fn, graph_fn in steps:
        graph_fn = graph_fn or fn
        results, found = _run(what, lambda: fn(eager), lambda: graph_fn(graph), dtype)
        if found:
            return found
        if what == "gradients":
            (_, graph_grads), (_, eager_grads) = results
            noisy = noise_weights(eager, eager_grads, graph_grads, dtype)
            noisy |= first_batch_noise(ns, eager, graph, x, y, training, dtype)
            for k in noisy:
                eager.weights[k].trainable = graph.weights[k].trainable = False
    return []
