"""LambdaCallback: plain functions as hooks, other hooks by keyword, errors."""
import pytest

from lamina.callbacks import LambdaCallback

from .tiny import LOSSES, data, fit, one_weight_model


def test_named_hooks_are_called_with_the_hooks_arguments():
    events = []
    callback = LambdaCallback(
        on_train_begin=lambda logs: events.append("train_begin"),
        on_epoch_begin=lambda epoch, logs: events.append(("epoch_begin", epoch)),
        on_train_batch_begin=lambda batch, logs: events.append(("batch_begin", batch)),
        on_train_batch_end=lambda batch, logs: events.append(("batch_end", batch,
                                                              round(logs["loss"], 4))),
        on_epoch_end=lambda epoch, logs: events.append(("epoch_end", epoch,
                                                        round(logs["loss"], 4))),
        on_train_end=lambda logs: events.append(("train_end", round(logs["loss"], 4))))
    fit(one_weight_model(), 2, [callback])
    assert events == ["train_begin",
                      ("epoch_begin", 0), ("batch_begin", 0), ("batch_end", 0, 1.0),
                      ("epoch_end", 0, 1.0),
                      ("epoch_begin", 1), ("batch_begin", 0), ("batch_end", 0, 0.64),
                      ("epoch_end", 1, 0.64),
                      ("train_end", 0.64)]


def test_other_hooks_by_keyword():
    events = []
    callback = LambdaCallback(
        on_test_end=lambda logs: events.append(("test_end", round(logs["loss"], 4))),
        on_predict_batch_end=lambda batch, logs: events.append(("predict_batch", batch)),
        on_batch_end=lambda batch, logs: events.append(("batch_end", batch)))
    model = one_weight_model()
    x, y = data()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[callback], validation_data=(x, y))
    model.predict(x, verbose=0, callbacks=[callback])
    # validation after one step: w = 0.2, so val loss (0.2 - 1)^2 = 0.64
    assert events == [("batch_end", 0), ("test_end", LOSSES[1]), ("predict_batch", 0)]


def test_unset_hooks_do_nothing():
    callback = LambdaCallback(on_epoch_end=lambda epoch, logs: None)
    assert callback.on_train_begin({}) is None


def test_an_unknown_name_is_set_as_an_attribute_with_a_warning():
    """Keras 3 sets extra keyword arguments as attributes (lambda_callback_test's
    test_lambda_callback_with_additional_kwargs); Lamina also warns that none is a hook."""
    def custom(logs):
        return "custom"
    with pytest.warns(UserWarning, match="LambdaCallback: keyword argument\\(s\\) "
                                         "\\['on_epoch_ends'\\] are not hook names"):
        callback = LambdaCallback(on_epoch_ends=custom)
    assert callback.on_epoch_ends is custom
    assert callback.on_epoch_end(0, {}) is None          # the real hook is untouched
    assert callback.get_config() == {}


def test_a_hook_that_is_not_callable_is_a_type_error():
    with pytest.raises(TypeError, match="LambdaCallback: argument 'on_test_begin' must be a "
                                        "function or None; received 3"):
        LambdaCallback(on_test_begin=3)
