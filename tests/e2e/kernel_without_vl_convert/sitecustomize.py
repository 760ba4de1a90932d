"""Put on a kernel's PYTHONPATH by tests/e2e/conftest.py: the kernel then behaves as if
vl-convert-python were not installed ("import vl_convert" raises ImportError), as in
JupyterLite or an install without the ``export`` extra.  The browser tests thereby check that
every chart draws from the kit's own Vega bundle."""

import sys

sys.modules["vl_convert"] = None
