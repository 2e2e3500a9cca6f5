"""The README's coverage figures are generated (``python -m tests.api.api_walk
--write-readme``, ``python -m tests.keras_conformance --record --write-docs``); these tests
fail when the README no longer says what those commands would write."""
import collections
import os

from tests.api import api_walk
from tests.keras_conformance import report
from tests.keras_conformance.__main__ import BEGIN, END, summary_text
from tests.keras_conformance.run import load_json

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def _readme() -> str:
    with open(README) as f:
        return f.read()


def test_api_coverage_figure_is_what_the_walk_gives():
    total = collections.Counter(status for *_, status, _ in api_walk.walk())
    assert api_walk.readme_block(total) in _readme(), \
        "run: python -m tests.api.api_walk --write-readme"


def test_conformance_table_is_the_recorded_run():
    recorded = load_json("lamina_results.json")
    baseline = load_json("baseline_jax.json")
    block = _readme().split(BEGIN, 1)[1].split(END, 1)[0]
    assert summary_text(report.classify_all(baseline, recorded)) in block, \
        "run: python -m tests.keras_conformance --results " \
        "tests/keras_conformance/fixtures/lamina_results.json --write-docs"


def test_readme_opens_with_what_lamina_is_and_the_main_job_first():
    text = _readme()
    first_command = text.index("```bash")
    assert text.index("Lamina is a deep-learning framework") < first_command
    assert text[first_command:].split("\n")[1] == \
        "python -m pip install . && python examples/vgg_digits.py"
    assert text.index("## For contributors") > text.index("## A short tour")
