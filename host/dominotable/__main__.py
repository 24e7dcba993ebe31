from dominotable.app.cli import main

raise SystemExit(main())
