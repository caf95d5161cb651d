"""The built book in a browser and as HTML text (a package: its conftest is browser.conftest,
not a second module named conftest beside tests/conftest.py, which --doctest-modules imports)."""
