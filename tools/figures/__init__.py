"""The book's architecture diagrams, one module per figure.

`draw` is the shared kit: the SVG builder `Svg`, its `Box`, `text_width`, the
colours (`KINDS`) and the manifest record `Figure`. Every other module draws one
figure and is named after the file it makes: `ch05_heads.py` draws
chapters/figures/ch05_heads.svg. Each defines a `draw_chNN_name()` function that
returns the drawing and a `FIGURE` that says where the drawing goes and what it
tells a reader who cannot see it. tools/diagrams.py lists them in `FIGURES` and
writes the SVG files.
"""
