import sys

from flowstate.cli import main

sys.exit(main())
