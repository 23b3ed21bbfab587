"""Write the Unicode table of BERT's tokenizer, probed from Hugging Face's `tokenizers`.

`encoderlib.tokenization` (chapter 2) must give the ids of Hugging Face's
`BertTokenizerFast` on any text, under any Python. Every step of BERT's
normalisation asks a question about a character (is it a control character,
whitespace, punctuation, a non-spacing mark? what are its decomposition and its
lower case?), and the answers depend on the Unicode version of whoever answers:
each Python release ships another one, and Hugging Face's Rust code uses tables of
yet other versions. So the library asks neither: it reads the answers from
`encoderlib/resources/bert_unicode.json`, which this script writes by asking
`tokenizers` about every one of the 1,112,064 code points (surrogates excluded):

- `deleted`: what `BertNormalizer(clean_text=True)` deletes (controls, formats,
  private use, U+0000 and U+FFFD);
- `whitespace`: where `BertPreTokenizer` splits; the cleaning turns each one that
  it does not delete into a space;
- `punctuation`: what `BertPreTokenizer` makes a word of its own;
- `nonspacing_marks`: what accent stripping (`BertNormalizer(strip_accents=True)`)
  deletes after NFD;
- `decompositions`: `normalizers.NFD` of each code point, Hangul syllables aside
  (their decomposition is arithmetic, the same in every Unicode version);
- `combining_classes`: the canonical combining class of every code point that NFD
  reorders (all others are 0); the classes are probed by the order NFD puts pairs
  of marks in, and named with Unicode's numbers, which never change once assigned;
- `lowercase`: `normalizers.Lowercase` of each code point it changes.

Every answer is checked for consistency here (cleaning = deleted, then whitespace;
accent stripping = NFD, then marks deleted; the classes reproduce NFD's order on
every pair of marks), and tests/test_tokenization.py compares the tokenizer built on
the table with Hugging Face's on every code point.

Run `python tools/unicode_table.py` to write, `--check` to compare.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Iterable
from importlib.metadata import version
from pathlib import Path

from tokenizers import normalizers, pre_tokenizers

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "encoderlib" / "resources" / "bert_unicode.json"

CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
HANGUL_FIRST, HANGUL_COUNT = 0xAC00, 11172


def hangul_decomposition(cp: int) -> str:
    """NFD of a precomposed Hangul syllable: leading consonant, vowel, trailing one."""
    index = cp - HANGUL_FIRST
    lead, vowel, trail = index // 588, index % 588 // 28, index % 28
    final = chr(0x11A7 + trail) if trail else ""
    return chr(0x1100 + lead) + chr(0x1161 + vowel) + final


def each(normalizer, texts: list[str], separator: str = "|") -> list[str]:
    """`normalizer` applied to every text, in batches joined by `separator`."""
    results = []
    for start in range(0, len(texts), 4096):
        batch = texts[start : start + 4096]
        joined = separator.join(batch)
        pieces = normalizer.normalize_str(joined).split(separator)
        if joined.count(separator) != len(batch) - 1 or len(pieces) != len(batch):
            pieces = [normalizer.normalize_str(text) for text in batch]  # one by one
        results += pieces
    return results


def pre_tokenizer_classes(chars: list[str]) -> tuple[set[int], set[int]]:
    """Code points BertPreTokenizer splits at (whitespace) or isolates (punctuation)."""
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    whitespace, punctuation = set(), set()
    for start in range(0, len(chars), 4096):
        batch = chars[start : start + 4096]
        # "a" between the characters: character i sits at offset 2 i + 1, and only
        # punctuation can make a word of one character there.
        words = pre_tokenizer.pre_tokenize_str("a" + "a".join(batch) + "a")
        covered = bytearray(2 * len(batch) + 1)
        for word, (first, end) in words:
            covered[first:end] = b"\x01" * (end - first)
            if end == first + 1 and first % 2 and word == batch[first // 2]:
                punctuation.add(ord(word))
        whitespace.update(
            ord(ch) for i, ch in enumerate(batch) if not covered[2 * i + 1]
        )
    return whitespace, punctuation


def combining_classes(atoms: list[str]) -> dict[int, int]:
    """Canonical combining class of the code points NFD reorders, as NFD orders them.

    A mark with class 1 (U+0334) is moved before any mark of a higher class, and
    one with class 240 (U+0345) after any mark of a lower one, so a character is
    reordered with one of the two exactly when its class is not 0. The classes are
    named with Unicode's numbers (unicodedata.combining), then checked: for every
    reordered character and one representative of every class, NFD must swap the
    pair exactly when the first one's class is higher.
    """
    nfd = normalizers.NFD()
    low, high = "\u0334", "\u0345"
    after_low = each(nfd, [ch + low for ch in atoms])
    before_high = each(nfd, [high + ch for ch in atoms])
    moved = [
        ch
        for ch, a, b in zip(atoms, after_low, before_high, strict=True)
        if a != ch + low or b != high + ch
    ]
    classes = {ch: unicodedata.combining(ch) for ch in moved}
    if not all(classes.values()):
        raise SystemExit("a character NFD reorders has class 0 in this Python")
    representative: dict[int, str] = {}
    for ch in moved:
        representative.setdefault(classes[ch], ch)
    pairs = [(a, r) for a in moved for r in representative.values()]
    forward = each(nfd, [a + r for a, r in pairs])
    backward = each(nfd, [r + a for a, r in pairs])
    for (a, r), ar, ra in zip(pairs, forward, backward, strict=True):
        if ar != (r + a if classes[a] > classes[r] else a + r) or ra != (
            a + r if classes[r] > classes[a] else r + a
        ):
            raise SystemExit(f"NFD orders U+{ord(a):04X} and U+{ord(r):04X} otherwise")
    return {ord(ch): value for ch, value in classes.items()}


def ranges(code_points: Iterable[int], step: int = 1) -> list[tuple[int, int]]:
    """Sorted code points as (first, last) runs of consecutive values."""
    runs: list[list[int]] = []
    for cp in sorted(code_points):
        if runs and runs[-1][1] == cp - step:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return [(first, last) for first, last in runs]


def hex_range(first: int, last: int, step: int = 1) -> str:
    """`0041`, `0041..005A` or, every second code point, `0100..012E/2`."""
    text = f"{first:04X}" if first == last else f"{first:04X}..{last:04X}"
    return text + (f"/{step}" if step != 1 else "")


def hex_chars(text: str) -> str:
    return " ".join(f"{ord(ch):04X}" for ch in text)


def lowercase_runs(lower: dict[int, str]) -> dict[str, str]:
    """{range: lower case of its first code point}: runs with one offset and step."""
    runs: list[list] = []  # [first, last, step, offset]
    for cp in sorted(lower):
        target = lower[cp]
        offset = ord(target) - cp if len(target) == 1 else None
        if runs and offset is not None and runs[-1][3] == offset:
            first, last, step, _ = runs[-1]
            if (first == last and cp - last in (1, 2)) or cp - last == step:
                runs[-1][1:3] = [cp, cp - last]
                continue
        runs.append([cp, cp, 1, offset])
    return {
        hex_range(first, last, step): hex_chars(lower[first])
        for first, last, step, _ in runs
    }


def generate() -> dict:
    """Ask `tokenizers` about every code point; return the table."""
    chars = [chr(cp) for cp in CODE_POINTS]
    clean = each(
        normalizers.BertNormalizer(
            clean_text=True,
            handle_chinese_chars=False,
            strip_accents=False,
            lowercase=False,
        ),
        chars,
    )
    nfd = each(normalizers.NFD(), chars)
    strip = each(
        normalizers.BertNormalizer(
            clean_text=False,
            handle_chinese_chars=False,
            strip_accents=True,
            lowercase=False,
        ),
        chars,
    )
    lower = each(normalizers.Lowercase(), chars)
    whitespace, punctuation = pre_tokenizer_classes(chars)

    deleted = {ord(ch) for ch, out in zip(chars, clean, strict=True) if out == ""}
    atoms = [ch for ch, out in zip(chars, nfd, strict=True) if out == ch]
    marks = {ord(ch) for ch, out in zip(chars, strip, strict=True) if out == ""}
    marks &= {ord(ch) for ch in atoms}
    decompositions = {
        ord(ch): out
        for ch, out in zip(chars, nfd, strict=True)
        if out != ch and not 0 <= ord(ch) - HANGUL_FIRST < HANGUL_COUNT
    }

    # The table must reproduce what it was probed from.
    cleaned = [
        "" if cp in deleted else " " if cp in whitespace else chr(cp)
        for cp in CODE_POINTS
    ]
    decomposed = [
        hangul_decomposition(cp)
        if 0 <= cp - HANGUL_FIRST < HANGUL_COUNT
        else decompositions.get(cp, chr(cp))
        for cp in CODE_POINTS
    ]
    stripped = [  # an atom is deleted or kept whole; a decomposition loses its marks
        ("" if cp in marks else ch)
        if ch == out
        else "".join(c for c in out if ord(c) not in marks)
        for cp, ch, out in zip(CODE_POINTS, chars, decomposed, strict=True)
    ]
    for step, table, probed in [
        ("cleaning", cleaned, clean),
        ("NFD", decomposed, nfd),
        ("accent stripping", stripped, strip),
    ]:
        if table != probed:
            pairs = zip(CODE_POINTS, table, probed, strict=True)
            cp = next(cp for cp, a, b in pairs if a != b)
            raise SystemExit(f"the table gets {step} of U+{cp:04X} wrong")

    classes = combining_classes(atoms)
    by_class: dict[str, list[str]] = {}
    for value in sorted(set(classes.values())):
        members = [cp for cp, c in classes.items() if c == value]
        by_class[str(value)] = [hex_range(*r) for r in ranges(members)]

    return {
        "about": (
            "The Unicode facts BERT's tokenizer uses, as Hugging Face's tokenizers "
            f"{version('tokenizers')} (BertNormalizer, BertPreTokenizer, NFD, "
            "Lowercase) answers them, probed on every code point by "
            "tools/unicode_table.py for encoderlib.tokenization. Code points are "
            "hexadecimal; A..B is a range, A..B/2 every second code point of it. "
            "Derived from the Unicode Character Database (Unicode License v3) "
            "through tokenizers (Apache License 2.0)."
        ),
        "tokenizers": version("tokenizers"),
        "deleted": [hex_range(*r) for r in ranges(deleted)],
        "whitespace": [hex_range(*r) for r in ranges(whitespace)],
        "punctuation": [hex_range(*r) for r in ranges(punctuation)],
        "nonspacing_marks": [hex_range(*r) for r in ranges(marks)],
        "combining_classes": by_class,
        "decompositions": {
            f"{cp:04X}": hex_chars(out) for cp, out in sorted(decompositions.items())
        },
        "lowercase": lowercase_runs(
            {ord(ch): out for ch, out in zip(chars, lower, strict=True) if out != ch}
        ),
    }


def render(table: dict) -> str:
    """JSON with one key per line and long lists wrapped at 100 columns."""

    def wrapped(items: list[str], indent: str) -> str:
        lines, line = [], ""
        for item in items:
            if line and len(indent) + len(line) + len(item) + 2 > 100:
                lines.append(line.rstrip())
                line = ""
            line += item + ", "
        lines.append(line.rstrip(", "))
        return "\n".join(indent + text for text in lines)

    def value(obj, indent: str) -> str:
        if isinstance(obj, list):
            items = [json.dumps(item, ensure_ascii=False) for item in obj]
            return "[\n" + wrapped(items, indent + " ") + "\n" + indent + "]"
        if isinstance(obj, dict) and all(isinstance(v, str) for v in obj.values()):
            items = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items()]
            return "{\n" + wrapped(items, indent + " ") + "\n" + indent + "}"
        if isinstance(obj, dict):
            inner = ",\n".join(
                f"{indent} {json.dumps(k)}: {value(v, indent + ' ')}"
                for k, v in obj.items()
            )
            return "{\n" + inner + "\n" + indent + "}"
        return json.dumps(obj, ensure_ascii=False)

    return value(table, "") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = render(generate())
    if args.check:
        if TABLE.read_text(encoding="utf-8") != text:
            print(f"{TABLE.relative_to(ROOT)} differs from a fresh probe of tokenizers")
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE.relative_to(ROOT)} ({len(text.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
