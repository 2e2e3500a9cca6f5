"""The differential fuzzer generates every layer class lamina.layers exports (issue 9:
"every registered layer whose shapes fit"), over the CI seeds of
tests/graph/test_fuzz_eager_vs_graph.py: a newly exported layer fails here until a
catalogue rule (tests/graph/fuzz/catalogue*.py) generates it."""
import lamina
from tests.graph.fuzz import featured, models
from tests.graph.test_fuzz_eager_vs_graph import MODEL_SEEDS


def test_every_exported_layer_class_appears_in_a_ci_model():
    used = set()
    for seed in range(MODEL_SEEDS):
        used |= featured.classes_in(models.render(models.generate(seed)))
    wanted = {cls: name for cls, name in featured.layer_classes().items()
              if name not in featured.EXCLUDED}
    missing = sorted(name for cls, name in wanted.items() if cls not in used)
    assert not missing, f"layer classes no CI fuzz model generates: {missing}"
    assert len(wanted) >= 90                       # the walk found the exported layers


def test_aliases_count_once_and_exclusions_are_exported_classes():
    classes = featured.layer_classes()
    assert classes[lamina.layers.MaxPool2D] == "MaxPooling2D"
    assert classes[lamina.layers.Convolution1D] == "Conv1D"
    assert len(set(classes.values())) == len(classes)
    assert set(featured.EXCLUDED) <= set(classes.values())


def test_a_class_without_a_rule_is_reported(monkeypatch):
    class Unfuzzed(lamina.layers.Layer):
        pass
    monkeypatch.setattr(lamina.layers, "Unfuzzed", Unfuzzed, raising=False)
    names = featured.featured_names()
    assert "Unfuzzed" in names
    seed = names.index("Unfuzzed")      # the seed featuring it starts randomly instead
    assert Unfuzzed not in featured.classes_in(models.render(models.generate(seed)))
