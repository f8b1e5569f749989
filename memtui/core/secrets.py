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
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretFinding:
    """One likely credential: its kind id (for the `secret:<kind>` flag) and a readable label."""

    kind: str
    label: str


_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "private-key",
        "private key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ),
    ("aws-access-key", "AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "aws-secret-key",
        "AWS secret access key",
        re.compile(
            r"""(?i)aws_?secret_?(?:access_?)?key["']?[ \t]*[:=][ \t]*["']?"""
            r"(?-i:[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
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
)

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


def _non_trivial(value: str, quoted: bool) -> bool:
    """True if an assigned value looks like a real credential rather than empty or a placeholder."""
    value = value.strip()
    if _PLACEHOLDER.match(value) or len(set(value)) < 3 or any(ch.isspace() for ch in value):
        return False
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


def scan(text: str) -> list[SecretFinding]:
    """Every kind of likely credential found in `text`, in pattern order, each kind once."""
    findings: list[SecretFinding] = []
    spans: list[tuple[int, int]] = []
    for kind, label, pattern in _PATTERNS:
        matches = [match.span() for match in pattern.finditer(text)]
        if matches:
            findings.append(SecretFinding(kind, label))
            spans += matches
    for match in _ASSIGNMENT.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in spans):
            continue
        bare = match.group("bare")
        value = bare if bare is not None else (match.group("dq") or match.group("sq") or "")
        if _non_trivial(value, quoted=bare is None):
            findings.append(SecretFinding("assignment", "password or key assignment"))
            break
    return findings
