import sys

from heat_breakpoint.server.cli import main

sys.exit(main())
