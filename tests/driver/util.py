"""The helpers these tests used to import from here are in ``tests/helpers`` (croktilec,
programs); this module re-exports them for ``from .util import ...``."""
from helpers.croktilec import *  # noqa: F401,F403
from helpers.croktilec import PKG_PARENT, Result  # noqa: F401
from helpers.programs import *  # noqa: F401,F403
