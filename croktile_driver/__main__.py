from croktile_driver.cli import main

raise SystemExit(main())
