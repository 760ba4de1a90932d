"""The kit's tables show their sentences whole, without touching the user's pandas options.

Decision messages, rules and events are sentences; pandas' default ``display.max_colwidth``
(50) would cut them.  Instead of changing that option for the whole session, every frame
the kit builds is made by :func:`kit_frame`, which marks it (``df.attrs["stsedu"]``), and
inside IPython :func:`register` installs a display formatter that shows a marked frame with
``max_colwidth`` unlimited for the time of that one display.  Frames the user builds, and
the options they set, are left as they are.  (pandas carries ``attrs`` over to most frames
derived from a marked one: a filter, a slice, a column selection.)
"""

from __future__ import annotations

MARK = "stsedu"


def kit_frame(*args, **kwargs):
    """``pandas.DataFrame(*args, **kwargs)``, marked as one of the kit's tables."""
    import pandas as pd
    df = pd.DataFrame(*args, **kwargs)
    df.attrs[MARK] = True
    return df


def kit_records(rows, columns):
    """``pandas.DataFrame.from_records(rows, columns=columns)``, marked as one of the kit's tables."""
    import pandas as pd
    df = pd.DataFrame.from_records(rows, columns=columns)
    df.attrs[MARK] = True
    return df


def is_kit_frame(df) -> bool:
    return bool(getattr(df, "attrs", {}).get(MARK))


def _whole(df, show):
    if not is_kit_frame(df):
        return show()
    import pandas as pd
    with pd.option_context("display.max_colwidth", None):
        return show()


def _html(df):
    return _whole(df, df._repr_html_)


def _plain(df, p, cycle):
    p.text(_whole(df, lambda: repr(df)))


def register(shell) -> None:
    """Show the kit's frames whole in *shell* (an IPython shell); other frames as pandas does."""
    import pandas as pd
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(pd.DataFrame, _html)
    formatters["text/plain"].for_type(pd.DataFrame, _plain)
