import sys

from flowstate.cli.main import main

sys.exit(main())
