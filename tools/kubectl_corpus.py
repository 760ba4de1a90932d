"""Rewrite the stored outputs of tests/data/kubectl_corpus.yaml from the kit (issue 29).

    python tools/kubectl_corpus.py          # run every scenario, store stdout/stderr/status

Review the diff: the stored outputs are what kubectl prints, checked against kubectl's sources
and (where the live control plane is built) the real kubectl by tests/views/test_kubectl_corpus.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "kubectl_corpus.yaml"
sys.path.insert(0, str(ROOT))


def run_scenario(lines: list[dict]) -> list[dict]:
    """Each line's ``stdout``, ``stderr`` and ``status`` on a new cluster (seed 0), in order."""
    from stsedu.console.session import Session
    s = Session(seed=0)
    out = []
    for entry in lines:
        r = s.run(entry["line"], entry.get("stdin"))
        out.append({"stdout": r.stdout, "stderr": r.stderr, "status": r.status})
    return out


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, text):
    style = "|" if "\n" in text and not text.endswith((" ", "\t")) and "\t" not in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str)


def main() -> int:
    head = "".join(line for line in CORPUS.read_text().splitlines(keepends=True) if line.startswith("#"))
    scenarios = yaml.safe_load(CORPUS.read_text())
    for sc in scenarios:
        for entry, got in zip(sc["lines"], run_scenario(sc["lines"])):
            entry.update(got)
    body = yaml.dump(scenarios, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
    CORPUS.write_text(head + body)
    print(f"wrote {CORPUS} ({sum(len(s['lines']) for s in scenarios)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
