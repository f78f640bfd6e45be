import sys
from pathlib import Path

# Tests import helpers.py from this directory.
sys.path.insert(0, str(Path(__file__).parent))
