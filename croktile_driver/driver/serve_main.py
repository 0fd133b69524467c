"""The warm compile server's process (`python -m croktile_driver.driver.serve_main SOCKET`): it
hands server.py the driver's entry, so server.py and cli.py do not import each other."""
import sys

from croktile_driver import cli
from croktile_driver.driver import server

if __name__ == "__main__":
    try:
        server.serve(sys.argv[1], cli.main)
    except Exception:
        sys.exit(1)
