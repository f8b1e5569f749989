"""Frontmatter the way Basic Memory reads it: fence check, bounded YAML, normalised metadata."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

try:
    from yaml import CSafeLoader as _FastSafeLoader
except ImportError:  # pragma: no cover - libyaml is present in every supported install
    from yaml import SafeLoader as _FastSafeLoader  # type: ignore[assignment]

MAX_YAML_NODES = 10_000
"""Most YAML nodes a frontmatter block may expand to once aliases are followed."""

_BM_FENCE = re.compile(r"^---[ \t]*$")
_MAY_HAVE_FENCE = re.compile(r"\s*---")
_YAML_HANDLER = YAMLHandler()
_OTHER_LINE_BREAK = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Line breaks `str.splitlines` knows besides `\\n`."""


class YamlRefused(ValueError):
    """The YAML is too large once aliases are expanded (an alias bomb) or refers to itself."""


@dataclass(slots=True)
class Frontmatter:
    """The outcome of reading a note's frontmatter."""

    metadata: dict[str, Any]
    body: str
    body_start: int
    """Index in the text where `body` begins (for line numbers)."""
    warnings: list[str] = field(default_factory=list)
    index_error: str | None = None
    """Why Basic Memory would refuse to index the file, if it would."""
    source: Any = None
    """The YAML value of the `source` key as read, before normalisation."""


def _expanded_size(root: yaml.Node) -> int:
    """How many nodes the YAML graph holds once every alias is expanded; refuses cycles."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if children_done:
            in_progress.discard(key)
            total = 1 + sum(sizes[id(child)] for child in children)
            if total > MAX_YAML_NODES:
                raise YamlRefused(f"expands to more than {MAX_YAML_NODES} values")
            sizes[key] = total
            continue
        if key in in_progress:
            raise YamlRefused("refers to itself")
        in_progress.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in in_progress:
                raise YamlRefused("refers to itself")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*?))? *$")
_SIMPLE_SCALAR = re.compile(r"[\w/(][\w .,/()+'!?@-]*")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_NOT_SIMPLE = object()
_TYPED_FIRST_CHARS = frozenset(key for key in _RESOLVER.yaml_implicit_resolvers if key)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@lru_cache(maxsize=4096)
def _simple_string(value: str) -> bool:
    """Whether a plain YAML scalar certainly reads as this exact string."""
    return (
        _SIMPLE_SCALAR.fullmatch(value) is not None
        and ": " not in value
        and " #" not in value
        and not value.endswith((":", " "))
        and (
            value[0] not in _TYPED_FIRST_CHARS
            or _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR_TAG
        )
    )


def _load_simple_yaml(text: str) -> Any:
    """Read `key: word`, `key:` and `key: [a, b]` lines without PyYAML, or return `_NOT_SIMPLE`."""
    if "\r" in text or "\t" in text:
        return _NOT_SIMPLE
    data: dict[str, Any] = {}
    for line in text.split("\n"):
        if not line:
            continue
        match = _SIMPLE_LINE.fullmatch(line)
        if match is None:
            return _NOT_SIMPLE
        key, value = match.group(1), match.group(2)
        if key in data or not _simple_string(key):
            return _NOT_SIMPLE
        if not value:
            data[key] = None
        elif value.startswith("[") and value.endswith("]"):
            inner = value[1:-1].strip()
            items = [item.strip() for item in inner.split(",")] if inner else []
            if any("[" in item or "]" in item or not _simple_string(item) for item in items):
                return _NOT_SIMPLE
            data[key] = items
        elif _simple_string(value):
            data[key] = value
        elif _ISO_DATE.fullmatch(value):
            try:
                data[key] = date.fromisoformat(value)
            except ValueError:
                return _NOT_SIMPLE
        else:
            return _NOT_SIMPLE
    return data or None


def load_yaml(text: str, *, fast: bool = True) -> Any:
    """`yaml.safe_load`, but refusing alias bombs and self-references with `YamlRefused`.

    With `fast`, simple `key: value` blocks are read without PyYAML (same result, much cheaper).
    """
    if fast:
        simple = _load_simple_yaml(text)
        if simple is not _NOT_SIMPLE:
            return simple
    if "*" not in text:
        return yaml.load(text, Loader=_FastSafeLoader)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _simple_fenced_block(text: str) -> str | None:
    """`bm_frontmatter_block` for text starting `---\\n` with only `\\n` line breaks, else None."""
    search = 3
    while True:
        fence = text.find("\n---", search)
        if fence == -1:
            return None
        line_end = text.find("\n", fence + 1)
        if line_end == -1:
            line_end = len(text)
        if not text[fence + 4 : line_end].strip(" \t"):
            if _OTHER_LINE_BREAK.search(text, 0, line_end):
                return None
            return text[4 : fence + 1]
        search = fence + 1


def bm_frontmatter_block(text: str, *, fast: bool = True) -> str | None:
    """The YAML between Basic Memory's fences (first non-blank line `---` to the next `---`), if
    any."""
    if not _MAY_HAVE_FENCE.match(text):
        return None
    if fast and text.startswith("---\n"):
        block = _simple_fenced_block(text)
        if block is not None:
            return block
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].strip() == "":
        start += 1
    if start >= len(lines) or not _BM_FENCE.match(lines[start].rstrip("\r\n")):
        return None
    for index in range(start + 1, len(lines)):
        if _BM_FENCE.match(lines[index].rstrip("\r\n")):
            return "".join(lines[start + 1 : index])
    return None


def normalize_value(value: Any) -> Any:
    """Dates to ISO strings, numbers and booleans to strings, recursively (as Basic Memory does)."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return [normalize_value(item) for item in value]
    if isinstance(value, dict):
        return {key: normalize_value(item) for key, item in value.items()}
    return value


def coerce_to_string(value: Any) -> str:
    """A title or type as a string: lists joined with `, `, anything else through `str()`."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)


def parse_tags(tags: Any) -> list[str]:
    """Frontmatter tags as a list: list items or comma-separated text, leading `#`s removed."""
    if tags is None:
        return []
    if isinstance(tags, list):
        return [
            tag.strip().lstrip("#")
            for raw in tags
            if raw is not None
            for tag in str(raw).split(",")
            if tag and tag.strip()
        ]
    if isinstance(tags, str):
        stripped = tags.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            try:
                parsed = json.loads(tags)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                return parse_tags(parsed)
        return [tag.strip().lstrip("#") for tag in tags.split(",") if tag and tag.strip()]
    return parse_tags(str(tags))


def _block_state(text: str, fast: bool) -> tuple[str, str | None, str, Any]:
    """Basic Memory's classification ("absent" | "present" | "malformed"), why, the block,
    its data."""
    block = bm_frontmatter_block(text, fast=fast)
    if block is None:
        return "absent", None, "", None
    try:
        data = load_yaml(block, fast=fast)
    except YamlRefused as error:
        return "malformed", f"frontmatter YAML {error}", block, None
    except Exception as error:  # any YAML, value or recursion error means "not YAML" to BM
        first_line = (
            str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        )
        return "malformed", f"frontmatter is not valid YAML ({first_line})", block, None
    if data is None or isinstance(data, dict):
        return "present", None, block, data
    kind = type(data).__name__
    return "malformed", f"frontmatter is a YAML {kind}, not a mapping", block, None


@dataclass(frozen=True, slots=True)
class FrontmatterSplit:
    """A note's text split into its YAML and its body."""

    yaml: str | None
    """The text between the first two boundaries, None when there are not two."""
    body: str
    """The body, stripped."""
    body_start: int
    """Index in the text where `body` begins."""


def split_frontmatter(text: str) -> FrontmatterSplit:
    """python-frontmatter's split (its YAML handler's, the one Basic Memory splits with) of the
    stripped text, with where the body starts in `text`: every reader that splits goes here."""
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    if not _YAML_HANDLER.detect(stripped):
        return FrontmatterSplit(None, stripped, lead)
    try:
        yaml_text, content = _YAML_HANDLER.split(stripped)
    except ValueError:  # one boundary only: python-frontmatter reads it all as body
        return FrontmatterSplit(None, stripped, lead)
    body = content.strip()
    body_start = lead + len(stripped) - len(content.lstrip())
    return FrontmatterSplit(yaml_text, body, body_start)


def _fill_defaults(metadata: dict[str, Any], stem: str) -> None:
    """Set title, type and tags in place the way Basic Memory does before indexing."""
    title = metadata.get("title")
    if title is not None:
        title = coerce_to_string(title)
    metadata["title"] = stem if not title or title == "None" else title
    note_type = metadata.get("type")
    metadata["type"] = coerce_to_string(note_type) if note_type is not None else "note"
    tags = parse_tags(metadata.get("tags", []))
    if tags:
        metadata["tags"] = tags


def read_frontmatter(text: str, stem: str, *, fast: bool = True) -> Frontmatter:
    """Split and normalise frontmatter; a bad block becomes body with a warning, never an exception.

    `fast` takes the shortcuts for simple blocks; without it every block goes through PyYAML.
    """
    state, reason, block, block_data = _block_state(text, fast)
    warnings: list[str] = []
    raw: dict[Any, Any] = {}
    body, body_start = text, 0
    if state == "malformed":
        warnings.append(f"line 1: {reason}: the whole file is read as body")
    elif state == "present":
        split = split_frontmatter(text)
        yaml_text, body, body_start = split.yaml, split.body, split.body_start
        if yaml_text is not None:
            try:
                same = yaml_text.lstrip("\r\n") == block.lstrip("\r\n")
                loaded = block_data if same else load_yaml(yaml_text, fast=fast)
            except Exception as error:
                message = f"frontmatter YAML could not be read ({type(error).__name__})"
                return Frontmatter({"title": stem, "type": "note"}, text, 0, [message], message)
            if isinstance(loaded, dict):
                raw = loaded
        else:
            warnings.append("line 1: frontmatter fences were not recognised: it is read as body")
    metadata = {key: normalize_value(value) for key, value in raw.items()}
    index_error = None
    bad_keys = [key for key in metadata if not isinstance(key, str)]
    if bad_keys:
        shown = ", ".join(
            repr(key) if not isinstance(key, date) else key.isoformat() for key in bad_keys
        )
        index_error = (
            f"frontmatter key {shown} is not a string; Basic Memory refuses to index this file"
        )
        warnings.append(f"line 1: {index_error} (quote the key)")
        metadata = {
            str(key) if not isinstance(key, date) else key.isoformat(): value
            for key, value in metadata.items()
        }
    _fill_defaults(metadata, stem)
    return Frontmatter(metadata, body, body_start, warnings, index_error, raw.get("source"))


def body_start(text: str) -> int:
    """Where the parser reads the body of a note's `text` as starting (0 with no frontmatter)."""
    return read_frontmatter(text, "").body_start
