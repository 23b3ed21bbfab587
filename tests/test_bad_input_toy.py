"""Bad input to encoderlib.toy (chapter 1's encoder by hand): clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, wrong
dtypes and mixed dtypes, wrong shapes, out-of-range settings) and expects a
TypeError or ValueError, raised by encoderlib's own checks, whose message names
what was expected and what was received.
"""

import dataclasses
import math

import pytest
import torch
from bad_input import sweep

from encoderlib import toy

X = toy.toy_embeddings()
W = toy.toy_weights()
W64 = toy.ToyWeights(**{name: w.double() for name, w in vars(W).items()})


def weights_with(**changes) -> dict:
    """The fields of the chapter's weights, some replaced: for ToyWeights(**...)."""
    return {name: w for name, w in vars(W).items()} | changes


CASES = {
    "ch01 ToyWeights with a list": (
        lambda: toy.ToyWeights(**weights_with(w_q=[[1.0] * 3] * 3)),
        TypeError,
        "expected w_q as a torch.Tensor, got list",
    ),
    "ch01 ToyWeights with None": (
        lambda: toy.ToyWeights(**weights_with(b_2=None)),
        TypeError,
        "expected b_2 as a torch.Tensor, got None",
    ),
    "ch01 ToyWeights with integer weights": (
        lambda: toy.ToyWeights(**weights_with(w_k=torch.eye(3, dtype=torch.long))),
        TypeError,
        "expected w_k with a floating-point dtype, got torch.int64",
    ),
    "ch01 ToyWeights with mixed dtypes": (
        lambda: toy.ToyWeights(**weights_with(w_v=W.w_v.double())),
        TypeError,
        r"expected the weights in one dtype, got .*w_v torch.float64",
    ),
    "ch01 ToyWeights with a wrong-shaped w_q": (
        lambda: toy.ToyWeights(**weights_with(w_q=torch.eye(4))),
        ValueError,
        r"expected w_q of shape \(3, 3\) to fit w_1 of shape \(3, 5\), got \(4, 4\)",
    ),
    "ch01 ToyWeights with a wrong-shaped b_1": (
        lambda: toy.ToyWeights(**weights_with(b_1=torch.zeros(3))),
        ValueError,
        r"expected b_1 of shape \(5,\) .* got \(3,\)",
    ),
    "ch01 ToyWeights with a 1-D w_1": (
        lambda: toy.ToyWeights(**weights_with(w_1=torch.zeros(15))),
        ValueError,
        r"expected w_1 of shape \(d, d_ff\), got \(15,\)",
    ),
    "ch01 dataclasses.replace checks too": (
        lambda: dataclasses.replace(W, w_q=torch.ones(2, 2)),
        ValueError,
        r"expected w_q of shape \(3, 3\)",
    ),
    "ch01 softmax_rows of a list": (
        lambda: toy.softmax_rows([1.0, 2.0]),
        TypeError,
        "expected scores as a torch.Tensor, got list",
    ),
    "ch01 softmax_rows of integers": (
        lambda: toy.softmax_rows(torch.tensor([1, 2])),
        TypeError,
        "expected scores with a floating-point dtype, got torch.int64",
    ),
    "ch01 softmax_rows of a bool mask": (
        lambda: toy.softmax_rows(torch.tensor([True, False])),
        TypeError,
        "floating-point dtype, got torch.bool",
    ),
    "ch01 softmax_rows of a 0-d tensor": (
        lambda: toy.softmax_rows(torch.tensor(1.0)),
        ValueError,
        r"expected scores of shape \(\.\.\., n\), got a 0-d tensor",
    ),
    "ch01 softmax_rows of NaN": (
        lambda: toy.softmax_rows(torch.tensor([0.0, math.nan])),
        ValueError,
        "expected finite scores or −inf",
    ),
    "ch01 softmax_rows of +inf": (
        lambda: toy.softmax_rows(torch.tensor([0.0, math.inf])),
        ValueError,
        "got NaN or \\+inf",
    ),
    "ch01 attention_step of None": (
        lambda: toy.attention_step(None, W),
        TypeError,
        "expected x as a torch.Tensor, got None",
    ),
    "ch01 attention_step of a str": (
        lambda: toy.attention_step("the cat sat", W),
        TypeError,
        "expected x as a torch.Tensor, got str",
    ),
    "ch01 attention_step with weights as a dict": (
        lambda: toy.attention_step(X, vars(W)),
        TypeError,
        "expected weights as a ToyWeights, got dict",
    ),
    "ch01 attention_step with weights None": (
        lambda: toy.attention_step(X, None),
        TypeError,
        "expected weights as a ToyWeights, got None",
    ),
    "ch01 attention_step of float64 into float32 weights": (
        lambda: toy.attention_step(X.double(), W),
        TypeError,
        r"expected x of dtype torch.float32 \(the dtype .*got torch.float64",
    ),
    "ch01 attention_step of float32 into float64 weights": (
        lambda: toy.attention_step(X, W64),
        TypeError,
        r"expected x of dtype torch.float64 \(the dtype .*got torch.float32",
    ),
    "ch01 attention_step of a batch (b, n, d)": (
        lambda: toy.attention_step(X.unsqueeze(0), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(1, 4, 3\)",
    ),
    "ch01 attention_step of the wrong width": (
        lambda: toy.attention_step(torch.ones(4, 5), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(4, 5\)",
    ),
    "ch01 attention_step of uint8": (
        lambda: toy.attention_step(torch.ones(4, 3, dtype=torch.uint8), W),
        TypeError,
        "floating dtype, got torch.uint8",
    ),
    "ch01 attention_step with scale as a str": (
        lambda: toy.attention_step(X, W, scale="yes"),
        TypeError,
        "expected scale as a bool, got str",
    ),
    "ch01 layer_norm_step of a list": (
        lambda: toy.layer_norm_step([[1.0, 2.0]]),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "ch01 layer_norm_step of int16": (
        lambda: toy.layer_norm_step(torch.ones(2, 3, dtype=torch.int16)),
        TypeError,
        "floating-point dtype, got torch.int16",
    ),
    "ch01 layer_norm_step with eps = 0": (
        lambda: toy.layer_norm_step(X, eps=0.0),
        ValueError,
        "expected eps > 0, got 0.0",
    ),
    "ch01 layer_norm_step with eps < 0": (
        lambda: toy.layer_norm_step(X, eps=-1.0),
        ValueError,
        "expected eps > 0, got -1.0",
    ),
    "ch01 layer_norm_step with eps as a str": (
        lambda: toy.layer_norm_step(X, eps="1e-5"),
        TypeError,
        "expected eps as a float, got str",
    ),
    "ch01 layer_norm_step of d = 0": (
        lambda: toy.layer_norm_step(torch.ones(4, 0)),
        ValueError,
        r"expected x of shape \(\.\.\., d\) with d >= 1, got \(4, 0\)",
    ),
    "ch01 layer_norm_step of a 0-d tensor": (
        lambda: toy.layer_norm_step(torch.tensor(1.0)),
        ValueError,
        r"got \(\)",
    ),
    "ch01 feed_forward_step of the wrong width": (
        lambda: toy.feed_forward_step(torch.ones(2, 4), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(2, 4\)",
    ),
    "ch01 feed_forward_step with weights as a tuple": (
        lambda: toy.feed_forward_step(X, tuple(vars(W).values())),
        TypeError,
        "expected weights as a ToyWeights, got tuple",
    ),
    "ch01 feed_forward_step of float64 into float32 weights": (
        lambda: toy.feed_forward_step(X.double(), W),
        TypeError,
        r"expected x of dtype torch.float32 \(the dtype .*got torch.float64",
    ),
    "ch01 encoder_block with eps = 0": (
        lambda: toy.encoder_block(X, W, eps=0),
        ValueError,
        "expected eps > 0, got 0",
    ),
    "ch01 encoder_block with eps = inf": (
        lambda: toy.encoder_block(X, W, eps=math.inf),
        ValueError,
        "expected eps > 0, got inf",
    ),
    "ch01 encoder_block with eps a bool": (
        lambda: toy.encoder_block(X, W, eps=True),
        TypeError,
        "expected eps as a float, got bool",
    ),
    "ch01 encoder_block of a list": (
        lambda: toy.encoder_block(X.tolist(), W),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "ch01 encoder_block of float64 into float32 weights": (
        lambda: toy.encoder_block(X.double(), W),
        TypeError,
        r"expected x of dtype torch.float32 \(the dtype .*got torch.float64",
    ),
    "ch01 to_torch_layer of None": (
        lambda: toy.to_torch_layer(None),
        TypeError,
        "expected weights as a ToyWeights, got None",
    ),
    "ch01 to_torch_layer of a dict": (
        lambda: toy.to_torch_layer(vars(W)),
        TypeError,
        "expected weights as a ToyWeights, got dict",
    ),
    "ch01 run_toy_encoder with n_blocks = 0": (
        lambda: toy.run_toy_encoder(n_blocks=0),
        ValueError,
        "expected n_blocks >= 1, got 0",
    ),
    "ch01 run_toy_encoder with n_blocks = -1": (
        lambda: toy.run_toy_encoder(n_blocks=-1),
        ValueError,
        "expected n_blocks >= 1, got -1",
    ),
    "ch01 run_toy_encoder with n_blocks a float": (
        lambda: toy.run_toy_encoder(n_blocks=2.0),
        TypeError,
        "expected n_blocks as an int, got float",
    ),
    "ch01 run_toy_encoder with n_blocks a bool": (
        lambda: toy.run_toy_encoder(n_blocks=True),
        TypeError,
        "expected n_blocks as an int, got bool",
    ),
    "ch01 run_toy_encoder of n = 0 tokens": (
        lambda: toy.run_toy_encoder(torch.zeros(0, 3)),
        ValueError,
        r"expected x with at least one token \(n >= 1\), got n = 0",
    ),
    "ch01 run_toy_encoder of float64 with float32 weights": (
        lambda: toy.run_toy_encoder(X.double()),
        TypeError,
        r"expected x of dtype torch.float32 \(the dtype .*got torch.float64",
    ),
    "ch01 run_toy_encoder with weights a str": (
        lambda: toy.run_toy_encoder(X, "toy"),
        TypeError,
        "expected weights as a ToyWeights, got str",
    ),
    "ch01 format_matrix of a list": (
        lambda: toy.format_matrix([[1.0]]),
        TypeError,
        "expected a torch.Tensor, got list",
    ),
    "ch01 format_matrix of a complex tensor": (
        lambda: toy.format_matrix(torch.ones(2, dtype=torch.complex64)),
        TypeError,
        "expected a real tensor, got torch.complex64",
    ),
    "ch01 format_matrix of a 3-D tensor": (
        lambda: toy.format_matrix(torch.ones(2, 2, 2)),
        ValueError,
        r"expected a 1-D or 2-D tensor, got shape \(2, 2, 2\)",
    ),
    "ch01 format_matrix with too few labels": (
        lambda: toy.format_matrix(torch.ones(2, 2), ["a"]),
        ValueError,
        "expected 2 row labels and 2 column labels, got 1 and 2",
    ),
    "ch01 format_matrix with labels as one str": (
        lambda: toy.format_matrix(torch.ones(2, 2), "ab"),
        TypeError,
        "expected row_labels as a list of labels or None, got str",
    ),
    "ch01 format_matrix with digits < 0": (
        lambda: toy.format_matrix(torch.ones(2), digits=-1),
        ValueError,
        "expected digits as an int >= 0, got -1",
    ),
    "ch01 format_matrix with digits a float": (
        lambda: toy.format_matrix(torch.ones(2), digits=2.5),
        TypeError,
        "expected digits as an int >= 0, got float",
    ),
    "ch01 print_matrix with a title that is not a str": (
        lambda: toy.print_matrix(X, title=3),
        TypeError,
        "expected title as a str or None, got int",
    ),
    "ch01 print_matrix of None": (
        lambda: toy.print_matrix(None),
        TypeError,
        "expected a torch.Tensor, got None",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_functions_without_parameters_refuse_arguments():
    # Python itself refuses these, before any encoderlib code runs.
    for function in (toy.toy_embeddings, toy.toy_weights):
        with pytest.raises(TypeError, match="positional argument"):
            function(3)


def test_empty_inputs_give_empty_results_of_the_right_shape():
    trace = toy.attention_step(torch.zeros(0, 3), W)  # n = 0 tokens
    assert isinstance(trace, toy.AttentionTrace)
    assert trace.scores.shape == (0, 0) and trace.context.shape == (0, 3)
    block = toy.encoder_block(torch.zeros(0, 3), W)
    assert isinstance(block, toy.BlockTrace) and block.output.shape == (0, 3)
    assert toy.softmax_rows(torch.zeros(2, 0)).shape == (2, 0)
    assert toy.layer_norm_step(torch.zeros(0, 3)).shape == (0, 3)
    assert toy.format_matrix(torch.zeros(0, 3)).splitlines()[0].split() == list("012")


def test_masked_and_degenerate_rows_give_no_nan():
    weights = toy.softmax_rows(torch.tensor([[0.0, -math.inf], [-math.inf, -math.inf]]))
    assert torch.equal(weights, torch.tensor([[1.0, 0.0], [0.0, 0.0]]))
    run = toy.run_toy_encoder(torch.ones(1, 3))  # a constant row: LayerNorm gives 0
    assert isinstance(run, toy.ToyRun)
    assert not run.sentence_vector.isnan().any()
    assert torch.equal(run.sentence_vector, torch.zeros(3))


def test_float64_weights_make_a_float64_torch_layer():
    layer = toy.to_torch_layer(W64)
    assert layer.linear1.weight.dtype == torch.float64
    with torch.no_grad():
        out = layer(X.double().unsqueeze(0)).squeeze(0)
    expected = toy.encoder_block(X.double(), W64).output
    assert (out - expected).abs().max() < 1e-12  # float64 all the way, no float32 step
