import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from adsrc import pipeline  # noqa: E402

pipeline.VERIFY = True      # the IR verifier runs after every pass in the tests
