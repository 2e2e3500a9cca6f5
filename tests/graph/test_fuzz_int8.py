"""The differential fuzzer (tests/graph/fuzz) with int8-quantized Dense and EinsumDense
layers in its pool (tests/graph/fuzz/catalogue_int8.py): graph mode equals eager on outputs,
gradients and training steps for random models that hold quantized layers."""
import warnings

import pytest

from tests.graph.fuzz import catalogue_int8, models, repro

SEEDS = range(16)


@pytest.fixture
def int8_pool(monkeypatch):
    others = models._rules()
    # About one draw in three is a quantized layer.
    pool = others + catalogue_int8.RULES * (len(others) // (2 * len(catalogue_int8.RULES)))
    monkeypatch.setattr(models, "_ALL_RULES", pool)


def test_the_pool_draws_quantized_layers(int8_pool):
    sources = [models.render(models.generate(seed)) for seed in SEEDS]
    assert sum("quantize('int8')" in source for source in sources) >= len(SEEDS) // 2
    assert any("EinsumDense" in source and "quantize('int8')" in source for source in sources)
    kinds = {models.generate(seed).kind for seed, source in zip(SEEDS, sources)
             if "quantize('int8')" in source}
    assert kinds == set(models.KINDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_quantized_random_model_eager_equals_graph(seed, int8_pool):
    spec = models.generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = repro.run_spec(spec)
    assert not findings, repro.script(spec, findings)
