"""``import stsedu`` leaves the user's pandas options alone; the kit's own tables show sentences whole.

pandas cuts a cell at ``display.max_colwidth`` (50 by default).  The kit used to set that option
to None for the whole session on import; now only the frames it builds (``stsedu.frames``) are
shown whole, inside IPython, and a frame the learner builds is shown as pandas would.
"""

from __future__ import annotations

import html
import subprocess
import sys

import pandas as pd
import pytest

import stsedu
from stsedu.frames import is_kit_frame

LONG = "x" * 80


def test_import_stsedu_leaves_pandas_display_options_alone():
    code = ("import pandas as pd; before = pd.get_option('display.max_colwidth'); import stsedu; "
            "print(before, pd.get_option('display.max_colwidth'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["50", "50"]


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    sh = InteractiveShell.instance()
    stsedu.load_ipython_extension(sh)
    yield sh
    InteractiveShell.clear_instance()


def test_the_kit_s_decision_table_shows_whole_messages_and_a_user_frame_is_cut(shell, manual_cluster):
    c = manual_cluster
    c.apply(__import__("helpers").web(1))
    c.sync("web")
    decisions = c.trace.decisions()
    assert is_kit_frame(decisions) and is_kit_frame(decisions[decisions.action == "create"])
    message = max(decisions.message, key=len)
    assert len(message) > 50
    data, _ = shell.display_formatter.format(decisions)
    assert html.escape(message, quote=False) in data["text/html"]
    data, _ = shell.display_formatter.format(decisions[["message"]])
    assert message in data["text/plain"]
    mine = pd.DataFrame({"note": [LONG]})
    data, _ = shell.display_formatter.format(mine)
    assert LONG not in data["text/plain"] and LONG not in data["text/html"]  # pandas' own cut
    assert pd.get_option("display.max_colwidth") == 50
