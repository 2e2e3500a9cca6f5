"""The part of Keras's own suite that CI runs: Keras 3.15.1's tests of ``areas.CI_AREAS``
(losses and the building blocks, about a minute). Each test that passes on Keras's JAX
backend and passed on Lamina in the recorded full run (fixtures/lamina_results.json,
``python -m tests.keras_conformance --record``) must still pass. The full run is
``python -m tests.keras_conformance``."""
import pytest

from tests.keras_conformance import report
from tests.keras_conformance.areas import CI_AREAS
from tests.keras_conformance.run import load_json, run_lamina


@pytest.mark.slow
def test_keras_tests_of_the_ci_areas_still_pass():
    baseline = load_json("baseline_jax.json")
    recorded = load_json("lamina_results.json")
    in_ci = [k for k, v in baseline.items() if v == "passed" and
             report.area_of(k) in CI_AREAS]
    expected = [k for k in in_ci if recorded.get(k, [""])[0] == "passed"]
    assert len(expected) > 250
    results = run_lamina(CI_AREAS)
    regressed = [f"{k}: {results.get(k, ['absent', ''])[1][:200]}" for k in expected
                 if results.get(k, [""])[0] != "passed"]
    assert not regressed, "Keras tests that passed on Lamina and now fail:\n" + \
        "\n".join(regressed)
