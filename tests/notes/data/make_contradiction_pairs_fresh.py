"""Writes contradiction_pairs_fresh.jsonl: a second labelled set, written after the rules were
frozen and scored once, so it measures the finder on text no rule was shaped by.

Same fields as `make_contradiction_pairs.py`; every pair is in the split `fresh`.
Run `python tests/notes/data/make_contradiction_pairs_fresh.py` after editing the list.
"""

from __future__ import annotations

import json
from pathlib import Path

FIRST_ID = 1001

# (contradicts, shape, title, older, newer, why)
PAIRS: list[tuple[bool, str, str, str, str, str]] = [
    (
        True,
        "note",
        "Home Lab",
        "- [hardware] NAS has 4 drives in RAID 5",
        "- [hardware] NAS has 6 drives in RAID 6",
        "changed numbers",
    ),
    (
        True,
        "file",
        "MEMORY",
        "- Staging URL is https://staging.acme.dev",
        "- Staging URL is https://stage.acme.io",
        "changed value",
    ),
    (
        True,
        "note",
        "Reading List",
        "- [status] Currently reading Dune",
        "- [status] Finished Dune; now reading Hyperion",
        "changed state",
    ),
    (
        True,
        "file",
        "user_profile",
        "<diet>vegetarian</diet>",
        "<diet>vegan since January</diet>",
        "changed value",
    ),
    (
        True,
        "note",
        "Frontend",
        "- [decision] Bundler is Webpack 5",
        "- [decision] Bundler switched to Vite",
        "change statement",
    ),
    (
        True,
        "file",
        "feedback_style",
        "- Keep PR descriptions short",
        "- Write detailed PR descriptions with a testing section",
        "changed preference",
    ),
    (
        True,
        "note",
        "Infra",
        "- [ops] Backups are kept for 30 days",
        "- [ops] Backups are kept for 90 days",
        "changed number",
    ),
    (
        True,
        "relation",
        "Kenji Watanabe",
        "- [role] Works on the search team",
        "- [people] Kenji Watanabe moved to the billing team",
        "change statement",
    ),
    (
        True,
        "file",
        "project_api",
        "API rate limit: 100 requests per minute",
        "API rate limit: 600 requests per minute",
        "changed number",
    ),
    (
        True,
        "note",
        "Preferences",
        "- [preference] Wants type hints everywhere",
        "- [preference] Does not want type hints in test files",
        "negated",
    ),
    (
        True,
        "file",
        "MEMORY",
        "- Python version for the monorepo: 3.10",
        "- Python version for the monorepo: 3.13",
        "changed version",
    ),
    (
        True,
        "note",
        "Travel",
        "- [plan] Conference trip to Denver in October",
        "- [plan] Conference trip to Austin in October",
        "changed name",
    ),
    (
        True,
        "file",
        "team",
        "- Sprint length is two weeks",
        "- Sprint length is one week",
        "changed number",
    ),
    (
        True,
        "note",
        "Infra",
        "- [ops] Logs ship to Datadog",
        "- [ops] Logs no longer ship to Datadog; we use Grafana Loki",
        "change statement",
    ),
    (
        True,
        "title",
        "Payments",
        "- [vendor] Card processing through Stripe",
        "- [vendor] Card processing through Adyen",
        "changed name",
    ),
    (
        True,
        "note",
        "User Profile",
        "- [personal] Drives to the office",
        "- [personal] Sold the car and cycles to the office",
        "changed habit",
    ),
    (
        True,
        "file",
        "preferences",
        "<editor>Emacs with evil-mode</editor>",
        "<editor>Neovim</editor>",
        "changed value",
    ),
    (
        True,
        "note",
        "Website",
        "- [seo] Sitemap is regenerated nightly",
        "- [seo] Sitemap is regenerated on every deploy",
        "changed schedule",
    ),
    (
        True,
        "file",
        "MEMORY",
        "- The user wants answers in British English",
        "- The user wants answers in American English",
        "changed preference",
    ),
    (
        True,
        "note",
        "Team",
        "- [process] Retros happen every second Friday",
        "- [process] Retros were cancelled; feedback goes into a shared doc",
        "change statement",
    ),
    (
        False,
        "note",
        "Home Lab",
        "- [hardware] NAS has 6 drives in RAID 6",
        "- [hardware] Router has 4 ports and Wi-Fi 6",
        "different devices",
    ),
    (
        False,
        "file",
        "MEMORY",
        "- Staging URL is https://stage.acme.io",
        "- Production URL is https://acme.io",
        "different environments",
    ),
    (
        False,
        "note",
        "Reading List",
        "- [status] Finished Dune",
        "- [status] Finished Hyperion",
        "two books",
    ),
    (
        False,
        "file",
        "user_profile",
        "<diet>vegan</diet>",
        "<allergy>peanuts</allergy>",
        "different fields",
    ),
    (
        False,
        "note",
        "Frontend",
        "- [decision] Bundler is Vite",
        "- [decision] Test runner is Vitest",
        "different tools",
    ),
    (
        False,
        "file",
        "feedback_style",
        "- Write detailed PR descriptions",
        "- Write short commit messages",
        "different artefacts",
    ),
    (
        False,
        "note",
        "Infra",
        "- [ops] Backups are kept for 90 days",
        "- [ops] Audit logs are kept for 365 days",
        "different retention",
    ),
    (
        False,
        "relation",
        "Kenji Watanabe",
        "- [role] Works on the billing team",
        "- [people] Kenji Watanabe is the go-to person for invoice exports",
        "consistent",
    ),
    (
        False,
        "file",
        "project_api",
        "API rate limit: 600 requests per minute",
        "API timeout: 30 seconds",
        "different settings",
    ),
    (
        False,
        "note",
        "Preferences",
        "- [preference] Wants type hints everywhere",
        "- [preference] Wants docstrings on public functions",
        "different rules",
    ),
    (
        False,
        "file",
        "MEMORY",
        "- Python version for the monorepo: 3.13",
        "- Node version for the frontend: 22",
        "different runtimes",
    ),
    (
        False,
        "note",
        "Travel",
        "- [plan] Conference trip to Austin in October",
        "- [plan] Family visit to Porto in December",
        "two trips",
    ),
    (
        False,
        "file",
        "team",
        "- Sprint length is one week",
        "- Sprint planning is on Monday mornings",
        "different facts",
    ),
    (
        False,
        "note",
        "Infra",
        "- [ops] Logs ship to Grafana Loki",
        "- [ops] Metrics ship to Prometheus",
        "different signals",
    ),
    (
        False,
        "title",
        "Payments",
        "- [vendor] Card processing through Adyen",
        "- [vendor] Invoicing through Chargebee",
        "different vendors",
    ),
    (
        False,
        "note",
        "User Profile",
        "- [personal] Cycles to the office",
        "- [personal] Works from home on Fridays",
        "consistent",
    ),
    (
        False,
        "file",
        "preferences",
        "<editor>Neovim</editor>",
        "<terminal>WezTerm</terminal>",
        "different fields",
    ),
    (
        False,
        "note",
        "Website",
        "- [seo] Sitemap is regenerated on every deploy",
        "- [seo] robots.txt is regenerated on every deploy",
        "different files",
    ),
    (
        False,
        "file",
        "MEMORY",
        "- The user wants answers in American English",
        "- The user wants answers without emoji",
        "two preferences",
    ),
    (
        False,
        "note",
        "Team",
        "- [process] Retros were cancelled",
        "- [process] Demos happen every second Friday",
        "different rituals",
    ),
]


def rows() -> list[dict[str, object]]:
    """The pairs as records with ids and their split."""
    return [
        {
            "id": FIRST_ID + offset,
            "split": "fresh",
            "contradicts": contradicts,
            "shape": shape,
            "title": title,
            "older": older,
            "newer": newer,
            "why": why,
        }
        for offset, (contradicts, shape, title, older, newer, why) in enumerate(PAIRS)
    ]


if __name__ == "__main__":
    target = Path(__file__).with_name("contradiction_pairs_fresh.jsonl")
    with target.open("w", encoding="utf-8") as out:
        for row in rows():
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
