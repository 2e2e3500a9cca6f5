"""Run a spec, shrink a failing one, and print the reproduction script.

Shrinking drops one statement (or one layer of a branch or nested model) at a time and
keeps the smaller spec while the same check still fails; the script is the shrunk model's
source followed by ``checks.py`` verbatim, so it runs with only lamina installed.
"""
from __future__ import annotations

import inspect

import lamina

from . import checks
from .models import ModelSpec, render


def run_source(source: str) -> list:
    namespace = {"__name__": "fuzz_case"}
    try:
        exec(compile(source, "<fuzz case>", "exec"), namespace)
        return checks.run_checks(namespace)
    finally:
        lamina.config.set_floatx("float32")


def run_spec(spec: ModelSpec) -> list:
    return run_source(render(spec))


def _smaller(spec: ModelSpec):
    """Specs with one part removed, largest removals first."""
    for i in range(len(spec.stmts)):
        yield spec.replace(stmts=spec.stmts[:i] + spec.stmts[i + 1:])
    for i, s in enumerate(spec.stmts):
        for part in ("choices", "other"):
            items = getattr(s, part)
            for j in range(len(items)):
                smaller = type(s)(**{**s.__dict__, part: items[:j] + items[j + 1:]})
                if smaller.kind in ("layer", "shared", "second_input") and not smaller.choices:
                    continue
                yield spec.replace(stmts=spec.stmts[:i] + [smaller] + spec.stmts[i + 1:])
    if spec.fit_batch == 0 and len(spec.train_batches) > 1:
        yield spec.replace(train_batches=spec.train_batches[:-1])


def shrink(spec: ModelSpec, findings: list, budget: int = 40) -> ModelSpec:
    """The smallest spec found (within ``budget`` runs) that fails the same check."""
    check = findings[0][0]
    progress = True
    while progress and budget > 0:
        progress = False
        for candidate in _smaller(spec):
            budget -= 1
            try:
                found = run_spec(candidate)
            except Exception:        # noqa: BLE001 - an invalid candidate (shapes broke)
                found = []
            if found and found[0][0] == check:
                spec, progress = candidate, True
                break
            if budget <= 0:
                break
    return spec


def script(spec: ModelSpec, findings: list) -> str:
    """A standalone script reproducing ``findings`` for ``spec``."""
    found = "\n".join(f"#   {what}: {message}" for what, message in findings)
    return (f"# Differential fuzzer, seed {spec.seed} ({spec.kind}, {spec.dtype}): "
            f"graph mode differs from eager.\n{found}\n"
            + render(spec) + "\n\n# ---- checks.py (tests/graph/fuzz/checks.py) ----\n"
            + inspect.getsource(checks).split('"""', 2)[2]
            + "\n\nif __name__ == '__main__':\n    print(run_checks(globals()) or 'no difference')\n")
