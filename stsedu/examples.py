"""Example manifests shipped with the kit (``stsedu/data/*.yaml``)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"


def names() -> list[str]:
    """Names of the shipped examples (``web`` is the concept page's web/nginx example)."""
    return sorted(p.stem for p in DATA.glob("*.yaml"))


def load(name: str = "web") -> str:
    """The YAML text of a shipped example.  Raise KeyError naming the known ones otherwise."""
    path = DATA / f"{name}.yaml"
    if not path.is_file():
        raise KeyError(f"no example {name!r}; known: {', '.join(names())}")
    return path.read_text()
