"""`fused_attention` (chapter 5) on queries that may see no key, on every device here.

From PyTorch 2.5 on, SDPA itself gives such a query a zero output and zero
gradients, and `fused_attention` relies on it; before, it guards with five more
operations. Both settings run here (the guard by switching the flag), on the CPU
and, where there is one, on a CUDA GPU (`benchmarks/gpu_checks.sh` runs this file).
"""

import pytest
import torch

from encoderlib import attention
from encoderlib.attention import scaled_dot_product_attention

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("guard", [False, True], ids=["sdpa zeros", "own guard"])
def test_fused_attention_gives_empty_rows_zeros_and_zero_gradients(
    device, dtype, with_bias, guard, monkeypatch
):
    # PyTorch >= 2.5 zeroes a query with no key itself; the guard is for older
    # versions. Both must give zeros, finite gradients, and the reference elsewhere.
    if not guard and not attention._SDPA_ZEROES_EMPTY_ROWS:
        pytest.skip("this PyTorch gives NaN there: the guard runs")
    monkeypatch.setattr(attention, "_SDPA_ZEROES_EMPTY_ROWS", not guard)
    torch.manual_seed(0)
    q, k, v = (
        torch.randn(2, 3, 5, 8, device=device, dtype=dtype, requires_grad=True)
        for _ in range(3)
    )
    mask = torch.ones(2, 1, 1, 5, dtype=torch.bool, device=device)
    mask[0, ..., 3:] = False
    mask[1] = False  # a sequence of padding alone
    bias = torch.randn(3, 5, 5, device=device, dtype=dtype) if with_bias else None
    out = attention.fused_attention(q, k, v, mask, 0.0, bias)
    expected, _ = scaled_dot_product_attention(q, k, v, mask, score_bias=bias)
    assert torch.equal(out[1], torch.zeros_like(out[1]))
    tolerance = 1e-5 if dtype == torch.float32 else 2e-2
    torch.testing.assert_close(out[0], expected[0], rtol=0, atol=tolerance)
    out.float().square().sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
        assert torch.equal(t.grad[1], torch.zeros_like(t.grad[1]))
