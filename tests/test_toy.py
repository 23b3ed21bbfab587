"""encoderlib.toy: the chapter-1 encoder against PyTorch and hand arithmetic."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from encoderlib import toy

floats = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False, width=32)


def token_matrices(n_min: int = 1, n_max: int = 6):
    """Hypothesis strategy: (n, 3) float32 tensors of moderate values."""
    return st.integers(n_min, n_max).flatmap(
        lambda n: st.lists(floats, min_size=3 * n, max_size=3 * n).map(
            lambda v: torch.tensor(v).reshape(n, 3)
        )
    )


def test_grid_and_weights_are_the_chapter_values():
    x, w = toy.toy_embeddings(), toy.toy_weights()
    assert x.shape == (4, 3) and toy.TOKENS == ("[CLS]", "the", "cat", "sat")
    assert torch.equal(x[2], torch.tensor([0.3, 0.1, 0.0]))
    assert torch.equal(w.w_q, torch.eye(3)) and torch.equal(w.w_k, 0.5 * torch.eye(3))
    assert (w.w_1.shape, w.w_2.shape) == ((3, 5), (5, 3))


def test_fresh_tensors_protect_the_chapter_numbers():
    toy.toy_embeddings()[0, 0] = 99.0
    toy.toy_weights().w_q[0, 0] = 99.0
    assert toy.toy_embeddings()[0, 0] == 0.1 and toy.toy_weights().w_q[0, 0] == 1.0


def test_scores_and_weights_match_hand_arithmetic():
    trace = toy.attention_step(toy.toy_embeddings(), toy.toy_weights())
    assert torch.allclose(trace.scores[2], torch.tensor([0.015, 0.010, 0.050, 0.030]))
    expected = torch.tensor([0.015, 0.010, 0.050, 0.030]).div(math.sqrt(3)).exp()
    assert torch.allclose(trace.weights[2], expected / expected.sum(), atol=1e-7)
    unscaled = toy.attention_step(toy.toy_embeddings(), toy.toy_weights(), scale=False)
    assert torch.allclose(
        unscaled.weights[2], torch.tensor([0.2472, 0.2459, 0.2560, 0.2509]), atol=1e-4
    )


@pytest.mark.parametrize("n_tokens", [1, 4, 9])
def test_block_equals_torch_transformer_encoder_layer(n_tokens):
    torch.manual_seed(n_tokens)
    x = torch.randn(n_tokens, 3)
    weights = toy.toy_weights()
    with torch.no_grad():
        reference = toy.to_torch_layer(weights)(x.unsqueeze(0)).squeeze(0)
    assert torch.allclose(toy.encoder_block(x, weights).output, reference, atol=1e-5)


def test_block_equals_torch_with_random_weights():
    torch.manual_seed(0)
    weights = toy.ToyWeights(
        *(torch.randn(*shape) for shape in [(3, 3)] * 3 + [(3, 5), (5,), (5, 3), (3,)])
    )
    x = torch.randn(6, 3)
    with torch.no_grad():
        reference = toy.to_torch_layer(weights)(x.unsqueeze(0)).squeeze(0)
    assert torch.allclose(toy.encoder_block(x, weights).output, reference, atol=1e-5)


def test_whole_toy_run_gives_the_published_sentence_vector():
    run = toy.run_toy_encoder()
    assert len(run.blocks) == 2
    assert torch.allclose(
        run.sentence_vector, torch.tensor([0.7896, -0.2150, -0.5747]), atol=1e-4
    )
    assert run.blocks[1].attention.weights.max().item() == pytest.approx(
        0.5054, abs=1e-4
    )


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-1e4, 1e4, allow_nan=False, width=32), min_size=1, max_size=8)
)
def test_softmax_rows_matches_torch_and_never_overflows(values):
    scores = torch.tensor(values)
    result = toy.softmax_rows(scores)
    assert torch.isfinite(result).all()
    assert torch.allclose(result, torch.softmax(scores, dim=-1), atol=1e-6)
    assert result.sum().item() == pytest.approx(1.0, abs=1e-5)


@settings(max_examples=30, deadline=None)
@given(token_matrices(), st.permutations(range(6)))
def test_block_is_permutation_equivariant(x, order):
    order = [i for i in order if i < x.shape[0]]  # a permutation of this matrix's rows
    weights = toy.toy_weights()
    permuted = toy.encoder_block(x[order], weights).output
    assert torch.allclose(
        permuted, toy.encoder_block(x, weights).output[order], atol=1e-4
    )


@settings(max_examples=30, deadline=None)
@given(token_matrices(n_min=2))
def test_layer_norm_step_equals_torch(x):
    expected = torch.nn.functional.layer_norm(x, (3,), eps=1e-5)
    # The mean's float32 rounding error (a few ulps of |x|) is divided by
    # sqrt(var + eps), as little as sqrt(1e-5) for a constant row: allow for that.
    rounding = 4 * torch.finfo(torch.float32).eps * x.abs().max().item() / 1e-5**0.5
    assert torch.allclose(toy.layer_norm_step(x), expected, atol=1e-5 + rounding)


def test_format_matrix_lays_out_a_labelled_table():
    text = toy.format_matrix(
        torch.tensor([[0.5, -1e-9], [1.0, 2.25]]), ["a", "bb"], ["x", "y"], digits=2
    )
    assert text.splitlines() == ["       x     y", "a   0.50  0.00", "bb  1.00  2.25"]
    assert (
        toy.format_matrix(torch.tensor([1.0, 2.0]), digits=1).splitlines()[1]
        == "0  1.0  2.0"
    )


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: toy.attention_step(torch.ones(4, 5), toy.toy_weights()),
            ValueError,
            r"expected x of shape \(n, d\) = \(\*, 3\), got \(4, 5\)",
        ),
        (
            lambda: toy.attention_step(torch.ones(3), toy.toy_weights()),
            ValueError,
            r"got \(3,\)",
        ),
        (
            lambda: toy.attention_step([[0.0] * 3], toy.toy_weights()),
            TypeError,
            "got list",
        ),
        (
            lambda: toy.attention_step(
                torch.ones(2, 3, dtype=torch.long), toy.toy_weights()
            ),
            TypeError,
            "floating dtype",
        ),
        (
            lambda: toy.feed_forward_step(torch.ones(2, 4), toy.toy_weights()),
            ValueError,
            r"= \(\*, 3\)",
        ),
        (lambda: toy.softmax_rows([1.0, 2.0]), TypeError, "torch.Tensor"),
        (
            lambda: toy.format_matrix(torch.ones(2, 2, 2)),
            ValueError,
            r"1-D or 2-D tensor, got shape \(2, 2, 2\)",
        ),
        (
            lambda: toy.format_matrix(torch.ones(2, 2), ["a"]),
            ValueError,
            "expected 2 row labels",
        ),
        (lambda: toy.run_toy_encoder(n_blocks=0), ValueError, "n_blocks >= 1, got 0"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
