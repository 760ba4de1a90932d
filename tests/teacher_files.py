"""A teacher's exercise files and the command line, shared by the class tests.

The exercises carry ``SECRET-…`` words in their *why* and hints, so a test can check that
nothing of the teacher's side reaches a student's handout.
"""

from __future__ import annotations

import io
import textwrap
from contextlib import redirect_stderr

from stsedu.__main__ import main

ROLLING = textwrap.dedent("""\
    id: "T.1"
    question: Four Ready pods get a new image. How many pods does the first sync delete?
    scenario:
      cluster: {kubelet: manual}
      objects:
        - {file: "stsedu:web.yaml", patch: {spec: {replicas: 4}}}
      steps: [settle: {}, set_image: "registry.k8s.io/nginx-slim:0.21"]
    answer: {kind: number, from: next_sync, action: delete, count: true}
    why: SECRET-WHY-1 a rolling update replaces one pod at a time.
    hints:
      - {answer: 4, hint: SECRET-HINT-1 not all at once.}
    """)
SEQUENCE = textwrap.dedent("""\
    id: "T.2"
    question: >
      Two Ready pods, OrderedReady; you scale to 4. Which pods are created and waited on,
      in order, until the set is stable?
    points: 2
    scenario:
      cluster: {kubelet: manual}
      objects:
        - {file: "stsedu:web.yaml", patch: {spec: {replicas: 2}}}
      steps: [settle: {}, scale: 4]
    answer: {kind: decisions, from: sequence}
    why: SECRET-WHY-2 OrderedReady creates one pod and waits for it to be Ready before the next.
    """)
PARTITION = textwrap.dedent("""\
    id: "T.3"
    question: >
      Five Ready pods, partition 3, new image. Once the set settles, which pods
      run the new revision?
    points: 2
    scenario:
      cluster: {kubelet: manual}
      objects:
        - {file: "stsedu:web.yaml", patch: {spec: {replicas: 5, minReadySeconds: 0,
            updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 3}}}}}
      steps:
        - settle: {}
        - set_image: "registry.k8s.io/nginx-slim:0.21"
    reveal:
      - settle: {}
    answer: {kind: pods, from: pods, where: {revision: 2}}
    why: SECRET-WHY-3 Only ordinals at or above the partition move to the update revision.
    hints:
      - answer: [web-0, web-1, web-2]
        hint: SECRET-HINT-3 The partition protects the LOW ordinals.
    """)


def with_id(text: str, new_id: str) -> str:
    """*text* with its ``id:`` line changed to *new_id*."""
    first, rest = text.split("\n", 1)
    assert first.startswith("id: ")
    return f'id: "{new_id}"\n{rest}'


def exercise_folder(parent, files: dict[str, str]):
    """``parent/my-exercises/`` holding *files* (name -> text)."""
    folder = parent / "my-exercises"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def cli(*argv: str) -> tuple[int, str, str]:
    """``stsedu ARGV…``: the exit status, what it printed and what it wrote to stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        code = main(list(argv), out=out)
    return code, out.getvalue(), err.getvalue()
