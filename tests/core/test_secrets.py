"""Secret scanning of agent writes: realistic fake credentials are caught, near misses are not."""

from __future__ import annotations

import base64
import json
import re
import time
import unicodedata
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.secrets import redact, scan
from memtui.core.store import MemoryStore

FAKE_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HECdnH\n"
    "-----END RSA PRIVATE KEY-----\n"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (FAKE_PEM, "private-key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", "private-key"),
        ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ("token ghp_16C7e42F292c6912E7710c838347Ae178B4a in CI", "github-token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF", "github-token"),
        ("SLACK=xoxb-2048-1024-abcdefghijklmnopqrstuvwx", "slack-token"),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
        ("OPENAI_API_KEY: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "openai-key"),
        ("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abc", "anthropic-key"),
        ("maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q here", "google-api-key"),
        (f"Authorization: Bearer {JWT}", "jwt"),
        ("db password=hunter2x", "assignment"),
        ('api_key = "9f8e7d6c5b4a"', "assignment"),
        ("secret: 'Zq7!mR2#'", "assignment"),
        ("DB_PASSWORD=Sup3rS3cret", "assignment"),
        ('db_password = "p4ssw0rd!"', "assignment"),
        ("spring.datasource.password=Tr0ub4dor&3", "assignment"),
        ("mysql --user=app --password=Sup3rS3cret db", "assignment"),
        ('SECRET_KEY = "django-insecure-9x#k2!v@q7^z$w1m"', "assignment"),
        ("secret_key: 4f9a2c7e1b8d", "assignment"),
        ('"client_secret": "Xq93jf02KLmz"', "assignment"),
        ("GITLAB_AUTH_TOKEN=glp-Zx81mQ0rT5", "assignment"),
        ("Server=db;Uid=app;Pwd=Kx8!q2Zr;", "assignment"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8", "aws-secret-key"),
        ('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8"', "aws-secret-key"),
        ("aws_secret_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8", "aws-secret-key"),
        ("GITLAB_TOKEN glpat-xKz9Pq2RmW7vTn4LbY8c", "gitlab-token"),
        ("deploy with gldt-Ab3De6Gh9Jk2Mn5Pq8St1V", "gitlab-token"),
        ("HF_TOKEN=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", "huggingface-token"),
        ("login hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH then push", "huggingface-token"),
        (
            "SENDGRID_API_KEY=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",
            "sendgrid-key",
        ),
        ("//registry.npmjs.org/:_authToken=npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z5A6B", "npm-token"),
        ("DATABASE_URL=postgres://admin:S3cretP4ss@db.internal:5432/app", "connection-url"),
        ("postgresql://app:Tr0ub4dor%263@10.0.0.5/prod", "connection-url"),
        ("mysql://root:hunter22x@localhost:3306/shop", "connection-url"),
        ("mongodb+srv://svc:9xQ2pL7mK4@cluster0.ab1cd.mongodb.net/db", "connection-url"),
        ("REDIS_URL=redis://:Rz8!kd02Lm@cache:6379/0", "connection-url"),
        ("amqp://guest:Gu3st2024@rabbit:5672/", "connection-url"),
        ('password: "correct horse battery"', "assignment"),
        ("secret = 'purple monkey dishwasher 42'", "assignment"),
        ('"passphrase": "tiny elephants dance at dawn"', "assignment"),
    ],
)
def test_realistic_fake_secrets_are_found(text: str, kind: str) -> None:
    assert kind in [finding.kind for finding in scan(text)]


@pytest.mark.parametrize(
    "text",
    [
        "password=",
        'password = ""',
        "The secret to good memory is repetition.",
        "api_key = <your-key>",
        'api_key = "..."',
        "password: ********",
        "password = ${DB_PASSWORD}",
        "Uses sk-learn and sk-ant for nothing; sk-1234.",
        "AKIA is the prefix of AWS keys",
        "ghp_short",
        "secret: remember",
        "password: changeme",
        "eyJhbGciOi.x.y",
        "The user prefers tabs over spaces.",
        "pwd=/home/user/projects",
        "PWD=/home/user/projects",
        "password_file=Creds2024.txt",
        "password_hint=FirstPet99",
        'password_hint = "name of first pet"',
        "password:\nSup3rS3cret!",
        "password:",
        "secret: true",
        'password = "${DB_PASSWORD}"',
        "DB_PASSWORD=$DB_PASSWORD",
        "password=<redacted>",
        "password=****",
        'db_password = "REDACTED"',
        "password_min_length: 12",
        "show_password=false",
        "secretary: Jane Doe",
        "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
        "aws_secret_access_key = <from the vault>",
        "gitlab uses glpat- tokens",
        "glpat-short",
        "from huggingface_hub import hf_hub_download",
        "call hf_hub_download_with_retries_and_a_long_name_here",
        "hf_abcdefghijklmnopqrstuvwxyzabcdefghij",
        "SG.short.key",
        "npm_config_registry=https://registry.npmjs.org/",
        "npm_package_version",
        "postgres://db.internal:5432/app",
        "postgres://user@db.internal/app",
        "postgres://user:@db.internal/app",
        "postgres://user:${PASS}@db/app",
        "postgres://user:$DB_PASSWORD@db/app",
        "mysql://root:<password>@localhost/shop",
        "redis://:password@localhost:6379",
        "mongodb+srv://user:****@cluster0.mongodb.net",
        "ssh deploy@prod-host",
        "mail ana@example.com about it",
        "https://example.com:8443/path",
        'password: "see the vault"',
        'password: "stored in 1Password under Billing"',
        'secret: "the usual one"',
        'password: "a b"',
        'password = "your password here"',
    ],
)
def test_near_misses_are_not_flagged(text: str) -> None:
    assert scan(text) == []


def test_a_specific_kind_is_not_also_reported_as_an_assignment() -> None:
    found = scan("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8\npassword=")
    assert [finding.label for finding in found] == ["AWS secret access key"]
    found = scan("aws_secret_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8 pwd=Sup3rS3cret")
    assert [finding.kind for finding in found] == ["aws-secret-key", "assignment"]


def test_agent_write_warns_by_default_and_flags_event(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:claude", settings=Settings())
    result = store.create("/memories/creds.md", "aws AKIAIOSFODNN7EXAMPLE\n")
    assert (result.content, result.is_error) == (
        "File created successfully at: /memories/creds.md",
        False,
    )
    event = store.history.event(result.event_id)
    assert event is not None and event.flags == ("secret:aws-access-key",)
    edit = store.str_replace("/memories/creds.md", "aws", "pw password=S3cr3t!x")
    event = store.history.event(edit.event_id)
    assert event is not None and event.flags == ("secret:assignment",)


def test_agent_write_blocked_when_configured(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(secrets="block"))
    store.create("/memories/a.md", "line\n")
    for result in (
        store.create("/memories/creds.md", "aws AKIAIOSFODNN7EXAMPLE\n"),
        store.insert("/memories/a.md", 1, "AKIAIOSFODNN7EXAMPLE"),
        store.str_replace("/memories/a.md", "line", "AKIAIOSFODNN7EXAMPLE"),
    ):
        assert result.is_error is True
        assert result.content == (
            "Refused: the text looks like it contains a secret (AWS access key). "
            "Nothing was written; store a reference to where the secret is kept instead."
        )
        event = store.history.event(result.event_id)
        assert event is not None and event.flags == ("secret:aws-access-key",)
        assert event.after_hash is None
    assert not (tmp_path / "creds.md").exists()
    assert (tmp_path / "a.md").read_bytes() == b"line\n"


def test_human_writes_are_not_scanned(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:ann", settings=Settings(secrets="block"))
    assert store.create("/memories/a.md", "AKIAIOSFODNN7EXAMPLE").is_error is False
    result = store.write("/memories/b.md", "AKIAIOSFODNN7EXAMPLE", None)
    assert result.is_error is False
    event = store.history.event(result.event_id)
    assert event is not None and event.flags == ()


@pytest.mark.serial
@pytest.mark.parametrize("text", ["a." * 20000, "a_" * 20000, "a-" * 20000, "ab." * 5000 + "pwd"])
def test_long_dotted_names_scan_in_linear_time(text: str) -> None:
    started = time.perf_counter()
    assert scan(text) == []
    assert time.perf_counter() - started < 2.0


STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
PEM_BODY = "MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HECdnH"


def history_bytes(root: Path) -> bytes:
    """Every byte of the history database, its WAL and shared-memory files."""
    return b"".join(
        path.read_bytes() for path in sorted((root / ".memtui").iterdir()) if path.is_file()
    )


def test_redact_keeps_the_text_around_each_secret() -> None:
    assert redact(f'aws {AWS_KEY} and password="hunter2x" ok') == (
        'aws <redacted secret:aws-access-key> and password="<redacted secret:assignment>" ok'
    )
    assert redact(f"intro\n{FAKE_PEM}outro password=") == (
        "intro\n<redacted secret:private-key>\noutro password="
    )
    assert redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n") == (
        "<redacted secret:private-key>"
    )
    assert redact("no secrets here") == "no secrets here"
    assert redact("DATABASE_URL=postgres://admin:S3cretP4ss@db:5432/app") == (
        "DATABASE_URL=postgres://admin:<redacted secret:connection-url>@db:5432/app"
    )
    assert redact('password: "correct horse battery"') == (
        'password: "<redacted secret:assignment>"'
    )


def test_a_refused_secret_is_not_kept_in_the_history(tmp_path: Path) -> None:
    """With secrets blocked, the refused text's secret is in no byte of the history."""
    store = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(secrets="block"))
    store.create("/memories/a.md", "line\n")
    refused = [
        store.create("/memories/key.pem", FAKE_PEM),
        store.str_replace("/memories/a.md", "line", f"stripe {STRIPE}"),
        store.insert("/memories/a.md", 1, f"aws {AWS_KEY}"),
        store.create("/memories/../x.md", f"aws {AWS_KEY}"),
    ]
    assert all(result.is_error for result in refused)
    args = [store.history.event(r.event_id).args for r in refused]  # type: ignore[union-attr]
    assert args[0]["file_text"] == "<redacted secret:private-key>\n"
    assert args[1]["new_str"] == "stripe <redacted secret:stripe-key>"
    assert args[2]["insert_text"] == "aws <redacted secret:aws-access-key>"
    assert args[3]["file_text"] == "aws <redacted secret:aws-access-key>"
    stored = history_bytes(tmp_path)
    for secret in (PEM_BODY, STRIPE, AWS_KEY):
        assert secret.encode() not in stored


def test_a_warned_secret_is_kept_once_in_the_content_and_undo_still_works(tmp_path: Path) -> None:
    """In warn mode the arguments are redacted; the before/after content stays, so undo works."""
    store = MemoryStore(tmp_path, actor="agent:claude", settings=Settings())
    created = store.create("/memories/creds.md", f"aws {AWS_KEY}\n")
    event = store.history.event(created.event_id)
    assert event is not None and event.flags == ("secret:aws-access-key",)
    assert event.args["file_text"] == "aws <redacted secret:aws-access-key>\n"
    again = store.create("/memories/creds.md", f"stripe {STRIPE}\n")
    assert again.is_error
    event = store.history.event(again.event_id)
    assert event is not None and event.args["file_text"] == "stripe <redacted secret:stripe-key>\n"
    assert STRIPE.encode() not in history_bytes(tmp_path)
    cleaned = store.str_replace("/memories/creds.md", AWS_KEY, "see the vault")
    assert not cleaned.is_error
    human = store.with_actor("human:ann")
    assert not human.revert(cleaned.event_id).is_error
    assert (tmp_path / "creds.md").read_text() == f"aws {AWS_KEY}\n"
    assert not human.revert(created.event_id, force=True).is_error
    assert not (tmp_path / "creds.md").exists()


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_an_agent_write_is_scanned_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    from memtui.core.recording import keeping as recording

    scanned: list[str] = []
    real = recording.find_spans

    def counting(text: str) -> object:
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(recording, "find_spans", counting)
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(secrets=mode))
    text = "aws_key = AKIAIOSFODNN7EXAMPLE\n"
    result = agent.create("/memories/k.md", text)
    assert result.is_error == (mode == "block")
    assert scanned.count(text) == 1
    (event,) = agent.history.events()
    assert event.flags == ("secret:aws-access-key",)
    assert "AKIAIOSFODNN7EXAMPLE" not in event.args["file_text"]


def b64(text: str, *, url: bool = False) -> str:
    """`text` in base64 (URL-safe and unpadded with `url`)."""
    if url:
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return base64.b64encode(text.encode()).decode()


KEY = "AKIAQWERTYUIOPASDFGH"
WRAPPED = "\n".join(
    (lambda encoded: [encoded[i : i + 76] for i in range(0, len(encoded), 76)])(
        b64("filler " * 12 + "DB_PASSWORD=Sup3rS3cret\n")
    )
)
ESCAPED = "".join(f"\\u{ord(char):04x}" for char in KEY)


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ('{"k": "\\u0041KIAQWERTYUIOPASDFGH"}', '{"k": "<redacted secret:aws-access-key>"}'),
        (f'{{"k": "{ESCAPED}", "n": 1}}', '{"k": "<redacted secret:aws-access-key>", "n": 1}'),
        ('{"k": "AKIA\\u200bQWERTYUIOPASDFGH"}', '{"k": "<redacted secret:aws-access-key>"}'),
        (
            '{"aws_secret_key": "wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYzq9LmW3kT8"}',
            '{"aws_secret_key": "<redacted secret:aws-secret-key>"}',
        ),
        ("key AKIA\u200bQWERTYUIOPASDFGH.", "key <redacted secret:aws-access-key>."),
        (
            "key AK\u200cIA\u200dQWERTY\u2060UIOP\ufeffASDF\u00adGH.",
            "key <redacted secret:aws-access-key>.",
        ),
        ("\u200bAKIAQWERTYUIOPASDFGH\u200b", "\u200b<redacted secret:aws-access-key>\u200b"),
        (
            "ghp_16C7e42F292c6912E7710c838347Ae1\U000e0041\ufe0f78B4a",
            "<redacted secret:github-token>",
        ),
        (f"token {b64(KEY)} ok", "token <redacted secret:aws-access-key> ok"),
        (f"token={b64(KEY, url=True)}", "token=<redacted secret:aws-access-key>"),
        (
            f"env: {b64('APP=1' + chr(10) + 'DB_PASSWORD=Sup3rS3cret' + chr(10))}",
            "env: <redacted secret:assignment>",
        ),
        (
            json.dumps({"auth": b64(json.dumps({"key": "\\u0041" + KEY[1:]}))}),
            '{"auth": "<redacted secret:aws-access-key>"}',
        ),
        ("İstanbul AKIAQWERTYUIOPASDFGH", "İstanbul <redacted secret:aws-access-key>"),
        (
            f"/memories/ns/{b64(KEY, url=True)}.json",
            "/memories/ns/<redacted secret:aws-access-key>.json",
        ),
        (
            "blob:\n" + WRAPPED + "\nend.",
            "blob:\n<redacted secret:assignment>\nend.",
        ),
    ],
    ids=[
        "json escape",
        "every char escaped",
        "escaped zero-width",
        "escaped slashes",
        "zero-width space",
        "many invisibles",
        "invisibles around",
        "tag and variation selector",
        "base64",
        "base64 url-safe unpadded",
        "base64 env file",
        "base64 json in json",
        "text whose lowercase is longer",
        "base64 file name",
        "base64 wrapped at 76 columns",
    ],
)
def test_hidden_and_encoded_secrets_are_found_and_redacted(text: str, redacted: str) -> None:
    assert scan(text) != []
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        b64("The meeting moved to Thursday, bring the slides."),
        b64("password policy: at least twelve characters"),
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        "see src/memtui/notes/operations/moving.py and tests/notes/test_moving_links.py",
        "call very_long_function_name_for_the_background_worker_pool()",
        '{"name": "caf\\u00e9 \\u2014 \\ud83d\\ude00", "path": "a\\/b"}',
        "zero\u200bwidth\u200djoined text and \ufeffa BOM",
        "ASK\u200bIA QWERTYUIOPASDFGH",
    ],
)
def test_encoded_harmless_text_is_not_flagged(text: str) -> None:
    assert scan(text) == []


def test_every_invisible_character_is_dropped_and_nothing_visible() -> None:
    from memtui.core.secret_forms import IGNORABLE

    ignorable = re.compile(f"[{IGNORABLE}]")
    named = [
        chr(code)
        for code in range(0x110000)
        if unicodedata.name(chr(code), "").startswith(("ZERO WIDTH", "TAG ", "VARIATION SELECTOR"))
    ]
    invisible = "\u00ad\u034f\u180e\u200e\u200f\u202a\u202e\u2060\u2062\u2066\u2069\u3164"
    assert len(named) >= 355
    assert all(ignorable.match(char) for char in [*named, *invisible])
    assert not any(ignorable.match(char) for char in " \u00a0\u2009é-_/\u0600\U0001f600")
