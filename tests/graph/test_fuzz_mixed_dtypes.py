"""The differential fuzzer (tests/graph/fuzz) with layers computing in another dtype than
the model's in its pool (tests/graph/fuzz/catalogue_dtypes.py: float32 layers in float64
models and the reverse, mixed float16/bfloat16 policies, LoRA factors, Lambda casts of
transposed tensors): graph mode equals eager on outputs, gradients and training steps."""
import warnings

import pytest

from tests.graph.fuzz import catalogue_dtypes, models, repro

SEEDS = range(24)


@pytest.fixture
def mixed_pool(monkeypatch):
    others = models._rules()
    # About one draw in three is a layer in another dtype.
    pool = others + catalogue_dtypes.RULES * (len(others) // (2 * len(catalogue_dtypes.RULES)))
    monkeypatch.setattr(models, "_ALL_RULES", pool)


def _drawn(source) -> bool:
    """Does a model's source hold a layer of catalogue_dtypes.py?"""
    return any(f"dtype={d!r})" in source for d in catalogue_dtypes.DTYPES) or \
        any(code in source for code in catalogue_dtypes.CAST_LAMBDAS)


def test_the_pool_draws_layers_in_other_dtypes(mixed_pool):
    sources = {seed: models.render(models.generate(seed)) for seed in range(100)}
    mixed = [source for source in sources.values() if _drawn(source)]
    assert len(mixed) >= len(sources) // 3
    assert sum(_drawn(sources[seed]) for seed in SEEDS) >= len(SEEDS) // 3
    # seed 15's case: a float64 model with LoRA factors in 32 bits
    assert any("set_floatx('float64')" in source and "lora_rank" in source and
               any(f"dtype={d!r})" in source
                   for d in ("float32", "mixed_float16", "mixed_bfloat16"))
               for source in mixed)


@pytest.mark.parametrize("seed", SEEDS)
def test_mixed_dtype_random_model_eager_equals_graph(seed, mixed_pool):
    spec = models.generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = repro.run_spec(spec)
    assert not findings, repro.script(spec, findings)
