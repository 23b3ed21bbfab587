"""encoderlib.vit: the patch embedding, the Vision Transformer and the digits loader.

Reference tests: the patch embedding equals a strided `nn.Conv2d` with copied
weights, and a Hugging Face `ViTForImageClassification` or `ViTModel` folder, read by
`vit_from_pretrained`, computes what Hugging Face's model computes (logits,
attention maps, the final [CLS] vectors).
Property tests: without positions the model cannot see where a patch sits; with
positions, moving the patches and their position rows together changes nothing;
every image of a batch is computed on its own.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from einops import rearrange
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from encoderlib.checks import count_host_reads
from encoderlib.heads import ClassificationHead
from encoderlib.training import train
from encoderlib.utils import count_parameters
from encoderlib.vit import (
    PatchEmbedding,
    VisionEncoder,
    load_digits_split,
    vit_from_pretrained,
)


def small_vit(seed: int = 0, **changes) -> VisionEncoder:
    """A small VisionEncoder whose weights are all random (no zero biases)."""
    torch.manual_seed(seed)
    sizes = dict(patch_size=2, d_model=32, n_layers=2, n_heads=4, d_ff=64) | changes
    model = VisionEncoder(**sizes).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model


def shuffle_patches(images: torch.Tensor, order: torch.Tensor, p: int) -> torch.Tensor:
    """The images with patch order[i] moved to place i (reading order)."""
    tiles = rearrange(images, "b c (y p1) (x p2) -> b (y x) p1 p2 c", p1=p, p2=p)
    grid = images.shape[-1] // p
    return rearrange(tiles[:, order], "b (y x) p1 p2 c -> b c (y p1) (x p2)", y=grid)


# The patch embedding ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("image_size", "patch_size", "channels"),
    [(8, 2, 1), (8, 2, 3), (8, 4, 3), (8, 1, 2), (12, 3, 3), (16, 16, 1)],
)
def test_patch_embedding_equals_a_strided_convolution(image_size, patch_size, channels):
    torch.manual_seed(0)
    ours = PatchEmbedding(image_size, patch_size, channels, d_model=24)
    conv = nn.Conv2d(channels, 24, kernel_size=patch_size, stride=patch_size)
    weight = rearrange(
        ours.projection.weight,
        "d (p1 p2 c) -> d c p1 p2",
        p1=patch_size,
        p2=patch_size,
    )
    with torch.no_grad():
        conv.weight.copy_(weight)
        conv.bias.copy_(ours.projection.bias)
    images = torch.randn(3, channels, image_size, image_size)
    theirs = rearrange(conv(images), "b d y x -> b (y x) d")
    assert ours(images).shape == (3, (image_size // patch_size) ** 2, 24)
    torch.testing.assert_close(ours(images), theirs, atol=1e-6, rtol=1e-5)


def test_patches_are_listed_in_reading_order_with_pixels_before_channels():
    patches = PatchEmbedding(6, 3, 2, d_model=4)
    images = torch.arange(2 * 2 * 6 * 6, dtype=torch.float32).reshape(2, 2, 6, 6)
    flat = patches.to_patches(images)  # (b, n, p·p·c)
    for b in range(2):
        for index in range(4):
            y, x = divmod(index, 2)
            block = images[b, :, 3 * y : 3 * y + 3, 3 * x : 3 * x + 3]  # (c, p, p)
            expected = block.permute(1, 2, 0).flatten()  # p1, then p2, then c
            assert torch.equal(flat[b, index], expected)  # moved, not computed


def test_patch_embedding_attributes_and_repr():
    patches = PatchEmbedding(8, 2, 3, 64)
    assert (patches.grid_size, patches.n_patches) == (4, 16)
    assert patches.projection.in_features == 12
    assert "n_patches=16" in repr(patches) and "(p1 p2 c)" in repr(patches)


# The whole model against Hugging Face's ViT, read from its folder -----------------


def hugging_face_vit(kind: str = "ViTForImageClassification", **changes):
    """A small transformers ViT with every weight random (biases and norms too)."""
    transformers = pytest.importorskip("transformers")
    sizes = dict(
        image_size=8,
        patch_size=2,
        num_channels=1,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=64,
        num_labels=7,
    )
    config = transformers.ViTConfig(**(sizes | changes))
    config._attn_implementation = "eager"  # attention maps come back
    torch.manual_seed(0)
    model = getattr(transformers, kind)(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model


def saved(model, folder, layout: str = "file"):
    """`folder` with `model` in it: as save_pretrained writes it ("file", the
    transformers 4 names), or with the names of the modules in memory ("memory",
    transformers 5's `layers.i.attention.q_proj`)."""
    model.save_pretrained(folder)
    if layout == "memory":
        from safetensors.torch import save_file

        state = {key: value.contiguous() for key, value in model.state_dict().items()}
        save_file(state, folder / "model.safetensors")
    return folder


@pytest.mark.parametrize("layout", ["file", "memory"])
@pytest.mark.parametrize(
    ("image_size", "patch_size", "channels"), [(8, 2, 1), (12, 4, 3)]
)
def test_a_hugging_face_vit_folder_computes_the_same(
    tmp_path, layout, image_size, patch_size, channels
):
    theirs = hugging_face_vit(
        image_size=image_size,
        patch_size=patch_size,
        num_channels=channels,
        layer_norm_eps=1e-5,
    )
    ours = vit_from_pretrained(saved(theirs, tmp_path, layout))
    assert not ours.training and isinstance(ours.head, ClassificationHead)
    assert count_parameters(ours) == count_parameters(theirs)
    images = torch.randn(5, channels, image_size, image_size)
    with torch.no_grad():
        reference = theirs(pixel_values=images, output_attentions=True)
        logits, attentions = ours(images, return_weights=True)
    torch.testing.assert_close(logits, reference.logits, atol=1e-5, rtol=1e-5)
    assert len(attentions) == len(reference.attentions) == 3
    for mine, hf in zip(attentions, reference.attentions, strict=True):
        torch.testing.assert_close(mine, hf, atol=1e-5, rtol=1e-5)


def test_a_vit_model_folder_gives_the_final_cls_vectors(tmp_path):
    theirs = hugging_face_vit("ViTModel")  # no classifier; a pooler, not read
    ours = vit_from_pretrained(saved(theirs, tmp_path))
    assert isinstance(ours.head, nn.Identity)
    images = torch.randn(4, 1, 8, 8)
    with torch.no_grad():
        reference = theirs(pixel_values=images).last_hidden_state[:, 0]
        torch.testing.assert_close(ours(images), reference, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(ours.embed(images), reference, atol=1e-5, rtol=1e-5)


def test_without_qkv_biases_and_in_bfloat16_the_folder_still_reads(tmp_path):
    theirs = hugging_face_vit(qkv_bias=False, hidden_act="gelu_new")
    (tmp_path / "fp32").mkdir()
    ours = vit_from_pretrained(saved(theirs, tmp_path / "fp32"))
    assert not ours.layers[0].attn.q_proj.bias.any()
    images = torch.randn(3, 1, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(
            ours(images), theirs(pixel_values=images).logits, atol=1e-5, rtol=1e-5
        )
    (tmp_path / "bf16").mkdir()
    halved = vit_from_pretrained(saved(theirs.to(torch.bfloat16), tmp_path / "bf16"))
    assert halved.cls_token.dtype == torch.float32  # read back as float32
    with torch.no_grad():
        assert (halved(images) - ours(images)).abs().max() < 0.05  # bf16's rounding


# Properties -----------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), patch_size=st.sampled_from([1, 2, 4]))
def test_without_positions_the_model_sees_a_bag_of_patches(seed, patch_size):
    model = small_vit(seed, patch_size=patch_size)
    with torch.no_grad():
        model.position_embeddings.weight.zero_()
    generator = torch.Generator().manual_seed(seed)
    n = (8 // patch_size) ** 2
    images = torch.rand(3, 1, 8, 8, generator=generator)
    order = torch.randperm(n, generator=generator)
    moved = shuffle_patches(images, order, patch_size)
    with torch.no_grad():
        torch.testing.assert_close(model(moved), model(images), atol=1e-5, rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_moving_patches_with_their_positions_changes_nothing(seed):
    model = small_vit(seed)
    generator = torch.Generator().manual_seed(seed)
    images = torch.rand(3, 1, 8, 8, generator=generator)
    order = torch.randperm(16, generator=generator)
    moved_model = small_vit(seed)
    with torch.no_grad():  # position row 1 + i follows patch i; [CLS] keeps row 0
        table = model.position_embeddings.weight
        moved_model.position_embeddings.weight[1:] = table[1:][order]
        logits = model(images)
        moved = moved_model(shuffle_patches(images, order, 2))
        plain = moved_model(images)
    torch.testing.assert_close(moved, logits, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(plain, logits, atol=1e-3)  # the positions matter


def test_each_image_is_computed_on_its_own():
    model = small_vit()
    images = torch.rand(6, 1, 8, 8)
    with torch.no_grad():
        batch = model(images)
        alone = torch.cat([model(images[i : i + 1]) for i in range(6)])
    torch.testing.assert_close(batch, alone, atol=1e-5, rtol=1e-5)


def test_attention_maps_embed_and_head():
    model = small_vit(n_layers=3)
    images = torch.rand(4, 1, 8, 8)
    with torch.no_grad():
        logits, attentions = model(images, return_weights=True)
        pooled = model.embed(images)
    assert len(attentions) == 3
    for weights in attentions:
        assert weights.shape == (4, 4, 17, 17)
        torch.testing.assert_close(weights.sum(-1), torch.ones(4, 4, 17))
    torch.testing.assert_close(model.head(pooled), logits)
    torch.testing.assert_close(model(images), logits)


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize(
    ("image_size", "patch_size", "channels", "d_model", "n_layers", "d_ff"),
    [(8, 2, 1, 64, 2, 128), (8, 4, 3, 32, 1, 48), (16, 2, 2, 16, 3, 8)],
)
def test_parameter_count_by_hand(
    norm_first, image_size, patch_size, channels, d_model, n_layers, d_ff
):
    model = VisionEncoder(
        image_size,
        patch_size,
        channels,
        d_model,
        n_layers,
        n_heads=4,
        d_ff=d_ff,
        n_classes=10,
        norm_first=norm_first,
    )
    d, n = d_model, (image_size // patch_size) ** 2
    layer = 4 * (d * d + d) + 2 * d * d_ff + d_ff + d + 4 * d
    expected = (
        patch_size**2 * channels * d
        + d  # the patch projection
        + d
        + (n + 1) * d  # [CLS] and the positions
        + n_layers * layer
        + (2 * d if norm_first else 0)  # the final norm, pre-norm only
        + d * 10
        + 10  # the head
    )
    assert count_parameters(model) == expected
    assert (model.final_norm is None) == (not norm_first)


def test_post_norm_and_dropout_variants_run():
    model = VisionEncoder(norm_first=False, dropout=0.1).train()
    out = model(torch.rand(2, 1, 8, 8))
    assert out.shape == (2, 10) and torch.isfinite(out).all()
    assert "post-norm" in repr(model)


def test_a_few_training_steps_lower_the_loss():
    train_images, train_labels, _, _ = load_digits_split()
    torch.manual_seed(0)
    model = VisionEncoder(d_model=32, n_layers=1, n_heads=2, d_ff=64)
    batches = [(train_images[i : i + 64], train_labels[i : i + 64]) for i in (0, 64)]

    def loss_fn(model, batch):
        images, labels = batch
        return F.cross_entropy(model(images), labels)

    history = train(
        model, loss_fn, batches, steps=30, lr=3e-3, progress=False, device="cpu"
    )
    assert history.losses[0] > math.log(10) - 0.5
    assert history.final_loss < history.losses[0] - 0.1  # it learns something


# The digits loader ----------------------------------------------------------------


def test_load_digits_split_shapes_values_and_strata():
    train_images, train_labels, test_images, test_labels = load_digits_split()
    assert train_images.shape == (1437, 1, 8, 8) and test_images.shape == (360, 1, 8, 8)
    assert train_labels.shape == (1437,) and test_labels.shape == (360,)
    assert train_images.dtype == torch.float32 and train_labels.dtype == torch.int64
    for images in (train_images, test_images):
        assert images.min() == 0.0 and images.max() == 1.0
        levels = (images * 16).unique()
        torch.testing.assert_close(levels, levels.round())  # multiples of 1/16
    train_counts = torch.bincount(train_labels, minlength=10)
    test_counts = torch.bincount(test_labels, minlength=10)
    total = train_counts + test_counts
    assert total.sum() == 1797
    # stratified: each digit's test share is 0.2 of its images, rounded either way
    assert ((test_counts - 0.2 * total).abs() < 1).all()


def test_load_digits_split_is_fixed_by_its_seed():
    first = load_digits_split(seed=0)
    again = load_digits_split(seed=0)
    other = load_digits_split(seed=1)
    for a, b in zip(first, again, strict=True):
        assert torch.equal(a, b)  # the same images in the same order
    assert not torch.equal(first[2], other[2])


@pytest.mark.parametrize("test_size", [0.1, 0.5, 0.9])
def test_load_digits_split_sizes(test_size):
    train_images, train_labels, test_images, test_labels = load_digits_split(
        test_size=test_size
    )
    assert len(test_images) == len(test_labels) == math.ceil(test_size * 1797)
    assert len(train_images) + len(test_images) == 1797
    assert set(test_labels.tolist()) == set(train_labels.tolist()) == set(range(10))


def test_a_forward_would_not_wait_on_a_gpu():
    # With the CPU treated as a GPU (count_host_reads), the ViT's forward, its
    # attention maps and embed make no host read: shapes and dtypes only.
    model = small_vit()
    images = torch.rand(3, 1, 8, 8)
    with torch.no_grad(), count_host_reads() as reads:
        model(images)
        model(images, return_weights=True)
        model.embed(images)
    assert reads == [], reads
