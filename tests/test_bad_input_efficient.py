"""Bad input to encoderlib.efficient (chapter 16): local attention, Linformer, peaks.

`peak_memory`, `sliding_window_mask`, `blocked_local_attention`,
`LocalSelfAttention` and `LinformerSelfAttention` are fed each class of bad
input (wrong Python types, integer dtypes and mixed dtypes, wrong ranks and
sizes, masks that are not key-padding masks of bool or 0/1 integers,
out-of-range windows, lengths and rates, a sequence longer than Linformer's
max_len) and must raise a TypeError or ValueError whose message names what was
expected and what was received. Empty inputs (n = 0, b = 0) give empty results
of the right shape.
"""

import pytest
import torch
from bad_input import sweep
from torch import nn

from encoderlib import Encoder, EncoderConfig
from encoderlib.attention import MultiHeadAttention
from encoderlib.efficient import (
    LinformerSelfAttention,
    LocalSelfAttention,
    blocked_local_attention,
    native_stderr_silenced,
    peak_memory,
    sliding_window_mask,
)

Q = K = V = torch.randn(2, 3, 7, 4)  # (b, h, n, d)
REAL = torch.ones(2, 7, dtype=torch.bool)
X = torch.randn(2, 7, 32)  # (b, n, d_model)


def mha() -> MultiHeadAttention:
    torch.manual_seed(0)
    return MultiHeadAttention(32, 4)


PEAK_MEMORY = {
    "ch16 peak_memory(None)": (
        lambda: peak_memory(None),
        TypeError,
        r"function as a callable taking no arguments, got None",
    ),
    "ch16 peak_memory(a tensor)": (
        lambda: peak_memory(torch.ones(3)),
        TypeError,
        r"function as a callable .*got a Tensor of shape \(3,\)",
    ),
    "ch16 peak_memory(device 3)": (
        lambda: peak_memory(lambda: None, device=3),
        TypeError,
        r"device as a device name or torch.device, got int 3",
    ),
    "ch16 peak_memory(device 'gpu')": (
        lambda: peak_memory(lambda: None, device="gpu"),
        ValueError,
        r"device as a name such as 'cpu' or 'cuda:0', got 'gpu'",
    ),
    "ch16 peak_memory(device 'meta')": (
        lambda: peak_memory(lambda: None, device="meta"),
        ValueError,
        r"expected device as a device that holds data, got 'meta'",
    ),
}
if not torch.cuda.is_available():
    PEAK_MEMORY["ch16 peak_memory(cuda without a GPU)"] = (
        lambda: peak_memory(lambda: None, device="cuda"),
        ValueError,
        r"device as a device this machine has, got 'cuda': "
        r"torch.cuda.device_count\(\) is 0",
    )

SLIDING_WINDOW_MASK = {
    "ch16 sliding_window_mask(n as float)": (
        lambda: sliding_window_mask(4.0, 1),
        TypeError,
        r"n as an int >= 0, got float 4.0",
    ),
    "ch16 sliding_window_mask(n as bool)": (
        lambda: sliding_window_mask(True, 1),
        TypeError,
        r"n as an int >= 0, got bool True",
    ),
    "ch16 sliding_window_mask(n -1)": (
        lambda: sliding_window_mask(-1, 1),
        ValueError,
        r"n as an int >= 0, got -1",
    ),
    "ch16 sliding_window_mask(window as str)": (
        lambda: sliding_window_mask(4, "2"),
        TypeError,
        r"window as an int >= 0, got str '2'",
    ),
    "ch16 sliding_window_mask(window -1)": (
        lambda: sliding_window_mask(4, -1),
        ValueError,
        r"window as an int >= 0, got -1",
    ),
    "ch16 sliding_window_mask(device 0)": (
        lambda: sliding_window_mask(4, 1, device=0),
        TypeError,
        r"device as a device name or torch.device, got int 0",
    ),
    "ch16 sliding_window_mask(device 'gpu')": (
        lambda: sliding_window_mask(4, 1, device="gpu"),
        ValueError,
        r"device as a name such as 'cpu' or 'cuda:0', got 'gpu'",
    ),
}

BLOCKED = {
    "ch16 blocked_local_attention(q None)": (
        lambda: blocked_local_attention(None, K, V, 2),
        TypeError,
        r"q as a torch.Tensor, got None",
    ),
    "ch16 blocked_local_attention(q of integers)": (
        lambda: blocked_local_attention(Q.long(), K, V, 2),
        TypeError,
        r"q with a floating dtype, got torch.int64",
    ),
    "ch16 blocked_local_attention(mixed dtypes)": (
        lambda: blocked_local_attention(Q.double(), K, V, 2),
        TypeError,
        r"q, k and v of one dtype, got q torch.float64",
    ),
    "ch16 blocked_local_attention(rank 3)": (
        lambda: blocked_local_attention(Q[0], K[0], V[0], 2),
        ValueError,
        r"shape \(b, h, n, d\) with the same b, h and n .*got q \(3, 7, 4\)",
    ),
    "ch16 blocked_local_attention(k of another length)": (
        lambda: blocked_local_attention(Q, K[:, :, :5], V[:, :, :5], 2),
        ValueError,
        r"same b, h and n \(self-attention\), got q \(2, 3, 7, 4\), k \(2, 3, 5, 4\)",
    ),
    "ch16 blocked_local_attention(q and k of other widths)": (
        lambda: blocked_local_attention(Q, K[..., :3], V, 2),
        ValueError,
        r"the same d_k, got q \(2, 3, 7, 4\) and k \(2, 3, 7, 3\)",
    ),
    "ch16 blocked_local_attention(window 1.5)": (
        lambda: blocked_local_attention(Q, K, V, 1.5),
        TypeError,
        r"window as an int >= 0, got float 1.5",
    ),
    "ch16 blocked_local_attention(window -2)": (
        lambda: blocked_local_attention(Q, K, V, -2),
        ValueError,
        r"window as an int >= 0, got -2",
    ),
    "ch16 blocked_local_attention(mask as list)": (
        lambda: blocked_local_attention(Q, K, V, 2, REAL.tolist()),
        TypeError,
        r"mask as a torch.Tensor, got list",
    ),
    "ch16 blocked_local_attention(mask of floats)": (
        lambda: blocked_local_attention(Q, K, V, 2, REAL.float()),
        TypeError,
        r"mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "ch16 blocked_local_attention(mask of 2s)": (
        lambda: blocked_local_attention(Q, K, V, 2, 2 * REAL.long()),
        ValueError,
        r"mask values 0 or 1 \(1 = real token\), got \[2\]",
    ),
    "ch16 blocked_local_attention(q and k of width 0)": (
        lambda: blocked_local_attention(Q[..., :0], K[..., :0], V, 2),
        ValueError,
        r"q and k with at least 1 feature \(d_k >= 1\), got q \(2, 3, 7, 0\)",
    ),
    "ch16 blocked_local_attention(an (n, n) mask)": (
        lambda: blocked_local_attention(Q, K, V, 2, sliding_window_mask(7, 2)),
        ValueError,
        r"mask of shape \(b, n\) = \(2, 7\).*got \(7, 7\)",
    ),
    "ch16 blocked_local_attention(dropout_p 1)": (
        lambda: blocked_local_attention(Q, K, V, 2, dropout_p=1.0),
        ValueError,
        r"dropout_p in \[0, 1\), got 1.0",
    ),
}

LOCAL = {
    "ch16 LocalSelfAttention(a Linear)": (
        lambda: LocalSelfAttention(nn.Linear(32, 32), 2),
        TypeError,
        r"attention as an encoderlib MultiHeadAttention, got Linear",
    ),
    "ch16 LocalSelfAttention(nn.MultiheadAttention)": (
        lambda: LocalSelfAttention(nn.MultiheadAttention(32, 4), 2),
        TypeError,
        r"MultiHeadAttention, got MultiheadAttention",
    ),
    "ch16 LocalSelfAttention(window as str)": (
        lambda: LocalSelfAttention(mha(), "2"),
        TypeError,
        r"window as an int >= 0, got str '2'",
    ),
    "ch16 LocalSelfAttention(window -1)": (
        lambda: LocalSelfAttention(mha(), -1),
        ValueError,
        r"window as an int >= 0, got -1",
    ),
    "ch16 LocalSelfAttention.forward(x as list)": (
        lambda: LocalSelfAttention(mha(), 2)(X.tolist()),
        TypeError,
        r"x as a torch.Tensor, got list",
    ),
    "ch16 LocalSelfAttention.forward(x too wide)": (
        lambda: LocalSelfAttention(mha(), 2)(torch.randn(2, 7, 33)),
        ValueError,
        r"x of shape \(b, n, 32\), got \(2, 7, 33\)",
    ),
    "ch16 LocalSelfAttention.forward(x float64)": (
        lambda: LocalSelfAttention(mha(), 2)(X.double()),
        TypeError,
        r"x of dtype torch.float32.*got torch.float64",
    ),
    "ch16 LocalSelfAttention.forward(mask of floats)": (
        lambda: LocalSelfAttention(mha(), 2)(X, REAL.float()),
        TypeError,
        r"mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "ch16 LocalSelfAttention.forward(a (b, n, n) mask)": (
        lambda: LocalSelfAttention(mha(), 2)(X, torch.ones(2, 7, 7, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(b, n\) = \(2, 7\).*got \(2, 7, 7\)",
    ),
}

LINFORMER = {
    "ch16 LinformerSelfAttention(None)": (
        lambda: LinformerSelfAttention(None, 8, 2),
        TypeError,
        r"attention as an encoderlib MultiHeadAttention, got None",
    ),
    "ch16 LinformerSelfAttention(max_len 0)": (
        lambda: LinformerSelfAttention(mha(), 0, 2),
        ValueError,
        r"max_len as a positive int, got 0",
    ),
    "ch16 LinformerSelfAttention(max_len as float)": (
        lambda: LinformerSelfAttention(mha(), 8.0, 2),
        TypeError,
        r"max_len as a positive int, got float 8.0",
    ),
    "ch16 LinformerSelfAttention(k 0)": (
        lambda: LinformerSelfAttention(mha(), 8, 0),
        ValueError,
        r"k as a positive int, got 0",
    ),
    "ch16 LinformerSelfAttention(k as str)": (
        lambda: LinformerSelfAttention(mha(), 8, "2"),
        TypeError,
        r"k as a positive int, got str '2'",
    ),
    "ch16 LinformerSelfAttention.forward(n > max_len)": (
        lambda: LinformerSelfAttention(mha(), 5, 2)(X),
        ValueError,
        r"at most max_len=5 tokens .*got x with n=7",
    ),
    "ch16 LinformerSelfAttention.forward(x of integers)": (
        lambda: LinformerSelfAttention(mha(), 8, 2)(
            torch.ones(2, 7, 32, dtype=torch.long)
        ),
        TypeError,
        r"x with a floating dtype, got torch.int64",
    ),
    "ch16 LinformerSelfAttention.forward(rank 2)": (
        lambda: LinformerSelfAttention(mha(), 8, 2)(X[0]),
        ValueError,
        r"x of shape \(b, n, 32\), got \(7, 32\)",
    ),
    "ch16 LinformerSelfAttention.forward(an (n, n) band)": (
        lambda: LinformerSelfAttention(mha(), 8, 2)(X, sliding_window_mask(7, 1)),
        ValueError,
        r"mask of shape \(b, n\) = \(2, 7\).*got \(7, 7\)",
    ),
    "ch16 LinformerSelfAttention.forward(mask as list)": (
        lambda: LinformerSelfAttention(mha(), 8, 2)(X, REAL.tolist()),
        TypeError,
        r"mask as a torch.Tensor, got list",
    ),
}


def swapped(positional: str, make) -> Encoder:
    """A tiny encoder whose layers' attention chapter 16's `make` replaced."""
    encoder = Encoder(EncoderConfig.tiny(vocab_size=50, positional=positional))
    for layer in encoder.layers:
        layer.attn = make(layer.attn)
    return encoder.eval()


IDS = torch.randint(5, 50, (1, 9))
IN_AN_ENCODER = {
    f"ch16 {name} in an Encoder with {positional} positions": (
        lambda make=make, positional=positional: swapped(positional, make)(IDS),
        ValueError,
        rf"expected an attention whose forward takes score_bias .*, got {name}, "
        "which does not",
    )
    for name, make in (
        ("LocalSelfAttention", lambda attn: LocalSelfAttention(attn, 2)),
        ("LinformerSelfAttention", lambda attn: LinformerSelfAttention(attn, 64, 4)),
    )
    for positional in ("alibi", "t5")
}
IN_AN_ENCODER["ch16 LocalSelfAttention asked for its weights"] = (
    lambda: swapped("learned", lambda a: LocalSelfAttention(a, 2))(
        IDS, output_attentions=True
    ),
    ValueError,
    r"takes return_weights \(output_attentions=True\), got LocalSelfAttention",
)

CASES = {
    **PEAK_MEMORY,
    **SLIDING_WINDOW_MASK,
    **BLOCKED,
    **LOCAL,
    **LINFORMER,
    **IN_AN_ENCODER,
}


test_bad_input_raises_a_clear_error = sweep(CASES)


@pytest.mark.parametrize("n", [0, 3])
def test_empty_inputs_give_empty_results(n):
    attention = mha().eval()
    for make in (
        lambda: LocalSelfAttention(attention, 2),
        lambda: LinformerSelfAttention(attention, 8, 2),
    ):
        wrapper = make().eval()
        with torch.no_grad():
            assert wrapper(torch.randn(2, 0, 32)).shape == (2, 0, 32)
            assert wrapper(torch.randn(0, n, 32)).shape == (0, n, 32)
    assert sliding_window_mask(0, 2).shape == (0, 0)
    q = torch.randn(0, 2, n, 4)
    assert blocked_local_attention(q, q, q, 1).shape == (0, 2, n, 4)


def test_native_stderr_silenced_takes_no_arguments_and_restores_stderr(capfd):
    import os

    with native_stderr_silenced():
        os.write(2, b"hidden\n")
    os.write(2, b"shown\n")
    assert capfd.readouterr().err == "shown\n"
    with pytest.raises(TypeError):
        native_stderr_silenced(2)
