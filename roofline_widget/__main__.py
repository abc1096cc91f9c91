"""``python -m roofline_widget``: the ``roofline-widget`` command line."""

from roofline_widget.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
