"""End-to-end tests in a real Chromium against JupyterLab and Voila (pytest marker ``browser``)."""
