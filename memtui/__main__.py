"""`python -m memtui` is the `memtui` command."""

import sys

from memtui.cli import main

sys.exit(main())
