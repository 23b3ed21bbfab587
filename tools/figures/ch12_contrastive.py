"""Chapter 12's figure: a contrastive batch with in-batch negatives."""

from __future__ import annotations

from .draw import KINDS, MUTED, Figure, Svg


def draw_ch12_contrastive() -> Svg:
    """The batch twice through the encoder, then the b × b logits of InfoNCE."""
    svg = Svg("ch12-contrastive", 760, 610)
    svg.heading(
        "A contrastive batch: unsupervised SimCSE with in-batch negatives",
        "b = 4 sentences, each encoded twice in one pass; only dropout makes "
        "the two copies differ.",
    )
    tints = [KINDS["attn"][0], KINDS["yellow"][0], KINDS["norm"][0], KINDS["mask"][0]]
    batch = svg.box(
        12,
        112,
        160,
        84,
        ["a batch of b", "sentences:", "input_ids and", "attention_mask (b, n)"],
        "data",
        size=13,
    )
    # torch.cat([ids, ids]): 2b rows.
    stacked_fills = {(r, 0): tints[r % 4] for r in range(8)}
    stacked_texts = {(r, 0): f"s{r % 4 + 1}" for r in range(8)}
    stacked = svg.grid(
        250, 82, 8, 1, 18, "data", stacked_fills, stacked_texts, cell_w=56
    )
    svg.text(stacked.cx, 72, "torch.cat: (2b, n)", 13, color=MUTED)
    svg.text(stacked.x - 8, 82 + 2 * 18 + 5, "copy 1", 13, anchor="end", color=MUTED)
    svg.text(stacked.x - 8, 82 + 6 * 18 + 5, "copy 2", 13, anchor="end", color=MUTED)
    svg.arrow(batch.right_at(), (stacked.x - 4, batch.cy))
    encoder = svg.box(
        352,
        100,
        170,
        108,
        [
            "encoder in",
            "training mode:",
            "each row draws",
            "its own dropout,",
            "then mean_pool",
        ],
        "attn",
        size=13,
    )
    svg.arrow(stacked.right_at(), encoder.left_at())
    vec_fills = {(r, c): tints[r % 4] for r in range(8) for c in range(3)}
    vectors = svg.grid(574, 82, 8, 3, 18, "data", vec_fills)
    svg.text(vectors.cx, 72, "vectors (2b, d)", 13, color=MUTED)
    svg.arrow(encoder.right_at(), (vectors.x - 6, encoder.cy))
    svg.brace(vectors.right + 4, 82, 82 + 4 * 18 - 2, depth=6)
    svg.brace(vectors.right + 4, 82 + 4 * 18 + 2, 82 + 8 * 18, depth=6)
    for row, half in ((2, ["first:", "q (b, d)"]), (6, ["second:", "k (b, d)"])):
        svg.lines(
            vectors.right + 22, 82 + row * 18 - 3, half, 13, gap=2, anchor="start"
        )
    # The b × b logits: positives on the diagonal, in-batch negatives elsewhere.
    panel = svg.rect(12, 262, 736, 280, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.arrow((vectors.cx, vectors.bottom + 4), (vectors.cx, panel.y))
    svg.text(
        panel.cx,
        286,
        "info_nce_loss(q, k): logits[i, j] = cos(q_i, k_j) / τ, τ = 0.05",
        14,
        bold=True,
    )
    mx, my, cw, ch = 176, 342, 62, 30
    svg.text(mx + 2 * cw, 308, "keys k_j", 13, color=MUTED)
    svg.text(mx + 6 * cw, 308, "optional hard negatives (m, d)", 13, color=MUTED)
    for j in range(8):
        x = mx + j * cw
        if j < 4:
            svg.rect(x + 4, my - 26, cw - 8, 22, tints[j], KINDS["grey"][1], rx=2)
            svg.text(x + cw / 2, my - 10, f"k_{j + 1}", 13)
        else:
            svg.rect(
                x + 4,
                my - 26,
                cw - 8,
                22,
                "#FFFFFF",
                KINDS["drop"][1],
                rx=2,
                dash="4 3",
            )
            svg.text(x + cw / 2, my - 10, f"hard_{j - 3}", 13)
    for i in range(4):
        y = my + i * ch
        svg.rect(mx - 58, y + 4, 50, ch - 8, tints[i], KINDS["grey"][1], rx=2)
        svg.text(mx - 33, y + 20, f"q_{i + 1}", 13)
        for j in range(8):
            if j == i:
                fill, stroke, text, dash = (
                    KINDS["norm"][0],
                    KINDS["norm"][1],
                    "pos",
                    None,
                )
            elif j < 4:
                fill, stroke, text, dash = "#F2F2F2", KINDS["grey"][1], "neg", None
            else:
                fill, stroke, text, dash = (
                    KINDS["drop"][0],
                    KINDS["drop"][1],
                    "neg",
                    "4 3",
                )
            svg.rect(mx + j * cw, y, cw, ch, fill, stroke, stroke_width=1, dash=dash)
            svg.text(mx + j * cw + cw / 2, y + 20, text, 13)
    svg.text(mx - 33, my - 10, "q_i", 13, color=MUTED)
    svg.lines(
        30,
        my + 4 * ch + 28,
        [
            "loss = mean over rows i of cross_entropy(row i, "
            "target i): the diagonal is the right answer,",
            "and the other b − 1 keys "
            "of the batch are negatives for free. Supervised SimCSE adds hard",
            "negatives as extra columns (PairCollator, supervised_simcse_loss).",
        ],
        13,
        gap=5,
        anchor="start",
    )
    svg.caption(
        12,
        570,
        "Without dropout (eval mode) the two copies are identical; "
        "unsupervised_simcse_loss needs encoder.train().",
    )
    svg.caption(
        12,
        592,
        "In supervised SimCSE the keys are real partners (anchor, "
        "positive), not dropout copies.",
    )
    return svg


FIGURE = Figure(
    file="ch12_contrastive.svg",
    chapter="12_contrastive_sentence_embeddings.ipynb",
    after="## SimCSE: two views from dropout",
    alt=(
        "Unsupervised SimCSE on a batch of 4 sentences. The batch is stacked on "
        "itself into 8 rows and encoded in one pass in training mode, so each "
        "copy gets its own dropout, then mean-pooled into 8 vectors; the first 4 "
        "are the queries and the last 4 the keys. Below, a 4-by-4 grid of "
        "logits, the cosine of query i and key j divided by the temperature "
        "0.05, has the positives on its diagonal and in-batch negatives "
        "everywhere else; optional hard negatives add columns. The loss is the "
        "cross-entropy of each row with the diagonal as its target, averaged "
        "over the rows."
    ),
    caption=(
        "A contrastive batch: two dropout views of each sentence, positives on "
        "the diagonal, the rest of the batch as negatives."
    ),
    draw=draw_ch12_contrastive,
)
