"""Credential scanner for agent writes: finds likely secrets so the store can flag or refuse them.

Assignments (`password=...`, `DB_PASSWORD: ...`, `spring.datasource.password = "..."`) count when
the name is a credential word, optionally prefixed (`db_`, `AWS_`) and optionally ending in
`_key`, `_access_key` or `_token`; other endings (`password_hint`, `password_file`) are not
credentials. Their value must look real: empty values, placeholders (`<...>`, `${VAR}`, `$VAR`,
`****`, `redacted`, `changeme`, `true`, ...) and filesystem paths (`/home/me`, `~/x`) are not
flagged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memtui.core.secret_forms import base64_texts, unhidden


@dataclass(frozen=True)
class SecretFinding:
    """One likely credential: its kind id (for the `secret:<kind>` flag) and a readable label."""

    kind: str
    label: str


_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "private-key",
        "private key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?s:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)"
        ),
    ),
    ("aws-access-key", "AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "aws-secret-key",
        "AWS secret access key",
        re.compile(
            r"""(?i)aws_?secret_?(?:access_?)?key["']?[ \t]*[:=][ \t]*["']?"""
            r"(?P<value>(?-i:[A-Za-z0-9/+]{40}))(?![A-Za-z0-9/+=])"
        ),
    ),
    (
        "github-token",
        "GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ),
    ("slack-token", "Slack token", re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}")),
    ("stripe-key", "Stripe secret key", re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}")),
    ("anthropic-key", "Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    (
        "openai-key",
        "OpenAI API key",
        re.compile(
            r"\bsk-(?!ant-)(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}"
        ),
    ),
    ("google-api-key", "Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    (
        "jwt",
        "JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    (
        "gitlab-token",
        "GitLab token",
        re.compile(r"\b(?:glpat|gldt|glrt|glptt)-[A-Za-z0-9_-]{20,}"),
    ),
    (
        "huggingface-token",
        "Hugging Face token",
        re.compile(r"\bhf_(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{34,}\b"),
    ),
    (
        "sendgrid-key",
        "SendGrid API key",
        re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    ),
    ("npm-token", "npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (
        "connection-url",
        "password in a connection URL",
        re.compile(
            r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql)"
            r"://[^\s:/@]*:(?P<value>[^\s/@]+)@[^\s/@]"
        ),
    ),
)
"""(kind, label, pattern): where a pattern has a `value` group, that is the credential itself."""

_CHECKED_VALUES = frozenset({"connection-url"})
"""Kinds whose value must also look real (not empty, short or a placeholder like `${PASS}`)."""

_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?<![A-Za-z0-9_.])
    (?:[a-z0-9]+[_.])*
    (?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey
       |access[_-]?token|auth[_-]?token|private[_-]?key)
    (?:[_-](?:access[_-])?key|[_-]token)?
    ["']?[ \t]*[:=][ \t]*
    (?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s"',;]+))
    """
)

_PLACEHOLDER = re.compile(
    r"""(?ix)
    ^(?:
        <[^>]*> | \{\{.*\}\} | \$\{.*\} | \$[A-Z_][A-Z0-9_]* | %\(.*\)s | \[.*\]
      | \.{2,} | [*x•]+ | (?:your|my|the)[_-].* | .*(?:here|example|placeholder|redacted|changeme).*
      | none | null | nil | true | false | undefined | required | optional | string | env
      | os\.environ.* | getenv.* | process\.env.*
      | (?:~|\.{1,2})?/[\w./-]*
    )$
    """
)


_REFERENCE = re.compile(
    r"(?i)^(?:see|use|ask|stored|kept|saved|in|on|from|get|read|set|the|a|an|same|not|no|none"
    r"|your|my|our|their|check|look|found|provided|given|managed|rotated)\b"
)
"""First words of a quoted phrase that points at a secret instead of being one (`"see the
vault"`)."""


def _non_trivial(value: str, quoted: bool) -> bool:
    """True if an assigned value looks like a real credential rather than empty or a placeholder.

    A quoted value may be a passphrase of a few words (`"correct horse battery"`), unless it
    reads like a pointer to the secret (`"see the vault"`, `"stored in 1Password"`).
    """
    value = value.strip()
    if _PLACEHOLDER.match(value) or len(set(value)) < 3:
        return False
    if any(ch.isspace() for ch in value):
        words = value.split()
        return quoted and len(value) >= 12 and len(words) <= 6 and not _REFERENCE.match(value)
    if quoted:
        return len(value) >= 6
    classes = sum(
        (
            any(ch.islower() for ch in value),
            any(ch.isupper() for ch in value),
            any(ch.isdigit() for ch in value),
            any(not ch.isalnum() for ch in value),
        )
    )
    return len(value) >= 6 and classes >= 2


@dataclass(frozen=True)
class SecretSpan:
    """Where one likely credential's value sits in a text: `text[start:end]`, of kind `kind`."""

    kind: str
    start: int
    end: int


_LABELS = {kind: label for kind, label, _pattern in _PATTERNS} | {
    "assignment": "password or key assignment"
}


def scan(text: str) -> list[SecretFinding]:
    """Every kind of likely credential found in `text`, in pattern order, each kind once."""
    return findings_of(find_spans(text))


def findings_of(spans: Iterable[SecretSpan]) -> list[SecretFinding]:
    """The kinds of credential `spans` hold, in pattern order, each kind once."""
    kinds = {span.kind for span in spans}
    return [SecretFinding(kind, label) for kind, label in _LABELS.items() if kind in kinds]


_ANCHORS = (
    "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxa-", "xoxb-",
    "xoxp-", "xoxr-", "k_live_", "sk-", "aiza", "eyj", "glpat-", "gldt-", "glrt-", "glptt-",
    "hf_", "sg.", "npm_", "://", "private key", "aws", "passw", "pwd", "passphrase", "secret",
    "api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken", "auth_token",
    "auth-token", "authtoken", "private_key", "private-key", "privatekey",
)  # fmt: skip
"""Lowercase text one of the patterns above needs; a text holding none of it has no finding."""


def find_spans(text: str) -> tuple[SecretSpan, ...]:
    """Every likely credential's value in `text`, in text order.

    The text is read as a person would read it (`secret_forms`): invisible characters dropped
    and JSON escapes decoded, and each base64 run that decodes to text is scanned decoded (a
    finding there spans the whole run). An assignment whose name or value overlaps a match of a
    specific kind is that kind only.
    """
    view = unhidden(text)
    spans = _spans_in(view.text, decode=True)
    if view.edits:
        spans = [SecretSpan(span.kind, *view.original(span.start, span.end)) for span in spans]
    return tuple(sorted(spans, key=lambda span: (span.start, span.end)))


def _spans_in(text: str, *, decode: bool) -> list[SecretSpan]:
    """The spans of `find_spans` in a revealed text; with `decode`, base64 runs' too.

    Every pattern but the private key's stays on one line, so only the lines holding one of the
    patterns' anchors are searched, and a text without any anchor is passed over in one scan.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        anchored = any(anchor in lowered for anchor in _ANCHORS)
        lines = [(0, len(text))] if anchored else []
    else:
        lines = _anchored_lines(lowered)
    spans, matched = _pattern_spans(text, lines, "private key" in lowered)
    if decode:
        for start, end, decoded in base64_texts(text):
            kinds = {span.kind for span in _spans_in(unhidden(decoded).text, decode=False)}
            if kinds:
                matched.append((start, end))
                spans += [SecretSpan(kind, start, end) for kind in sorted(kinds)]
    for start, end in lines:
        spans += _assignment_spans(text, start, end, matched)
    return spans


def _anchored_lines(lowered: str) -> list[tuple[int, int]]:
    """(start, end) of each run of lines of `lowered` that hold an anchor, in order."""
    found: list[tuple[int, int]] = []
    for anchor in _ANCHORS:
        position = lowered.find(anchor)
        while position >= 0:
            start = lowered.rfind("\n", 0, position) + 1
            end = lowered.find("\n", position)
            end = len(lowered) if end < 0 else end
            found.append((start, end))
            position = lowered.find(anchor, end)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _pattern_spans(
    text: str, lines: list[tuple[int, int]], private_key: bool
) -> tuple[list[SecretSpan], list[tuple[int, int]]]:
    """The spans of the specific kinds' patterns in `lines` (a private key's anywhere, when
    `private_key`), and the whole matches they came from."""
    spans: list[SecretSpan] = []
    matched: list[tuple[int, int]] = []
    for kind, _label, pattern in _PATTERNS:
        if kind == "private-key":
            found = pattern.finditer(text) if private_key else iter(())
        else:
            found = (match for start, end in lines for match in pattern.finditer(text, start, end))
        for match in found:
            group = "value" if "value" in pattern.groupindex else 0
            if kind in _CHECKED_VALUES and not _non_trivial(match.group(group), quoted=False):
                continue
            matched.append(match.span())
            spans.append(SecretSpan(kind, *match.span(group)))
    return spans, matched


def _assignment_spans(
    text: str, start: int, end: int, matched: list[tuple[int, int]]
) -> list[SecretSpan]:
    """The values of credential assignments in `text[start:end]` that overlap none of the
    `matched` spans."""
    spans: list[SecretSpan] = []
    for match in _ASSIGNMENT.finditer(text, start, end):
        if any(low < match.end() and match.start() < high for low, high in matched):
            continue
        group = next(name for name in ("dq", "sq", "bare") if match.group(name) is not None)
        if _non_trivial(match.group(group), quoted=group != "bare"):
            spans.append(SecretSpan("assignment", *match.span(group)))
    return spans


def redact(text: str, spans: Iterable[SecretSpan] | None = None) -> str:
    """`text` with each likely credential's value replaced by `<redacted secret:KIND>`.

    `spans` are `find_spans(text)` when the caller has them already.
    """
    merged: list[SecretSpan] = []
    for span in find_spans(text) if spans is None else spans:
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = SecretSpan(last.kind, last.start, max(last.end, span.end))
        else:
            merged.append(span)
    parts: list[str] = []
    position = 0
    for span in merged:
        parts += [text[position : span.start], f"<redacted secret:{span.kind}>"]
        position = span.end
    return "".join(parts) + text[position:]
