"""Bad input to chapter 1's public names (encoderlib.toy, .viz, .utils): clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, wrong
dtypes and mixed dtypes, wrong shapes, empty inputs, out-of-range settings) and
expects a TypeError or ValueError whose message names what was expected and what
was received, never an error from deep inside torch, a wrong shape or NaN.
"""

import dataclasses
import math

import matplotlib
import pytest
import torch

from encoderlib import toy
from encoderlib.utils import default_device, set_seed
from encoderlib.viz import Table, plot_heatmap

matplotlib.use("Agg")

X = toy.toy_embeddings()
W = toy.toy_weights()
W64 = toy.ToyWeights(**{name: w.double() for name, w in vars(W).items()})


def weights_with(**changes) -> dict:
    """The fields of the chapter's weights, some replaced: for ToyWeights(**...)."""
    return {name: w for name, w in vars(W).items()} | changes


BAD_INPUT = {
    # toy_embeddings takes nothing: a stray argument is Python's own TypeError
    "toy_embeddings with an argument": (
        lambda: toy.toy_embeddings(3),
        TypeError,
        "positional argument",
    ),
    "toy_weights with an argument": (
        lambda: toy.toy_weights(3),
        TypeError,
        "positional argument",
    ),
    # ToyWeights: types, dtypes and shapes are checked when the weights are made
    "ToyWeights with a list": (
        lambda: toy.ToyWeights(**weights_with(w_q=[[1.0] * 3] * 3)),
        TypeError,
        "expected w_q as a torch.Tensor, got list",
    ),
    "ToyWeights with None": (
        lambda: toy.ToyWeights(**weights_with(b_2=None)),
        TypeError,
        "expected b_2 as a torch.Tensor, got None",
    ),
    "ToyWeights with integer weights": (
        lambda: toy.ToyWeights(**weights_with(w_k=torch.eye(3, dtype=torch.long))),
        TypeError,
        "expected w_k with a floating-point dtype, got torch.int64",
    ),
    "ToyWeights with mixed dtypes": (
        lambda: toy.ToyWeights(**weights_with(w_v=W.w_v.double())),
        TypeError,
        r"expected the weights in one dtype, got .*w_v torch.float64",
    ),
    "ToyWeights with a wrong-shaped w_q": (
        lambda: toy.ToyWeights(**weights_with(w_q=torch.eye(4))),
        ValueError,
        r"expected w_q of shape \(3, 3\) to fit w_1 of shape \(3, 5\), got \(4, 4\)",
    ),
    "ToyWeights with a wrong-shaped b_1": (
        lambda: toy.ToyWeights(**weights_with(b_1=torch.zeros(3))),
        ValueError,
        r"expected b_1 of shape \(5,\) .* got \(3,\)",
    ),
    "ToyWeights with a 1-D w_1": (
        lambda: toy.ToyWeights(**weights_with(w_1=torch.zeros(15))),
        ValueError,
        r"expected w_1 of shape \(d, d_ff\), got \(15,\)",
    ),
    "dataclasses.replace checks too": (
        lambda: dataclasses.replace(W, w_q=torch.ones(2, 2)),
        ValueError,
        r"expected w_q of shape \(3, 3\)",
    ),
    # softmax_rows
    "softmax_rows of a list": (
        lambda: toy.softmax_rows([1.0, 2.0]),
        TypeError,
        "expected scores as a torch.Tensor, got list",
    ),
    "softmax_rows of integers": (
        lambda: toy.softmax_rows(torch.tensor([1, 2])),
        TypeError,
        "expected scores with a floating-point dtype, got torch.int64",
    ),
    "softmax_rows of a bool mask": (
        lambda: toy.softmax_rows(torch.tensor([True, False])),
        TypeError,
        "floating-point dtype, got torch.bool",
    ),
    "softmax_rows of a 0-d tensor": (
        lambda: toy.softmax_rows(torch.tensor(1.0)),
        ValueError,
        r"expected scores of shape \(\.\.\., n\), got a 0-d tensor",
    ),
    "softmax_rows of NaN": (
        lambda: toy.softmax_rows(torch.tensor([0.0, math.nan])),
        ValueError,
        "expected finite scores or −inf",
    ),
    "softmax_rows of +inf": (
        lambda: toy.softmax_rows(torch.tensor([0.0, math.inf])),
        ValueError,
        "got NaN or \\+inf",
    ),
    # attention_step
    "attention_step of None": (
        lambda: toy.attention_step(None, W),
        TypeError,
        "expected x as a torch.Tensor, got None",
    ),
    "attention_step of a str": (
        lambda: toy.attention_step("the cat sat", W),
        TypeError,
        "expected x as a torch.Tensor, got str",
    ),
    "attention_step with weights as a dict": (
        lambda: toy.attention_step(X, vars(W)),
        TypeError,
        "expected weights as a ToyWeights, got dict",
    ),
    "attention_step with weights None": (
        lambda: toy.attention_step(X, None),
        TypeError,
        "expected weights as a ToyWeights, got None",
    ),
    "attention_step of float64 into float32 weights": (
        lambda: toy.attention_step(X.double(), W),
        TypeError,
        "expected x of dtype torch.float32 \(the dtype of the weights it meets\), got torch.float64",
    ),
    "attention_step of float32 into float64 weights": (
        lambda: toy.attention_step(X, W64),
        TypeError,
        "expected x of dtype torch.float64 \(the dtype of the weights it meets\), got torch.float32",
    ),
    "attention_step of a batch (b, n, d)": (
        lambda: toy.attention_step(X.unsqueeze(0), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(1, 4, 3\)",
    ),
    "attention_step of the wrong width": (
        lambda: toy.attention_step(torch.ones(4, 5), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(4, 5\)",
    ),
    "attention_step of uint8": (
        lambda: toy.attention_step(torch.ones(4, 3, dtype=torch.uint8), W),
        TypeError,
        "floating dtype, got torch.uint8",
    ),
    "attention_step with scale as a str": (
        lambda: toy.attention_step(X, W, scale="yes"),
        TypeError,
        "expected scale as a bool, got str",
    ),
    # layer_norm_step
    "layer_norm_step of a list": (
        lambda: toy.layer_norm_step([[1.0, 2.0]]),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "layer_norm_step of int16": (
        lambda: toy.layer_norm_step(torch.ones(2, 3, dtype=torch.int16)),
        TypeError,
        "floating-point dtype, got torch.int16",
    ),
    "layer_norm_step with eps = 0": (
        lambda: toy.layer_norm_step(X, eps=0.0),
        ValueError,
        "expected eps > 0, got 0.0",
    ),
    "layer_norm_step with eps < 0": (
        lambda: toy.layer_norm_step(X, eps=-1.0),
        ValueError,
        "expected eps > 0, got -1.0",
    ),
    "layer_norm_step with eps as a str": (
        lambda: toy.layer_norm_step(X, eps="1e-5"),
        TypeError,
        "expected eps as a float, got str",
    ),
    "layer_norm_step of d = 0": (
        lambda: toy.layer_norm_step(torch.ones(4, 0)),
        ValueError,
        r"expected x of shape \(\.\.\., d\) with d >= 1, got \(4, 0\)",
    ),
    "layer_norm_step of a 0-d tensor": (
        lambda: toy.layer_norm_step(torch.tensor(1.0)),
        ValueError,
        r"got \(\)",
    ),
    # feed_forward_step
    "feed_forward_step of the wrong width": (
        lambda: toy.feed_forward_step(torch.ones(2, 4), W),
        ValueError,
        r"expected x of shape \(n, d\) = \(\*, 3\), got \(2, 4\)",
    ),
    "feed_forward_step with weights as a tuple": (
        lambda: toy.feed_forward_step(X, tuple(vars(W).values())),
        TypeError,
        "expected weights as a ToyWeights, got tuple",
    ),
    "feed_forward_step of float64 into float32 weights": (
        lambda: toy.feed_forward_step(X.double(), W),
        TypeError,
        "expected x of dtype torch.float32 \(the dtype of the weights it meets\), got torch.float64",
    ),
    # encoder_block
    "encoder_block with eps = 0": (
        lambda: toy.encoder_block(X, W, eps=0),
        ValueError,
        "expected eps > 0, got 0",
    ),
    "encoder_block with eps = inf": (
        lambda: toy.encoder_block(X, W, eps=math.inf),
        ValueError,
        "expected eps > 0, got inf",
    ),
    "encoder_block with eps a bool": (
        lambda: toy.encoder_block(X, W, eps=True),
        TypeError,
        "expected eps as a float, got bool",
    ),
    "encoder_block of a list": (
        lambda: toy.encoder_block(X.tolist(), W),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "encoder_block of float64 into float32 weights": (
        lambda: toy.encoder_block(X.double(), W),
        TypeError,
        "expected x of dtype torch.float32 \(the dtype of the weights it meets\), got torch.float64",
    ),
    # to_torch_layer
    "to_torch_layer of None": (
        lambda: toy.to_torch_layer(None),
        TypeError,
        "expected weights as a ToyWeights, got None",
    ),
    "to_torch_layer of a dict": (
        lambda: toy.to_torch_layer(vars(W)),
        TypeError,
        "expected weights as a ToyWeights, got dict",
    ),
    # run_toy_encoder
    "run_toy_encoder with n_blocks = 0": (
        lambda: toy.run_toy_encoder(n_blocks=0),
        ValueError,
        "expected n_blocks >= 1, got 0",
    ),
    "run_toy_encoder with n_blocks = -1": (
        lambda: toy.run_toy_encoder(n_blocks=-1),
        ValueError,
        "expected n_blocks >= 1, got -1",
    ),
    "run_toy_encoder with n_blocks a float": (
        lambda: toy.run_toy_encoder(n_blocks=2.0),
        TypeError,
        "expected n_blocks as an int, got float",
    ),
    "run_toy_encoder with n_blocks a bool": (
        lambda: toy.run_toy_encoder(n_blocks=True),
        TypeError,
        "expected n_blocks as an int, got bool",
    ),
    "run_toy_encoder of n = 0 tokens": (
        lambda: toy.run_toy_encoder(torch.zeros(0, 3)),
        ValueError,
        r"expected x with at least one token \(n >= 1\), got n = 0",
    ),
    "run_toy_encoder of float64 with float32 weights": (
        lambda: toy.run_toy_encoder(X.double()),
        TypeError,
        "expected x of dtype torch.float32 \(the dtype of the weights it meets\), got torch.float64",
    ),
    "run_toy_encoder with weights a str": (
        lambda: toy.run_toy_encoder(X, "toy"),
        TypeError,
        "expected weights as a ToyWeights, got str",
    ),
    # format_matrix and print_matrix
    "format_matrix of a list": (
        lambda: toy.format_matrix([[1.0]]),
        TypeError,
        "expected a torch.Tensor, got list",
    ),
    "format_matrix of a complex tensor": (
        lambda: toy.format_matrix(torch.ones(2, dtype=torch.complex64)),
        TypeError,
        "expected a real tensor, got torch.complex64",
    ),
    "format_matrix of a 3-D tensor": (
        lambda: toy.format_matrix(torch.ones(2, 2, 2)),
        ValueError,
        r"expected a 1-D or 2-D tensor, got shape \(2, 2, 2\)",
    ),
    "format_matrix with too few labels": (
        lambda: toy.format_matrix(torch.ones(2, 2), ["a"]),
        ValueError,
        "expected 2 row labels and 2 column labels, got 1 and 2",
    ),
    "format_matrix with labels as one str": (
        lambda: toy.format_matrix(torch.ones(2, 2), "ab"),
        TypeError,
        "expected row_labels as a list of labels or None, got str",
    ),
    "format_matrix with digits < 0": (
        lambda: toy.format_matrix(torch.ones(2), digits=-1),
        ValueError,
        "expected digits as an int >= 0, got -1",
    ),
    "format_matrix with digits a float": (
        lambda: toy.format_matrix(torch.ones(2), digits=2.5),
        TypeError,
        "expected digits as an int >= 0, got float",
    ),
    "print_matrix with a title that is not a str": (
        lambda: toy.print_matrix(X, title=3),
        TypeError,
        "expected title as a str or None, got int",
    ),
    "print_matrix of None": (
        lambda: toy.print_matrix(None),
        TypeError,
        "expected a torch.Tensor, got None",
    ),
    # plot_heatmap
    "plot_heatmap of a list": (
        lambda: plot_heatmap([[1.0]], title="t"),
        TypeError,
        "expected matrix as a torch.Tensor, got list",
    ),
    "plot_heatmap of a 1-D tensor": (
        lambda: plot_heatmap(torch.ones(3), title="t"),
        ValueError,
        r"expected a 2-D matrix \(rows, columns\), got shape \(3,\)",
    ),
    "plot_heatmap of an empty matrix": (
        lambda: plot_heatmap(torch.ones(0, 3), title="t"),
        ValueError,
        r"expected a non-empty matrix, got shape \(0, 3\)",
    ),
    "plot_heatmap of a complex matrix": (
        lambda: plot_heatmap(torch.ones(2, 2, dtype=torch.complex64), title="t"),
        TypeError,
        "expected a real matrix, got torch.complex64",
    ),
    "plot_heatmap with labels as one str": (
        lambda: plot_heatmap(torch.ones(2, 2), "ab", title="t"),
        TypeError,
        "expected row_labels as a list of labels or None, got str",
    ),
    "plot_heatmap with too many column labels": (
        lambda: plot_heatmap(torch.ones(2, 2), None, ["a", "b", "c"], title="t"),
        ValueError,
        "expected 2 col_labels, got 3",
    ),
    "plot_heatmap with a title that is not a str": (
        lambda: plot_heatmap(torch.ones(2, 2), title=None),
        TypeError,
        "expected title as a str, got None",
    ),
    "plot_heatmap with digits < 0": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", digits=-2),
        ValueError,
        "expected digits >= 0, got -2",
    ),
    "plot_heatmap with vmin > vmax": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", vmin=1.0, vmax=0.0),
        ValueError,
        "expected vmin <= vmax, got vmin=1.0, vmax=0.0",
    ),
    "plot_heatmap with ax a str": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", ax="left"),
        TypeError,
        "expected ax as a matplotlib Axes or None, got str",
    ),
    # Table
    "Table with rows of the wrong length": (
        lambda: Table([(1, 2), (3,)], ["a", "b"]),
        ValueError,
        "expected rows of 2 values like the headers, got 1 in row 1",
    ),
    "Table with a row too long": (
        lambda: Table([(1, 2, 3)], ["a", "b"]),
        ValueError,
        "expected rows of 2 values like the headers, got 3 in row 0",
    ),
    "Table with headers as one str": (
        lambda: Table([(1, 2)], "ab"),
        TypeError,
        "expected headers as a list, got str",
    ),
    "Table with rows None": (
        lambda: Table(None, ["a"]),
        TypeError,
        "expected rows as a list, got None",
    ),
    "Table with a row that is a str": (
        lambda: Table(["ab"], ["a", "b"]),
        TypeError,
        "expected each row as a list of values, got str in row 0",
    ),
    "Table with a row that is a number": (
        lambda: Table([1.5], ["a"]),
        TypeError,
        "expected each row as a list of values, got float in row 0",
    ),
    "Table with too few formats": (
        lambda: Table([(1, 2)], ["a", "b"], formats=[".1f"]),
        ValueError,
        "expected 2 formats, one per column, got 1",
    ),
    "Table with formats as one str": (
        lambda: Table([(1, 2)], ["a", "b"], formats=".1f"),
        TypeError,
        "expected formats as a list, got str",
    ),
    "Table with a format that is not a str": (
        lambda: Table([(1, 2)], ["a", "b"], formats=[3, ""]),
        TypeError,
        "expected each format as a str such as '.3f', got int for column 0",
    ),
    "Table with a value its format cannot show": (
        lambda: Table([("cat", 2)], ["a", "b"], formats=[".3f", ""]),
        ValueError,
        "expected a value that format spec '.3f' of column 'a' can format, "
        "got 'cat' in row 0",
    ),
    "Table with a title that is not a str": (
        lambda: Table([(1,)], ["a"], title=1),
        TypeError,
        "expected title as a str or None, got int",
    ),
    # utils
    "set_seed(2**70)": (
        lambda: set_seed(2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), the range torch.manual_seed "
        r"accepts, got 1180591620717411303424",
    ),
    "set_seed(2**64)": (lambda: set_seed(2**64), ValueError, "expected seed in"),
    "set_seed(-2**63 - 1)": (
        lambda: set_seed(-(2**63) - 1),
        ValueError,
        "got -9223372036854775809",
    ),
    "set_seed(1.5)": (lambda: set_seed(1.5), TypeError, "expected seed as an int"),
    "set_seed('0')": (lambda: set_seed("0"), TypeError, "got str"),
    "set_seed(None)": (lambda: set_seed(None), TypeError, "got None"),
    "set_seed(True)": (lambda: set_seed(True), TypeError, "got bool"),
    "default_device with an argument": (
        lambda: default_device("cuda"),
        TypeError,
        "positional argument",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUT), ids=str)
def test_bad_input_gets_a_clear_error(case):
    call, error, message = BAD_INPUT[case]
    with pytest.raises(error, match=message):
        call()


def test_the_edges_of_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        set_seed(seed)
    set_seed(0)


def test_empty_inputs_give_empty_results_of_the_right_shape():
    trace = toy.attention_step(torch.zeros(0, 3), W)  # n = 0 tokens
    assert isinstance(trace, toy.AttentionTrace)
    assert trace.scores.shape == (0, 0) and trace.context.shape == (0, 3)
    block = toy.encoder_block(torch.zeros(0, 3), W)
    assert isinstance(block, toy.BlockTrace) and block.output.shape == (0, 3)
    assert toy.softmax_rows(torch.zeros(2, 0)).shape == (2, 0)
    assert toy.layer_norm_step(torch.zeros(0, 3)).shape == (0, 3)
    assert toy.format_matrix(torch.zeros(0, 3)).splitlines()[0].split() == list("012")
    assert str(Table([], ["a", "b"])).splitlines()[0].split() == ["a", "b"]


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


def test_a_table_still_formats_tensor_rows():
    table = Table(torch.eye(2), ["x", "y"], formats=[".1f", ".1f"])
    assert str(table).splitlines()[-1].split() == ["0.0", "1.0"]
