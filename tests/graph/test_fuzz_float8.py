"""The differential fuzzer (tests/graph/fuzz) with float8 Dense and EinsumDense layers in
its pool (tests/graph/fuzz/catalogue_float8.py): graph mode equals eager on outputs,
gradients and training steps -- which overwrite the layers' delayed-scaling state -- for
random models that hold float8 layers."""
import warnings

import pytest

from tests.graph.fuzz import catalogue_float8, models, repro

SEEDS = range(16)


@pytest.fixture
def float8_pool(monkeypatch):
    others = models._rules()
    # About one draw in three is a float8 layer.
    pool = others + catalogue_float8.RULES * (len(others) // (2 * len(catalogue_float8.RULES)))
    monkeypatch.setattr(models, "_ALL_RULES", pool)


def _has_float8(source: str) -> bool:
    return "quantize('float8')" in source or "QuantizedFloat8DTypePolicy" in source


def test_the_pool_draws_float8_layers(float8_pool):
    sources = [models.render(models.generate(seed)) for seed in SEEDS]
    assert sum(map(_has_float8, sources)) >= len(SEEDS) // 2
    assert any("quantize('float8')" in source for source in sources)
    assert any("QuantizedFloat8DTypePolicy" in source for source in sources)
    assert any("EinsumDense" in source and _has_float8(source) for source in sources)
    kinds = {models.generate(seed).kind for seed, source in zip(SEEDS, sources)
             if _has_float8(source)}
    assert kinds == set(models.KINDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_float8_random_model_eager_equals_graph(seed, float8_pool):
    spec = models.generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = repro.run_spec(spec)
    assert not findings, repro.script(spec, findings)
