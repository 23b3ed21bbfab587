"""Chapter 11's figure: BERT's masking, as mask_tokens does it."""

from __future__ import annotations

from .draw import KINDS, MUTED, Figure, Svg, text_width


def draw_ch11_masking() -> Svg:
    """The decisions of mask_tokens as a flow, then the chapter's example."""
    svg = Svg("ch11-masking", 760, 578)
    svg.heading(
        "BERT’s masking, as mask_tokens does it",
        "One uniform number per token chooses it; a second one, u, splits "
        "the chosen tokens 80/10/10.",
    )
    tint = {
        "mask": KINDS["mask"][0],
        "random": KINDS["yellow"][0],
        "kept": KINDS["attn"][0],
        "off": KINDS["grey"][0],
    }
    start = svg.box(40, 62, 380, 34, "each position of input_ids (b, n)", "data")
    special = svg.box(
        40,
        120,
        380,
        44,
        [
            "a special token ([CLS], [SEP], [PAD], ...)",
            "or a padded position (mask False)?",
        ],
        "op",
        size=13,
    )
    chosen = svg.box(
        40,
        190,
        380,
        44,
        ["chosen with probability 0.15?", "(real, non-special tokens only)"],
        "op",
        size=13,
    )
    never = svg.box(
        480, 120, 268, 44, ["never chosen:", "unchanged, label −100"], "grey", size=13
    )
    skipped = svg.box(
        480,
        190,
        268,
        44,
        ["not chosen (85 %):", "unchanged, label −100"],
        "data",
        size=13,
        rx=8,
    )
    svg.arrow(start.bottom_at(), special.top_at())
    svg.arrow(special.bottom_at(), chosen.top_at())
    svg.caption(special.cx + 8, special.bottom + 18, "no")
    svg.arrow(special.right_at(), never.left_at())
    svg.text((special.right + never.x) / 2, special.cy - 6, "yes", 13, color=MUTED)
    svg.arrow(chosen.right_at(), skipped.left_at())
    svg.text((chosen.right + skipped.x) / 2, chosen.cy - 6, "no", 13, color=MUTED)
    outcomes = [
        (["u < 0.8 (80 %):", "[MASK]"], "mask"),
        (["0.8 ≤ u < 0.9 (10 %):", "a random non-special token"], "random"),
        (["u ≥ 0.9 (10 %):", "unchanged"], "kept"),
    ]
    bus = chosen.bottom + 22
    svg.caption(chosen.cx + 8, chosen.bottom + 16, "yes")
    svg.line(chosen.bottom_at(), (chosen.cx, bus))
    boxes = []
    for i, (lines, key) in enumerate(outcomes):
        bx = 12 + i * 248
        box = svg.rect(bx, 278, 240, 48, tint[key], KINDS["grey"][1], rx=8)
        svg.lines(box.cx, 297, lines, 13, anchor="middle")
        boxes.append(box)
    svg.line((boxes[0].cx, bus), (boxes[-1].cx, bus))
    for box in boxes:
        svg.arrow((box.cx, bus), box.top_at())
    label = svg.box(
        12,
        350,
        736,
        34,
        "label = the original id at every chosen position, whatever the model sees",
        "data",
        size=14,
        rx=8,
    )
    for box in boxes:
        svg.arrow(box.bottom_at(), label.top_at(box.cx))
    # The chapter's hand-made example, with padding added.
    svg.text(
        12,
        420,
        "The chapter’s example, with two [PAD] added:",
        14,
        anchor="start",
        bold=True,
    )
    tokens = [
        "[CLS]",
        "the",
        "cat",
        "sat",
        "on",
        "the",
        "mat",
        "because",
        "it",
        "was",
        "warm",
        "[SEP]",
        "[PAD]",
        "[PAD]",
    ]
    seen = dict(enumerate(tokens)) | {2: "[MASK]", 6: "piano"}
    treat = {
        2: "mask",
        6: "random",
        10: "kept",
        0: "off",
        11: "off",
        12: "off",
        13: "off",
    }
    rows = [
        ("input", tokens),
        ("model sees", [seen[j] for j in range(14)]),
        ("label", [t if j in (2, 6, 10) else "−100" for j, t in enumerate(tokens)]),
    ]
    widths = [
        max(text_width(r[1][j], 13) for r in rows) + 7 for j in range(len(tokens))
    ]
    x0 = 12 + text_width("model sees", 13, bold=True) + 10
    if x0 + sum(widths) > 748:
        raise ValueError("ch11: the example does not fit")
    for r, (name, values) in enumerate(rows):
        y = 434 + r * 30
        svg.text(12, y + 20, name, 13, anchor="start", bold=True)
        x = x0
        for j, value in enumerate(values):
            fill = tint[treat[j]] if j in treat else "#FFFFFF"
            svg.rect(x, y, widths[j], 28, fill, KINDS["grey"][1], stroke_width=1)
            svg.text(x + widths[j] / 2, y + 19, value, 13)
            x += widths[j]
    svg.caption(
        12,
        548,
        [
            "Grey: specials and padding, never chosen. Labels of −100 are "
            "skipped by F.cross_entropy, so the loss",
            "covers the chosen positions "
            "only; the random token is drawn from the non-special ids.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch11_masking.svg",
    chapter="11_masked_language_model_pretraining.ipynb",
    after="## Build it: BERT's masking",
    alt=(
        "A decision flow for every position of a batch. Special tokens and "
        "padding are never chosen. Every other token is chosen with probability "
        "0.15; of the chosen, 80 percent become the mask token, 10 percent a "
        "random non-special token and 10 percent stay unchanged, and all of them "
        "keep their original id as the label, while every other position gets "
        "the label minus 100. Below, the chapter's sentence the cat sat on the "
        "mat because it was warm, with two padding tokens: cat becomes the mask "
        "token, mat becomes piano, warm stays, and only those three positions "
        "have labels."
    ),
    caption=(
        "BERT’s 80/10/10 masking: who may be chosen, what the model sees, and "
        "which positions carry a label."
    ),
    draw=draw_ch11_masking,
)
