"""Bad input to encoderlib.vit (chapter 15): the digits loader and the ViT.

`load_digits_split`, `PatchEmbedding` and `VisionEncoder` are fed each class of
bad input (wrong Python types, sizes below 1, an image size the patches do not
divide, images of the wrong rank, shape, channel count or dtype, a flag that is
not a bool, a split that leaves a side without every digit, a ViT folder that is
missing, broken, of another model or with weights that do not fit) and must raise a
TypeError or ValueError whose message names what was expected and what was
received. An empty batch gives empty logits, as the docstrings promise.
"""

import json
from pathlib import Path

import pytest
import torch
from bad_input import scratch_folder, sweep

from encoderlib.vit import (
    PatchEmbedding,
    VisionEncoder,
    load_digits_split,
    vit_from_pretrained,
)

IMAGES = torch.rand(2, 1, 8, 8)  # (b, c, H, W)


def small_vit(**changes) -> VisionEncoder:
    torch.manual_seed(0)
    sizes = dict(patch_size=2, d_model=16, n_layers=1, n_heads=2, d_ff=32) | changes
    return VisionEncoder(**sizes).eval()


def image_cases(name: str, call, channels: int = 1, size: int = 8) -> dict:
    """The bad images every module that takes images must refuse."""
    shape = rf"\(b, c, H, W\) = \(b, {channels}, {size}, {size}\)"
    return {
        f"ch15 {name}(None)": (
            lambda: call(None),
            TypeError,
            r"images as a torch.Tensor, got None",
        ),
        f"ch15 {name}(list)": (
            lambda: call(IMAGES.tolist()),
            TypeError,
            r"images as a torch.Tensor, got list",
        ),
        f"ch15 {name}(uint8)": (
            lambda: call((IMAGES * 16).to(torch.uint8)),
            TypeError,
            r"images with a floating dtype, got torch.uint8: convert them",
        ),
        f"ch15 {name}(int64)": (
            lambda: call(torch.ones(2, channels, size, size, dtype=torch.long)),
            TypeError,
            r"floating dtype, got torch.int64",
        ),
        f"ch15 {name}(float64)": (
            lambda: call(torch.rand(2, channels, size, size, dtype=torch.float64)),
            TypeError,
            r"images of dtype torch.float32 .*got torch.float64",
        ),
        f"ch15 {name}(float16)": (
            lambda: call(torch.rand(2, channels, size, size).half()),
            TypeError,
            r"images of dtype torch.float32 .*got torch.float16",
        ),
        f"ch15 {name}(rank 3)": (
            lambda: call(torch.rand(2, size, size)),
            ValueError,
            shape
            + rf", got \(2, {size}, {size}\)"
            + (r"; add the channel axis" if channels == 1 else ""),
        ),
        f"ch15 {name}(rank 2)": (
            lambda: call(torch.rand(size, size)),
            ValueError,
            shape + rf", got \({size}, {size}\)",
        ),
        f"ch15 {name}(rank 5)": (
            lambda: call(torch.rand(1, 2, channels, size, size)),
            ValueError,
            shape + r", got \(1, 2, ",
        ),
        f"ch15 {name}(channels last)": (
            lambda: call(torch.rand(2, size, size, channels)),
            ValueError,
            shape + r".*; put the channels first",
        ),
        f"ch15 {name}(too many channels)": (
            lambda: call(torch.rand(2, channels + 2, size, size)),
            ValueError,
            shape + rf", got \(2, {channels + 2}, {size}, {size}\)",
        ),
        f"ch15 {name}(too large)": (
            lambda: call(torch.rand(2, channels, 2 * size, 2 * size)),
            ValueError,
            shape + rf", got \(2, {channels}, {2 * size}, {2 * size}\)",
        ),
        f"ch15 {name}(not square)": (
            lambda: call(torch.rand(2, channels, size, size + 2)),
            ValueError,
            shape + rf", got \(2, {channels}, {size}, {size + 2}\)",
        ),
    }


PATCH_EMBEDDING = {
    "ch15 PatchEmbedding(image_size not divisible)": (
        lambda: PatchEmbedding(image_size=8, patch_size=3, in_channels=1, d_model=16),
        ValueError,
        r"image_size divisible by patch_size, got image_size=8 and patch_size=3 "
        r"\(remainder 2\)",
    ),
    "ch15 PatchEmbedding(patch larger than the image)": (
        lambda: PatchEmbedding(image_size=4, patch_size=8, in_channels=1, d_model=16),
        ValueError,
        r"divisible by patch_size, got image_size=4 and patch_size=8",
    ),
    "ch15 PatchEmbedding(image_size as float)": (
        lambda: PatchEmbedding(image_size=8.0, patch_size=2, in_channels=1, d_model=16),
        TypeError,
        r"image_size as a positive int, got float 8.0",
    ),
    "ch15 PatchEmbedding(patch_size as tuple)": (
        lambda: PatchEmbedding(
            image_size=8, patch_size=(2, 2), in_channels=1, d_model=16
        ),
        TypeError,
        r"patch_size as a positive int, got tuple",
    ),
    "ch15 PatchEmbedding(patch_size 0)": (
        lambda: PatchEmbedding(image_size=8, patch_size=0, in_channels=1, d_model=16),
        ValueError,
        r"patch_size as a positive int, got 0",
    ),
    "ch15 PatchEmbedding(in_channels True)": (
        lambda: PatchEmbedding(
            image_size=8, patch_size=2, in_channels=True, d_model=16
        ),
        TypeError,
        r"in_channels as a positive int, got bool True",
    ),
    "ch15 PatchEmbedding(d_model -4)": (
        lambda: PatchEmbedding(image_size=8, patch_size=2, in_channels=1, d_model=-4),
        ValueError,
        r"d_model as a positive int, got -4",
    ),
    "ch15 PatchEmbedding(image_size as str)": (
        lambda: PatchEmbedding(image_size="8", patch_size=2, in_channels=1, d_model=16),
        TypeError,
        r"image_size as a positive int, got str '8'",
    ),
    **image_cases(
        "PatchEmbedding.forward",
        PatchEmbedding(image_size=8, patch_size=2, in_channels=1, d_model=16),
    ),
    **image_cases(
        "PatchEmbedding(3 channels).forward",
        PatchEmbedding(image_size=8, patch_size=2, in_channels=3, d_model=16),
        channels=3,
    ),
}

VISION_ENCODER = {
    "ch15 VisionEncoder(patch_size not dividing)": (
        lambda: VisionEncoder(image_size=8, patch_size=3),
        ValueError,
        r"image_size divisible by patch_size, got image_size=8 and patch_size=3",
    ),
    "ch15 VisionEncoder(n_layers 0)": (
        lambda: VisionEncoder(n_layers=0),
        ValueError,
        r"n_layers as a positive int, got 0",
    ),
    "ch15 VisionEncoder(n_layers as float)": (
        lambda: VisionEncoder(n_layers=2.0),
        TypeError,
        r"n_layers as a positive int, got float 2.0",
    ),
    "ch15 VisionEncoder(n_classes 0)": (
        lambda: VisionEncoder(n_classes=0),
        ValueError,
        r"n_classes as a positive int, got 0",
    ),
    "ch15 VisionEncoder(d_model not divisible by n_heads)": (
        lambda: VisionEncoder(d_model=30, n_heads=4),
        ValueError,
        r"d_model=30 .*n_heads=4",
    ),
    "ch15 VisionEncoder(dropout 1)": (
        lambda: VisionEncoder(dropout=1.0),
        ValueError,
        r"dropout in \[0, 1\), got 1.0",
    ),
    "ch15 VisionEncoder(dropout as str)": (
        lambda: VisionEncoder(dropout="0.1"),
        TypeError,
        r"dropout as a float, got str '0.1'",
    ),
    "ch15 VisionEncoder(norm_first as str)": (
        lambda: VisionEncoder(norm_first="yes"),
        TypeError,
        r"norm_first as a bool, got str 'yes'",
    ),
    "ch15 VisionEncoder(activation unknown)": (
        lambda: VisionEncoder(activation="swish"),
        ValueError,
        r"swish",
    ),
    "ch15 VisionEncoder(eps 0)": (
        lambda: VisionEncoder(eps=0.0),
        ValueError,
        r"eps > 0, got 0.0",
    ),
    "ch15 VisionEncoder(in_channels 0)": (
        lambda: VisionEncoder(in_channels=0),
        ValueError,
        r"in_channels as a positive int, got 0",
    ),
    "ch15 VisionEncoder.forward(return_weights as str)": (
        lambda: small_vit()(IMAGES, return_weights="yes"),
        TypeError,
        r"return_weights as a bool, got str 'yes'",
    ),
    "ch15 VisionEncoder.forward(return_weights as 1)": (
        lambda: small_vit()(IMAGES, return_weights=1),
        TypeError,
        r"return_weights as a bool, got int 1",
    ),
    **image_cases("VisionEncoder.forward", small_vit()),
    **image_cases("VisionEncoder.embed", small_vit().embed),
    **image_cases(
        "VisionEncoder(3 channels, 16 pixels).forward",
        small_vit(in_channels=3, image_size=16, patch_size=4),
        channels=3,
        size=16,
    ),
}

LOAD_DIGITS_SPLIT = {
    "ch15 load_digits_split(test_size as int)": (
        lambda: load_digits_split(test_size=1),
        TypeError,
        r"test_size as a float in \(0, 1\), got int 1",
    ),
    "ch15 load_digits_split(test_size as str)": (
        lambda: load_digits_split(test_size="0.2"),
        TypeError,
        r"test_size as a float in \(0, 1\), got str '0.2'",
    ),
    "ch15 load_digits_split(test_size True)": (
        lambda: load_digits_split(test_size=True),
        TypeError,
        r"test_size as a float in \(0, 1\), got bool True",
    ),
    "ch15 load_digits_split(test_size 0)": (
        lambda: load_digits_split(test_size=0.0),
        ValueError,
        r"test_size in \(0, 1\) that leaves at least 10 images .*got 0.0",
    ),
    "ch15 load_digits_split(test_size 1)": (
        lambda: load_digits_split(test_size=1.0),
        ValueError,
        r"test_size in \(0, 1\) .*got 1.0",
    ),
    "ch15 load_digits_split(test_size negative)": (
        lambda: load_digits_split(test_size=-0.2),
        ValueError,
        r"got -0.2",
    ),
    "ch15 load_digits_split(test_size nan)": (
        lambda: load_digits_split(test_size=float("nan")),
        ValueError,
        r"got nan",
    ),
    "ch15 load_digits_split(too few test images)": (
        lambda: load_digits_split(test_size=0.001),
        ValueError,
        r"at least 10 images \(one per digit\) in each part, got 0.001",
    ),
    "ch15 load_digits_split(too few training images)": (
        lambda: load_digits_split(test_size=0.999),
        ValueError,
        r"in each part, got 0.999",
    ),
    "ch15 load_digits_split(seed as float)": (
        lambda: load_digits_split(seed=1.0),
        TypeError,
        r"seed as an int, got float 1.0",
    ),
    "ch15 load_digits_split(seed negative)": (
        lambda: load_digits_split(seed=-1),
        ValueError,
        r"seed in \[0, 2\*\*32\), got -1",
    ),
    "ch15 load_digits_split(seed too large)": (
        lambda: load_digits_split(seed=2**32),
        ValueError,
        r"seed in \[0, 2\*\*32\), got 4294967296",
    ),
}


def vit_folder(config: dict | None = None, weights=None) -> Path:
    """A folder as save_pretrained writes a small ViTForImageClassification, with
    `config` merged into its config.json and `weights(state)` editing its tensors."""
    transformers = pytest.importorskip("transformers")
    from safetensors.torch import load_file, save_file

    folder = scratch_folder("vit-folder-")
    torch.manual_seed(0)
    hf_config = transformers.ViTConfig(
        image_size=8,
        patch_size=4,
        num_channels=1,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
    )
    transformers.ViTForImageClassification(hf_config).save_pretrained(folder)
    path = folder / "config.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | (config or {})))
    if weights is not None:
        state = load_file(folder / "model.safetensors")
        weights(state)
        save_file(state, folder / "model.safetensors")
    return folder


def drop_key(state: dict) -> None:
    del state["vit.layernorm.bias"]


def add_key(state: dict) -> None:
    state["vit.embeddings.mask_token"] = torch.zeros(1, 1, 16)


def wrong_shape(state: dict) -> None:
    state["vit.layernorm.bias"] = torch.zeros(17)


def empty_folder() -> Path:
    return scratch_folder("vit-empty-")


VIT_FROM_PRETRAINED = {
    "ch15 vit_from_pretrained(folder as int)": (
        lambda: vit_from_pretrained(3),
        TypeError,
        r"expected folder as a str or pathlib.Path, got int 3",
    ),
    "ch15 vit_from_pretrained(no such folder)": (
        lambda: vit_from_pretrained(empty_folder() / "nowhere"),
        FileNotFoundError,
        r"expected a ViT folder on disk, got .*nowhere",
    ),
    "ch15 vit_from_pretrained(no config.json)": (
        lambda: vit_from_pretrained(empty_folder()),
        FileNotFoundError,
        r"expected a config\.json at .*config\.json', found none",
    ),
    "ch15 vit_from_pretrained(a BERT folder)": (
        lambda: vit_from_pretrained(vit_folder({"model_type": "bert"})),
        ValueError,
        r"expected a ViT config \(model_type 'vit'\) in .*, got model_type 'bert'",
    ),
    "ch15 vit_from_pretrained(image 8 by 16)": (
        lambda: vit_from_pretrained(vit_folder({"image_size": [8, 16]})),
        ValueError,
        r"expected a square image_size, got \[8, 16\] in config\.json",
    ),
    "ch15 vit_from_pretrained(hidden_act silu)": (
        lambda: vit_from_pretrained(vit_folder({"hidden_act": "silu"})),
        ValueError,
        r"expected hidden_act in \['gelu', .*\], got 'silu' in config\.json",
    ),
    "ch15 vit_from_pretrained(hidden_size 15)": (
        lambda: vit_from_pretrained(vit_folder({"hidden_size": 15})),
        ValueError,
        r"d_model.*divisible by n_heads|n_heads.*divide",
    ),
    "ch15 vit_from_pretrained(a weight missing)": (
        lambda: vit_from_pretrained(vit_folder(weights=drop_key)),
        ValueError,
        r"does not match its config\.json: missing \['final_norm\.bias'\], "
        r"unexpected \[\]",
    ),
    "ch15 vit_from_pretrained(an unknown weight)": (
        lambda: vit_from_pretrained(vit_folder(weights=add_key)),
        ValueError,
        r"missing \[\], unexpected \['vit\.embeddings\.mask_token'\]",
    ),
    "ch15 vit_from_pretrained(no layers)": (
        lambda: vit_from_pretrained(vit_folder({"num_hidden_layers": 0})),
        ValueError,
        r"expected n_layers as a positive int, got 0",
    ),
    "ch15 vit_from_pretrained(a weight of the wrong shape)": (
        lambda: vit_from_pretrained(vit_folder(weights=wrong_shape)),
        ValueError,
        r"shape mismatch for vit\.layernorm\.bias → final_norm\.bias: expected "
        r"\(16,\), got \(17,\)",
    ),
    "ch15 vit_from_pretrained(broken config.json)": (
        lambda: vit_from_pretrained(broken_config()),
        ValueError,
        r"expected JSON in .*config\.json.*got",
    ),
}


def broken_config() -> Path:
    folder = scratch_folder("vit-broken-")
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    return folder


CASES = {
    **PATCH_EMBEDDING,
    **VISION_ENCODER,
    **LOAD_DIGITS_SPLIT,
    **VIT_FROM_PRETRAINED,
}


test_bad_input_raises_a_clear_error = sweep(CASES)


def test_an_empty_batch_gives_empty_logits():
    model = small_vit()
    empty = torch.rand(0, 1, 8, 8)
    assert model(empty).shape == (0, 10)
    assert model.embed(empty).shape == (0, 16)
    logits, attentions = model(empty, return_weights=True)
    assert logits.shape == (0, 10) and attentions[0].shape == (0, 2, 17, 17)
    patches = PatchEmbedding(image_size=8, patch_size=2, in_channels=1, d_model=16)
    assert patches(empty).shape == (0, 16, 16)


def test_the_model_follows_its_dtype():
    model = small_vit().double()
    assert model(IMAGES.double()).dtype == torch.float64
    with pytest.raises(TypeError, match=r"images of dtype torch.float64"):
        model(IMAGES)
