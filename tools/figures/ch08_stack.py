"""Chapter 8's first figure: the encoder stack, from input ids to hidden states."""

from __future__ import annotations

from .draw import KINDS, Figure, Svg


def draw_ch08_stack() -> Svg:
    """Embeddings, L layers, the final norm, the outputs on request, the presets."""
    svg = Svg("ch08-stack", 760, 676)
    svg.heading("Encoder: embeddings, a stack of L layers, a final norm")
    cx, w = 330, 300
    left = cx - w / 2
    mask = svg.box(
        12,
        44,
        168,
        50,
        ["attention_mask (b, n)", "True or 1 = real token"],
        "mask",
        size=13,
    )
    ids = svg.box(cx - 80, 44, 160, 50, ["input_ids", "(b, n)"], "data")
    types = svg.box(
        cx + 100, 44, 196, 50, ["token_type_ids (b, n)", "optional"], "data", size=13
    )
    emb = svg.box(
        left,
        124,
        w,
        62,
        ["embeddings", "token + segment + position,", "then LayerNorm and dropout"],
        "grey",
        bold_first=True,
    )
    svg.arrow(ids.bottom_at(), emb.top_at())
    svg.arrow(types.bottom_at(types.x + 30), (types.x + 30, emb.y))
    rows = [
        ("layers[0]: EncoderLayer", "attn", "hidden_states[1], attentions[0]"),
        ("layers[1]: EncoderLayer", "attn", "hidden_states[2], attentions[1]"),
        (None, None, None),
        ("layers[L − 1]: EncoderLayer", "attn", "hidden_states[L], attentions[L − 1]"),
        ("final_norm: LayerNorm, pre-norm only", "norm", None),
        ("padding positions set to 0", "op", None),
        ("last_hidden_state (b, n, d)", "data", None),
    ]
    y = 220
    boxes = [emb]
    lane = 146
    skipped = False
    for text, kind, side in rows:
        if text is None:  # the layers in between
            skipped = True
            y += 34
            continue
        box = svg.box(
            left, y, w, 38, text, kind, dash="5 3" if kind == "norm" else None
        )
        svg.arrow(boxes[-1].bottom_at(), box.top_at(), dash="2 4" if skipped else None)
        if skipped:
            svg.caption(
                cx + 12,
                (boxes[-1].bottom + box.y) / 2 + 5,
                "L layers, each with its own weights",
            )
            skipped = False
        boxes.append(box)
        if side:
            svg.arrow(box.right_at(), (box.right + 28, box.cy), dash="3 3")
            svg.caption(box.right + 34, box.cy + 5, side)
        if kind in ("attn", "op"):
            svg.arrow((lane, box.cy), box.left_at(), color=KINDS["mask"][1])
        y += 68
    svg.arrow(emb.right_at(), (emb.right + 28, emb.cy), dash="3 3")
    svg.caption(emb.right + 34, emb.cy + 5, "hidden_states[0]")
    svg.line((lane, mask.bottom), (lane, boxes[-2].cy), color=KINDS["mask"][1])
    svg.caption(12, 150, "the mask goes")
    svg.caption(12, 168, "to every layer")
    # The presets, as EncoderConfig defines them.
    tx, ty = 500, 470
    svg.text(tx, ty, "EncoderConfig presets", 14, anchor="start", bold=True)
    columns = [("", 0), ("L", 112), ("d", 152), ("h", 186), ("d_ff", 238)]
    table = [
        ("bert_base()", "12", "768", "12", "3072"),
        ("minilm_l6()", "6", "384", "12", "1536"),
        ("tiny()", "2", "64", "4", "256"),
    ]
    for name, dx in columns[1:]:
        svg.text(tx + dx, ty + 24, name, 13, anchor="end", bold=True)
    for r, row in enumerate(table):
        for c, (value, (_, dx)) in enumerate(zip(row, columns, strict=True)):
            svg.text(
                tx + dx,
                ty + 46 + r * 21,
                value,
                13,
                anchor="end" if c else "start",
                mono=c == 0,
            )
    svg.caption(tx, ty + 46 + 3 * 21 + 4, "tiny() is pre-norm, others post-norm")
    svg.caption(
        12,
        664,
        "On request: L + 1 hidden states (b, n, d) and L attention maps "
        "(b, h, n, n), one per layer.",
    )
    return svg


FIGURE = Figure(
    file="ch08_stack.svg",
    chapter="08_the_stack.ipynb",
    after="`Encoder` reads like its diagram",
    alt=(
        "A top-to-bottom flow of the Encoder. Token ids and optional segment ids "
        "enter the embeddings, which add token, segment and position vectors and "
        "apply LayerNorm and dropout; the result goes through layers 0 to L minus "
        "1, each an EncoderLayer that also receives the attention mask; a final "
        "LayerNorm follows in pre-norm models only; padding positions are set to "
        "zero, giving the last hidden state of shape b, n, d. Side arrows mark the "
        "hidden states and attention maps each layer can return, and a table "
        "lists the presets: BERT-base 12 layers of width 768 with 12 heads and "
        "d_ff 3072, MiniLM-L6 6 layers of 384 with 12 heads and d_ff 1536, tiny "
        "2 layers of 64 with 4 heads and d_ff 256."
    ),
    caption=(
        "The Encoder: embeddings, L encoder layers that share the mask, and a "
        "final norm in pre-norm models."
    ),
    draw=draw_ch08_stack,
)
