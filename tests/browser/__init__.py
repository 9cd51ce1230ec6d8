"""Browser tests: JupyterLab in headless Chromium (a package, so module names stay unique)."""
