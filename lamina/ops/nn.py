"""Keras 3's ``keras.ops.nn`` namespace: the neural-network functions of ``lamina.ops``
under the names Keras lists there."""
from . import (  # noqa: F401
    adaptive_average_pool, adaptive_max_pool, average_pool, batch_normalization,
    binary_crossentropy, categorical_crossentropy, celu, conv, conv_transpose, ctc_decode,
    ctc_loss, depth_to_space, depthwise_conv, dot_product_attention, elu, fold, gelu, glu,
    hard_shrink, hard_sigmoid, hard_silu, hard_swish, hard_tanh, layer_normalization,
    leaky_relu, log_sigmoid, log_softmax, max_pool, moments, multi_hot, normalize, one_hot,
    polar, psnr, relu, relu6, rms_normalization, selu, separable_conv, sigmoid, silu,
    soft_shrink, softmax, softplus, softsign, space_to_depth, sparse_categorical_crossentropy,
    sparse_plus, sparse_sigmoid, sparsemax, squareplus, swish, tanh_shrink, threshold,
    unfold)

__all__ = ['adaptive_average_pool', 'adaptive_max_pool', 'average_pool', 'batch_normalization',
           'binary_crossentropy', 'categorical_crossentropy', 'celu', 'conv',
           'conv_transpose', 'ctc_decode', 'ctc_loss', 'depth_to_space', 'depthwise_conv',
           'dot_product_attention', 'elu', 'fold', 'gelu', 'glu', 'hard_shrink',
           'hard_sigmoid', 'hard_silu', 'hard_swish', 'hard_tanh', 'layer_normalization',
           'leaky_relu', 'log_sigmoid', 'log_softmax', 'max_pool', 'moments', 'multi_hot',
           'normalize', 'one_hot', 'polar', 'psnr', 'relu', 'relu6', 'rms_normalization', 'selu',
           'separable_conv', 'sigmoid', 'silu', 'soft_shrink', 'softmax', 'softplus',
           'softsign', 'space_to_depth', 'sparse_categorical_crossentropy', 'sparse_plus',
           'sparse_sigmoid', 'sparsemax', 'squareplus', 'swish', 'tanh_shrink',
           'threshold', 'unfold']
