"""What the tests share: the table, tray, browser, broker and people they drive, and the one
polling helper. Imported as `from support.polling import until`; the modules that define pytest
fixtures are plugins of tests/conftest.py, so tests take those fixtures by name without importing them."""
