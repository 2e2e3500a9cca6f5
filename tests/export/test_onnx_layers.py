"""The registry walk: every layer case of the layer harness (tests/layers) is exported to
ONNX in a one-layer functional model, checked with onnx.checker, run in onnxruntime and
compared with Lamina's predict; layers without an ONNX form (lamina.export.NO_ONNX_FORM)
raise an OnnxExportError naming the layer."""
import numpy as np
import pytest

from tests.export.onnx_helpers import onnx, run
import lamina
from lamina.export import NO_ONNX_FORM, OnnxExportError
from lamina.export.tracing import all_layers
from lamina.export.unsupported import unsupported_reason
from tests.layers.harness import _symbolic_inputs, case_id, make_inputs
from tests.layers.recurrent.helpers import fresh
from tests.layers.test_registry import _all_cases

CASES = _all_cases()


def _model(case):
    case = fresh(case)
    data = make_inputs(case)
    layer = case.cls(**case.kwargs)
    symbols = _symbolic_inputs(case, data)
    model = lamina.Model(symbols, layer(symbols, **case.call_kwargs))
    return model, layer, data


def _without_form(layer) -> bool:
    return any(unsupported_reason(sub) is not None
               for sub in all_layers(layer))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_layer_case_exports_and_matches_predict(case, tmp_path):
    model, layer, data = _model(case)
    path = tmp_path / "layer.onnx"
    if _without_form(layer):
        with pytest.raises(OnnxExportError, match=f"layer '{layer.name}'|has no ONNX form"):
            model.export(path, format="onnx")
        return
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    expected = lamina.tree.flatten(model.predict(data, verbose=0))
    got = run(path, *lamina.tree.flatten(data))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=case.id)


def test_the_table_names_real_layers_with_reasons():
    for name, reason in NO_ONNX_FORM.items():
        assert isinstance(getattr(lamina.layers, name), type), name
        assert len(reason) > 30


@pytest.mark.parametrize("name", sorted(NO_ONNX_FORM))
def test_each_layer_without_onnx_form_raises_naming_it(name, tmp_path):
    cases = [c for c in CASES if c.cls.__name__ == name]
    assert cases, f"no harness case for {name}"
    model, layer, _ = _model(cases[0])
    with pytest.raises(OnnxExportError, match=rf"layer '{layer.name}' \({name}\) has no "
                                              rf"ONNX form"):
        model.export(tmp_path / "x.onnx", format="onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_most_layer_cases_have_an_onnx_form():
    exported = [c for c in CASES if not _without_form(_model(c)[1])]
    assert len(exported) >= 265, len(exported)
