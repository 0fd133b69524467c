"""The in-process ``croktilec`` fixture of the frontend tests, for the error cases."""
from frontend.conftest import croktilec  # noqa: F401  (a fixture pytest finds by name)
