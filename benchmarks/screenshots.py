"""Build the qdoc site and take headless Chromium screenshots of a few pages.

Not a test (it needs a browser): run it by hand after changing the look of the
site and look at the PNGs.

    python benchmarks/screenshots.py                  # build both languages, shoot the default pages
    python benchmarks/screenshots.py --no-build --page zh_CN/faq.html

Chromium comes from Debian (``apt-get install -y chromium``; ``fonts-noto-cjk``
for the Chinese pages). Screenshots land in ``docs/_build/screenshots/``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
SITE = DOCS / "_build" / "html"
SHOTS = DOCS / "_build" / "screenshots"
DEFAULT_PAGES = (
    "en/get-started.html",
    "zh_CN/get-started.html",
    "en/rules/QL401.html",
    "zh_CN/rules/QL401.html",
    "en/faq.html",
    "zh_CN/faq.html",
    "en/guides/qwen3.6-27b-a3.html",
)
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars",
)


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("chromium not found: apt-get update && apt-get install -y chromium fonts-noto-cjk")


def shoot(browser: str, page: Path, fragment: str, target: Path, width: int, height: int) -> None:
    """Screenshot ``page``; with a ``fragment`` the page is shown in a full-window frame scrolled to it
    (headless Chromium does not scroll a top-level page to its fragment before the capture)."""
    with tempfile.TemporaryDirectory(prefix="qdoc-chromium-") as profile:
        url = page.as_uri()
        if fragment:
            frame = Path(profile) / "frame.html"
            frame.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe src="{url}#{fragment}" '
                             f'style="border:0;width:{width}px;height:{height}px"></iframe></body></html>',
                             encoding="utf-8")
            url = frame.as_uri()
        command = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                   "--allow-file-access-from-files", f"--screenshot={target}", url]
        subprocess.run(command, check=True, capture_output=True, timeout=120)
    if not target.is_file() or target.stat().st_size == 0:
        sys.exit(f"no screenshot written for {page}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="use the site already in docs/_build/html")
    parser.add_argument("--page", action="append", help="page under the site root, optionally with #anchor (repeatable)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=2000)
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run([sys.executable, "-m", "qlint.docgen.cli", "build", "--out", str(SITE)], check=True)
    browser = find_chromium()
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in args.page or DEFAULT_PAGES:
        path, _, fragment = name.partition("#")
        page = SITE / path
        if not page.is_file():
            sys.exit(f"{page} does not exist; build the site first")
        stem = path.replace("/", "__").removesuffix(".html") + (f"__{fragment}" if fragment else "")
        target = SHOTS / f"{stem}.png"
        shoot(browser, page, fragment, target, args.width, args.height)
        print(f"{target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
