"""Altair charts of a trace, and the widget that draws them offline.

See :mod:`.plots` for the charts and :mod:`.widget` for :class:`ChartWidget`,
:func:`enable_offline` and :func:`save`; :mod:`.queue` draws the controller's loop.
"""

from .plots import *  # noqa: F401,F403
from .plots import __all__  # noqa: F401
