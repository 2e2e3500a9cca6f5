"""The differential fuzzer (tests/graph/fuzz) with int4-quantized Dense and EinsumDense
layers in its pool (tests/graph/fuzz/catalogue_int4.py: per channel, with quantized inputs,
and in groups): graph mode equals eager on outputs, gradients and training steps for random
models that hold int4 layers."""
import re
import warnings

import pytest

from tests.graph.fuzz import catalogue_int4, models, repro

SEEDS = range(16)


@pytest.fixture
def int4_pool(monkeypatch):
    others = models._rules()
    # About one draw in three is a quantized layer.
    pool = others + catalogue_int4.RULES * (len(others) // (2 * len(catalogue_int4.RULES)))
    monkeypatch.setattr(models, "_ALL_RULES", pool)


def test_the_pool_draws_int4_layers(int4_pool):
    sources = [models.render(models.generate(seed)) for seed in SEEDS]
    assert sum("quantize('int4'" in source for source in sources) >= len(SEEDS) // 2
    assert any("EinsumDense" in source and "quantize('int4'" in source for source in sources)
    for kind in (r"block_size=None", r"AbsMaxQuantizer\(\)", r"block_size=[1-4]\)"):
        assert any(re.search(kind, source) for source in sources), kind
    kinds = {models.generate(seed).kind for seed, source in zip(SEEDS, sources)
             if "quantize('int4'" in source}
    assert kinds == set(models.KINDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_int4_random_model_eager_equals_graph(seed, int4_pool):
    spec = models.generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = repro.run_spec(spec)
    assert not findings, repro.script(spec, findings)
