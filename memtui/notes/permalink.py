"""Basic Memory permalinks generated from a note's path, without a project prefix."""

from __future__ import annotations

import mimetypes
import os
import re
import unicodedata
from pathlib import PurePosixPath

from unidecode import unidecode

_CJK_KEPT = "\u4e00-\u9fff\u3000-\u303f\u3400-\u4dbf"
_CJK_CHAR = re.compile(f"[{_CJK_KEPT}\uff00-\uffef]")
_CJK_THEN_LATIN = re.compile(f"([{_CJK_KEPT}])([a-zA-Z0-9])")
_LATIN_THEN_CJK = re.compile(f"([a-zA-Z0-9])([{_CJK_KEPT}])")
_CAMEL_BOUNDARY = re.compile(r"([a-z0-9])([A-Z])")
_UNSAFE_ASCII = re.compile(r"[^a-z0-9/\-\.]")
_UNSAFE_WITH_CJK = re.compile(f"[^a-z0-9{_CJK_KEPT}/\\-\\.]")
_HYPHEN_RUN = re.compile(r"-+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_kept_cjk(char: str) -> bool:
    """Whether a character is a CJK ideograph or symbol that permalinks keep as is."""
    return (
        "\u4e00" <= char <= "\u9fff" or "\u3000" <= char <= "\u303f" or "\u3400" <= char <= "\u4dbf"
    )


def _slug_with_cjk(base: str) -> str:
    """Slug a path that holds CJK text: keep ideographs, transliterate the rest."""
    pieces: list[str] = []
    for char in base:
        if _is_kept_cjk(char):
            pieces.append(char)
        elif "\uff00" <= char <= "\uffef":
            continue
        else:
            pieces.append(unidecode(char))
    text = _LATIN_THEN_CJK.sub(r"\1-\2", _CJK_THEN_LATIN.sub(r"\1-\2", "".join(pieces)))
    text = _CAMEL_BOUNDARY.sub(r"\1-\2", text)
    text = "".join(c.lower() if c.isascii() and c.isalpha() else c for c in text)
    text = text.replace("_", "-").replace("'", "")
    return _UNSAFE_WITH_CJK.sub("-", text)


def _slug_ascii(base: str) -> str:
    """Slug a path by transliterating everything to ASCII."""
    text = _CAMEL_BOUNDARY.sub(r"\1-\2", unidecode(base)).lower()
    text = text.replace("_", "-").replace("'", "")
    return _UNSAFE_ASCII.sub("-", text)


def generate_permalink(path: str) -> str:
    """The permalink Basic Memory derives from a relative POSIX path (`Specs/My Note.md` ->
    `specs/my-note`)."""
    path_str = unicodedata.normalize("NFC", _SURROGATE.sub("", PurePosixPath(path).as_posix()))
    mime_type, _ = mimetypes.guess_type(path_str)
    base = os.path.splitext(path_str)[0] if mime_type is not None else path_str
    clean = _slug_with_cjk(base) if _CJK_CHAR.search(base) else _slug_ascii(base)
    clean = _HYPHEN_RUN.sub("-", clean)
    return "/".join(segment.strip("-") for segment in clean.split("/"))
