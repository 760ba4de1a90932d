"""Views: what a learner reads from a trace or a cluster.

* :mod:`.tables` -- DataFrames of a trace (decisions, pods, status) and kubectl-style text;
* :mod:`.charts` -- Altair charts, one module per chart, and the chart widget;
* :mod:`.palette` -- the colours and shapes every chart and table share;
* :mod:`.identity_tables` -- the concept page's DNS table, pod identity and claim tables;
* :mod:`.kubectl` -- kubectl's text byte for byte, and ``%kubectl`` against the embedded cluster;
* :mod:`.projector` -- projector mode (``stsedu.display(scale=1.6)``).

Learners reach the views as ``stsedu.tables`` and ``stsedu.charts`` (see ``stsedu/__init__.py``).
"""
