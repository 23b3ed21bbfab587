"""Find numbers in a chapter's prose that none of its code cells computes or asserts.

Every number a chapter states must be computed by a cell, asserted by one, or
cited. This tool reads a chapter's markdown cells, pulls out each number, and
looks for the same value among the numbers of the chapter's code: the code
cells' sources (where asserts and constants live) and their stored text
outputs (what the cells printed). A number with no match is reported with its
sentence. What is not a claim is skipped: chapter, section and exercise
references ("chapter 8", "§3a", "exercise 7.2"), years, arXiv ids, link
targets, identifiers with digits in them (fp32, MiniLM-L6, W_2), sub- and
superscripts in math, heading enumerations, and every number of a sentence
that carries a citation (a paper's figures carry over with it: "et al., 2018"
or an arXiv id). Numbers that are true by definition and printed nowhere go
into the notebook's metadata, `encoder_book.prose_numbers_allowed`, a dict from
the number as written to the reason it needs no cell.

Run `python tools/prose_numbers.py [chapters/NN_name.ipynb ...]`; with no
argument it checks every chapter. `tests/test_prose_numbers.py` runs it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))

# A number: 1,112,064  0.88  1e-5  3.2e-07  65  (commas group thousands).
NUMBER = re.compile(
    r"(?<![\w.\d])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+−]?\d+)?(?![\w.]\d|[A-Za-z_\d])"
)
# A number may be followed by a unit letter and stay a number: 65 M, 110M, 10k.
NUMBER_UNIT = re.compile(
    r"(?<![\w.\d])((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?=[kMBG]\b)"
)
CITATION = re.compile(r"arXiv|et al\.|\b(?:19|20)\d\d[a-z]?\)")
REFERENCES = [
    # chapter / section / exercise / part references, with ranges and lists
    re.compile(
        r"\b(?:[Cc]hapters?|[Ee]xercises?|[Ss]ections?|[Pp]arts?|§|DESIGN §)\s*"
        r"\d+(?:\.\d+)*[a-z]?(?:\s*(?:–|-|to|and|or|,)\s*\d+(?:\.\d+)*[a-z]?)*"
    ),
    re.compile(r"§\s*\d+[a-z]?(?:\.\d+)*"),
    re.compile(r"arXiv:\s*\d+\.\d+(?:v\d+)?"),
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"https?://\S+"),
    re.compile(r"<[^>]+>"),  # html tags and comments' markup
    re.compile(r"\b[A-Za-z_]+[\w-]*\d[\w.-]*"),  # identifiers: fp32, MiniLM-L6-v2, W_2
    re.compile(r"[_^]\{?[-\d]+\}?"),  # sub- and superscripts in math
    re.compile(r"\b(?:1[89]|20)\d\d\b(?![,.]\d)"),  # years
]
HEADING_NUMBER = re.compile(r"^(#+\s*)\d+(?:\.\d+)*\.?", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[A-Z(*`$|\-])|\n\s*\n|\n(?=\s*[-*|#>])")


@dataclass(frozen=True)
class Unbacked:
    """A number in the prose with no code number of the same value."""

    chapter: str
    number: str
    sentence: str


def cell_text(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def value(token: str) -> float | None:
    """The float a number token stands for (commas and a − sign handled)."""
    token = token.replace(",", "").replace("−", "-")
    try:
        return float(token)
    except ValueError:
        return None


def same(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def code_numbers(cells: list[dict]) -> set[float]:
    """Every number in the code cells' sources and stored text outputs."""
    texts = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        texts.append(cell_text(cell))
        for output in cell.get("outputs", []):
            if "text" in output:
                texts.append("".join(output["text"]))
            for key in ("text/plain", "text/markdown", "text/html"):
                if key in output.get("data", {}):
                    texts.append("".join(output["data"][key]))
    found = set()
    # In code every digit run counts, even inside names like n_heads=12 or 1e-5.
    pattern = r"\d[\d,_]*(?:\.\d+)?(?:[eE][-+]?\d+)?"  # 1,112,064 and 1_112_064
    for match in re.finditer(pattern, "\n".join(texts)):
        token = match.group().rstrip(",_").replace("_", "")
        for candidate in {token, token.replace(",", "")}:
            number = value(candidate)
            if number is not None:
                found.add(number)
    return found


def strip_non_claims(text: str) -> str:
    """The prose with references, identifiers and markup numbers removed."""
    text = HEADING_NUMBER.sub(r"\1", text).replace("{,}", ",")
    for pattern in REFERENCES:
        text = pattern.sub(" ", text)
    return text


def prose_numbers(text: str) -> list[tuple[str, str]]:
    """(number, sentence) for each number claim in a markdown cell."""
    found = []
    for sentence in SENTENCE_END.split(text):
        if not sentence or not sentence.strip():
            continue
        if CITATION.search(sentence):
            continue  # a cited figure: the citation is its evidence
        stripped = strip_non_claims(sentence)
        tokens = [m.group() for m in NUMBER.finditer(stripped)]
        tokens += [m.group(1) for m in NUMBER_UNIT.finditer(stripped)]
        for token in tokens:
            found.append((token, " ".join(sentence.split())))
    return found


def unbacked_numbers(path: Path) -> list[Unbacked]:
    """The chapter's prose numbers that no code number equals."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    backed = code_numbers(cells)
    result = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for token, sentence in prose_numbers(cell_text(cell)):
            number = value(token)
            if number is None or any(same(number, b) for b in backed):
                continue
            result.append(Unbacked(path.name, token, sentence))
    return result


def allowed_numbers(path: Path) -> dict[str, str]:
    """{number as written: why it needs no cell} from the notebook's metadata."""
    metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    return metadata.get("encoder_book", {}).get("prose_numbers_allowed", {})


def check(path: Path) -> tuple[list[Unbacked], list[str]]:
    """The unbacked numbers not allowed, and allowed numbers no longer needed."""
    allowed = allowed_numbers(path)
    unbacked = unbacked_numbers(path)
    missing = [u for u in unbacked if u.number not in allowed]
    stale = sorted(set(allowed) - {u.number for u in unbacked})
    return missing, stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=Path, default=CHAPTERS)
    args = parser.parse_args()
    total = 0
    for path in args.chapters:
        missing, stale = check(path)
        total += len(missing) + len(stale)
        print(f"{path.name}: {len(missing)} unbacked numbers")
        for item in missing:
            print(f"  {item.number!r:>12}  {item.sentence[:150]}")
        for number in stale:
            print(
                f"  {number!r:>12}  allowed in the metadata but no longer in the prose"
            )
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
