"""``python -m mjkit.app``: the Voila server child of :func:`mjkit.app.server.serve`.

Run ``python -m mjkit app`` instead: it checks the options, sets them in
the environment and stops this server and its kernels on SIGTERM/SIGINT.
"""

import sys

from ._voila import main

sys.exit(main())
