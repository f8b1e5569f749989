"""Every data file the package reads at run time is named by the package data, so the wheel and
the sdist carry it (an editable install would hide a missing one; .ci/wheel-smoke runs the wheel).
"""

import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]


def package_data_globs() -> list[str]:
    """The package-data globs pyproject.toml gives for `memtui`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(config["tool"]["setuptools"]["package-data"]["memtui"])


def test_every_data_file_under_the_package_is_package_data() -> None:
    package = ROOT / "memtui"
    data = {
        path
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    }
    named = {path for pattern in package_data_globs() for path in package.glob(pattern)}
    assert any(path.name == "prefs.json" for path in data), "the demo store has a JSON file"
    assert sorted(str(path.relative_to(package)) for path in data - named) == []
