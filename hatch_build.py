"""Build step: the two front-end bundles the HTML export inlines, taken from the npm registry.

``roofline-widget plot -o report.html`` and ``RooflineWidget.save_html`` write
one self-contained page drawn by ipywidgets' own HTML widget manager
(``@jupyter-widgets/html-manager``, its ``dist/embed-amd.js``) loaded through
RequireJS.  Neither ships with a Python package, so this hatchling build hook
downloads both npm tarballs at build time (wheel, sdist and ``pip install -e``),
checks each against the sha512 integrity pinned below, and unpacks the few
files the export needs into ``roofline_widget/static/vendor/``, next to the
licence texts committed there.  The downloaded files are not in git
(``.gitignore``); the wheel and the sdist carry them (``artifacts``).

Files already there and matching their pins are not downloaded again (a wheel
built from the sdist needs no network).  ``ROOFLINE_WIDGET_SKIP_JS=1`` builds
without them (the HTML export then says how to get them);
``ROOFLINE_WIDGET_NPM_REGISTRY`` names another registry (a mirror).  Run
``python hatch_build.py`` to fetch them into a checkout by hand.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path
from typing import NamedTuple

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, or imported by the tests: no build going on
    BuildHookInterface = object  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parent
#: Where the files go (the package reads them there: roofline_widget/static/html_scripts.py).
VENDOR = ROOT / "roofline_widget" / "static" / "vendor"
#: What the last download unpacked, with the pins it was checked against.
STAMP = "downloaded.json"
REGISTRY = "https://registry.npmjs.org"
TIMEOUT_SECONDS = 60
#: The most bytes a tarball may have (both are far smaller): a bound on what is read.
MAX_TARBALL_BYTES = 32 * 1024 * 1024


class NpmFiles(NamedTuple):
    """Files to take from one pinned npm package (a NamedTuple: hatchling loads this file
    without registering it as a module, which a dataclass needs).

    Attributes
    ----------
    package, version : str
        The package and its exact version.
    integrity : str
        The registry's ``dist.integrity`` of the tarball (``sha512-<base64>``).
    files : dict
        Path inside the tarball -> file name in ``VENDOR``.
    """

    package: str
    version: str
    integrity: str
    files: dict

    @property
    def url(self) -> str:
        """The tarball's address on the registry."""
        registry = os.environ.get("ROOFLINE_WIDGET_NPM_REGISTRY", REGISTRY).rstrip("/")
        return f"{registry}/{self.package}/-/{self.package.rsplit('/', 1)[-1]}-{self.version}.tgz"


#: html-manager 1.0.15 is the last 1.x (ipywidgets 8's manager); requirejs 2.3.8.
PINNED = (
    NpmFiles("@jupyter-widgets/html-manager", "1.0.15",
             "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
             {"package/dist/embed-amd.js": "embed-amd.js",
              # the notices of what the bundle holds (jQuery, ...), as upstream ships them
              "package/dist/embed.js.LICENSE.txt": "embed-amd.js.LICENSE.txt",
              # Font Awesome 5.15.4's solid face, which the bundle's CSS names (bqplot's toolbar)
              "package/dist/1551f4f60c37af51121f.woff2": "fa-solid-900.woff2",
              "package/package.json": "html-manager.package.json"}),
    NpmFiles("requirejs", "2.3.8",
             "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
             {"package/require.js": "require.js",
              "package/package.json": "requirejs.package.json"}),
)


class VendorError(RuntimeError):
    """A bundle could not be downloaded or failed its check."""


def _read_stamp(vendor: Path) -> dict:
    try:
        return json.loads((vendor / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _file_hashes(vendor: Path, names) -> dict:
    return {name: hashlib.sha256((vendor / name).read_bytes()).hexdigest() for name in names}


def up_to_date(vendor: Path = VENDOR) -> bool:
    """Whether every pinned file is in ``vendor``, unpacked from the pinned tarballs, unchanged."""
    stamp = _read_stamp(vendor)
    for spec in PINNED:
        entry = stamp.get(spec.package, {})
        names = list(spec.files.values())
        if entry.get("integrity") != spec.integrity or not all((vendor / n).is_file() for n in names):
            return False
        if entry.get("sha256") != _file_hashes(vendor, names):
            return False
    return True


def _download(spec: NpmFiles) -> bytes:
    request = urllib.request.Request(spec.url, headers={"User-Agent": "roofline-widget build"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            data = response.read(MAX_TARBALL_BYTES + 1)
    except OSError as exc:
        raise VendorError(f"could not download {spec.package}@{spec.version} from {spec.url}: "
                          f"{exc}") from exc
    if len(data) > MAX_TARBALL_BYTES:
        raise VendorError(f"{spec.url} is larger than {MAX_TARBALL_BYTES} bytes")
    algorithm, _, expected = spec.integrity.partition("-")
    found = base64.b64encode(hashlib.new(algorithm, data).digest()).decode("ascii")
    if found != expected:
        raise VendorError(f"{spec.url} does not match its pinned {algorithm} integrity "
                          f"(expected {expected}, got {found})")
    return data


def _unpack(spec: NpmFiles, tarball: bytes, vendor: Path) -> None:
    """Write the named members of ``tarball`` (only those, by exact name) into ``vendor``."""
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        members = {member.name: member for member in archive.getmembers() if member.isfile()}
        for inside, name in spec.files.items():
            member = members.get(inside)
            handle = archive.extractfile(member) if member is not None else None
            if handle is None:
                raise VendorError(f"{spec.package}@{spec.version} has no file {inside}")
            (vendor / name).write_bytes(handle.read())


def fetch(vendor: Path = VENDOR, log=print) -> list[str]:
    """Download, check and unpack every pinned bundle not yet in ``vendor``; the files written.

    Raises
    ------
    VendorError
        Naming the package, the address and what went wrong (no network, a
        tarball that fails its integrity pin, a file missing from it).
    """
    if up_to_date(vendor):
        return []
    vendor.mkdir(parents=True, exist_ok=True)
    stamp = {}
    written = []
    for spec in PINNED:
        log(f"roofline-widget build: downloading {spec.package}@{spec.version} ({spec.url})")
        _unpack(spec, _download(spec), vendor)
        names = list(spec.files.values())
        stamp[spec.package] = {"version": spec.version, "integrity": spec.integrity,
                               "sha256": _file_hashes(vendor, names)}
        written += names
    (vendor / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return [*written, STAMP]


def vendored_paths() -> list[str]:
    """The downloaded files, relative to the project root (the wheel's and sdist's artifacts)."""
    names = [name for spec in PINNED for name in spec.files.values()] + [STAMP]
    return [str((VENDOR / name).relative_to(ROOT)).replace(os.sep, "/") for name in names]


class VendorJsHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Hatchling's custom build hook: fetch the bundles, ship them in the wheel and the sdist."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if os.environ.get("ROOFLINE_WIDGET_SKIP_JS"):
            self.app.display_warning("ROOFLINE_WIDGET_SKIP_JS is set: building without the "
                                     "HTML export's scripts (save_html will say how to get them)")
            return
        try:
            fetch(log=self.app.display_info)
        except VendorError as exc:
            raise VendorError(
                f"{exc}\nThe HTML export (roofline-widget plot -o x.html) inlines these npm "
                "bundles, downloaded at build time. Reach the npm registry (or set "
                "ROOFLINE_WIDGET_NPM_REGISTRY to a mirror), or set ROOFLINE_WIDGET_SKIP_JS=1 "
                "to build without the HTML export.") from exc
        build_data.setdefault("artifacts", []).extend(vendored_paths())


if __name__ == "__main__":
    try:
        done = fetch()
    except VendorError as error:
        sys.exit(f"error: {error}")
    print(f"{len(done)} file(s) written to {VENDOR}" if done else f"{VENDOR} is up to date")
