"""Random ``lamina.jit`` programs: views of variables (reshape, transpose, getitem,
expand_dims, stop_gradient, convert_to_tensor) mixed with in-place ``assign``,
``assign_add`` and ``assign_sub`` and a GradientTape step, rendered as source that defines
``program(x)``; ``check_program`` runs it eagerly and through ``lamina.jit`` (two calls
each, from the same initial values) and compares the results and the variables.
"""
from __future__ import annotations

import random

import numpy as np

import lamina

from .checks import differences

VIEWS = ["ops.reshape({v}, (-1,))", "ops.transpose({v})", "{v}[1:]", "{v}[::-1]",
         "ops.expand_dims({v}, 0)", "ops.stop_gradient({v})", "ops.convert_to_tensor({v})",
         "{v}[0]", "ops.reshape(ops.transpose({v}), (-1,))"]


def generate_program(seed: int) -> tuple[str, bool]:
    """(source, stale): ``stale`` when a view is read after an assign to its variable --
    then eager (item 5) and the executor (item 1) disagree on what the view holds."""
    r = random.Random(seed)
    dtype = "float64" if r.random() < 0.3 else "float32"
    shapes = [(r.randint(2, 4), r.randint(2, 4)) for _ in range(r.randint(1, 3))]
    lines = ["import numpy as np", "import lamina", "from lamina import ops", "",
             f"DTYPE = {dtype!r}", "rng = np.random.default_rng(0)",
             f"SHAPES = {shapes!r}",
             "INITIAL = [rng.standard_normal(s).astype(DTYPE) for s in SHAPES]",
             "VARIABLES = [lamina.Variable(a, dtype=DTYPE, name=f'v{i}') "
             "for i, a in enumerate(INITIAL)]",
             "X = rng.standard_normal(SHAPES[0]).astype(DTYPE)", "", "",
             "def program(x):", "    v = VARIABLES", "    outs = []"]
    views = []                                  # (name, variable index)
    stale_views, stale = set(), False
    safe = r.random() < 0.5          # half the programs read no view after an assign

    def fresh_views():
        return [(n, j) for n, j in views if not (safe and n in stale_views)]

    def use(name):
        nonlocal stale
        stale = stale or name in stale_views
        return name
    for k in range(r.randint(3, 9)):
        i = r.randrange(len(shapes))
        roll = r.random()
        if roll < 0.4 or not fresh_views():
            name = f"t{k}"
            lines.append(f"    {name} = {r.choice(VIEWS).format(v=f'v[{i}]')}")
            views.append((name, i))
        elif roll < 0.75:
            src = f"ops.reshape(ops.ones_like(v[{i}]) * ops.mean({use(r.choice(fresh_views())[0])}), " \
                  f"{shapes[i]!r})"
            method = r.choice(["assign", "assign_add", "assign_sub"])
            scale = r.choice(["0.5", "x[0, 0]", "ops.sum(x)"])
            lines.append(f"    v[{i}].{method}(ops.multiply({src}, {scale}) + "
                         f"ops.reshape(v[{i}] * 0.1, {shapes[i]!r}))")
            stale_views.update(n for n, j in views if j == i)
        elif roll < 0.9:
            name = use(r.choice(fresh_views())[0])
            lines.append(f"    outs.append(ops.sum({name} * {name}))")
        else:
            lines += [
                "    with lamina.GradientTape() as tape:",
                f"        loss = ops.sum(ops.square(ops.reshape(v[{i}], (-1,))[:{shapes[i][1]}]"
                f" - ops.reshape(x, (-1,))[:{shapes[i][1]}]))",
                f"    grad = tape.gradient(loss, v[{i}])",
                f"    v[{i}].assign_sub(grad * 0.1)",
                "    outs.append(loss)"]
            stale_views.update(n for n, j in views if j == i)
    lines += ["    outs += [ops.sum(t) for t, _ in [" +
              ", ".join(f"({n}, {i})" for n, i in fresh_views()) + "]]",
              "    return outs"]
    stale = stale or any(n in stale_views for n, _ in fresh_views())
    return "\n".join(lines) + "\n", stale


def check_program(source: str, eager_source: str | None = None) -> list:
    """[(check, message)] where eager and jit differ; empty when they agree
    (``eager_source``: another program to run eagerly as the reference)."""
    results = {}
    for mode in ("eager", "graph"):
        ns: dict = {"__name__": "fuzz_program"}
        text = eager_source if mode == "eager" and eager_source else source
        exec(compile(text, "<fuzz program>", "exec"), ns)
        fn = ns["program"] if mode == "eager" else lamina.jit(ns["program"])
        x = lamina.ops.convert_to_tensor(ns["X"])
        try:
            calls = [fn(x), fn(x)]
        except Exception as exc:              # noqa: BLE001 - reported as a finding
            results[mode] = exc
            continue
        results[mode] = ([[np.asarray(t.numpy()) for t in c] for c in calls],
                         [np.asarray(v.numpy()) for v in ns["VARIABLES"]], ns["DTYPE"])
    eager, graph = results["eager"], results["graph"]
    if isinstance(eager, Exception) or isinstance(graph, Exception):
        if isinstance(eager, Exception) and isinstance(graph, Exception):
            return [("program", f"both raised: {eager!r} / {graph!r}")]
        which = "eager" if isinstance(eager, Exception) else "graph"
        return [("program", f"{which} raised {results[which]!r}")]
    dtype = eager[2]
    return (differences(graph[0], eager[0], dtype, "jit outputs")
            or differences(graph[1], eager[1], dtype, "variables after two calls"))


def snapshot_source(source: str) -> str:
    """``source`` with every view replaced by a copy taken when it is made: the values
    TF and JAX give (issue 9 item 5: Lamina's eager views follow later assigns)."""
    out = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("t") and " = " in stripped and line.startswith("    t"):
            name, expr = stripped.split(" = ", 1)
            line = f"    {name} = ops.add({expr}, 0)"
        out.append(line)
    return "\n".join(out) + "\n"


def diagnose_program(source: str) -> str:
    """'item 5' when the jit result equals eager with snapshot views (eager is what is
    wrong), 'item 1' when the graph run without memory plan does, else 'new'."""
    from .diagnose import without_memory_plan
    snap = snapshot_source(source)
    if not _compare_modes(source, snap):
        return "item 5"
    with without_memory_plan():
        if not _compare_modes(source, snap):
            return "item 1"
    return "new"


def _compare_modes(graph_source: str, eager_source: str) -> list:
    return check_program(graph_source, eager_source)
