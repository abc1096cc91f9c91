"""Check what python -m build wrote: the wheel and the sdist hold what users and packagers need.

Usage: python .ci/check_dist.py DIST_DIR   (run from the repository's root)

The wheel must hold the quickstart notebook (python -m roofline_widget.demo opens it), every
bundled sample of roofline_widget/data, the py.typed marker, the LICENSE, the console
script's entry point and the HTML export's downloaded scripts with their licences; the sdist the
tests, the docs, the notebook, CHANGELOG.md, LICENSE, hatch_build.py and the same scripts.
Prints what it checked; exits 1 naming everything missing.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINT = "roofline-widget = roofline_widget.cli:main"
#: The HTML export's files, downloaded at build time by hatch_build.py (not in git), and their licences.
VENDOR = tuple(f"roofline_widget/static/vendor/{name}" for name in (
    "embed-amd.js", "embed-amd.js.LICENSE.txt", "require.js", "fa-solid-900.woff2",
    "LICENSE-html-manager.txt", "LICENSE-requirejs.txt", "README.md", "downloaded.json"))


def wheel_problems(wheel: Path) -> list[str]:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {"roofline_widget/notebooks/quickstart.ipynb", "roofline_widget/py.typed",
              "roofline_widget/__main__.py", "roofline_widget/cli/__init__.py", *VENDOR}
    samples = ROOT / "roofline_widget" / "data"
    wanted |= {str(p.relative_to(ROOT)) for p in samples.rglob("*") if p.is_file()}
    problems = [f"{wheel.name} lacks {name}" for name in sorted(wanted - names)]
    if not any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")
               for n in names):
        problems.append(f"{wheel.name} lacks the LICENSE in its .dist-info")
    entry = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
    text = zipfile.ZipFile(wheel).read(entry).decode() if entry else ""
    if ENTRY_POINT not in text.replace("  ", " "):
        problems.append(f"{wheel.name}: no console script '{ENTRY_POINT}' in entry_points.txt")
    print(f"{wheel.name}: {len(names)} files, {len(wanted)} required ones checked "
          f"({sum(1 for n in wanted if n.startswith('roofline_widget/data/'))} samples)")
    return problems


def sdist_problems(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    wanted = {"pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "docs/conf.py",
              "docs/index.md", "notebooks/quickstart.ipynb", "tests/test_cli.py",
              "roofline_widget/py.typed", "hatch_build.py", *VENDOR}
    print(f"{sdist.name}: {len(names)} files, {len(wanted)} required ones checked")
    return [f"{sdist.name} lacks {name}" for name in sorted(wanted - names)]


def main(dist: Path) -> int:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        print(f"expected one wheel and one sdist in {dist}, found {wheels + sdists}")
        return 1
    problems = wheel_problems(wheels[0]) + sdist_problems(sdists[0])
    for problem in problems:
        print(f"MISSING: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
