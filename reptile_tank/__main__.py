import sys

from reptile_tank.cli import main

sys.exit(main())
