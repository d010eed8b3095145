"""Screenshots of a review report for the README: the top of the page and the sections named, at
1400 px wide, through headless Chromium, as small palette PNGs.

    .venv/bin/ssdlab review force-gs-240 --scale 0.1 --out /tmp/review
    .venv/bin/python scripts/report_screenshots.py /tmp/review/index.html docs/report top resiliency consistency

writes docs/report-top.png, docs/report-resiliency.png, docs/report-consistency.png. Needs
Debian's `chromium`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

WIDTH = 1400
HEIGHT = 1400
#: Records where each section starts, once the page (and its images) are laid out.
OFFSETS = """<script>
window.addEventListener('load', function () {
  var at = {};
  document.querySelectorAll('h2[id]').forEach(function (h) { at[h.id] = Math.round(h.getBoundingClientRect().top + window.scrollY); });
  document.body.setAttribute('data-offsets', JSON.stringify(at));
  document.body.setAttribute('data-height', document.documentElement.scrollHeight);
});
</script>"""


def chromium(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("report_screenshots: chromium is not installed (apt-get install chromium)")
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=10000"]
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=180, check=True)


def main(page: Path, prefix: str, sections: list[str]) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=page.parent, delete=False) as probe:
        probe.write(page.read_text().replace("</body>", OFFSETS + "</body>"))
    probe_path = Path(probe.name)
    try:
        dom = chromium(f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", probe_path.as_uri()).stdout
        body = next(line for line in dom.splitlines() if "<body" in line)
        offsets = json.loads(body.split('data-offsets="')[1].split('"')[0].replace("&quot;", '"'))
        height = int(body.split('data-height="')[1].split('"')[0])
        with tempfile.TemporaryDirectory() as tmp:
            full = Path(tmp) / "full.png"
            chromium(f"--window-size={WIDTH},{height}", f"--screenshot={full}", page.as_uri())
            image = Image.open(full).convert("RGB")
            for name in sections:
                top = 0 if name == "top" else max(0, offsets[name] - 16)
                crop = image.crop((0, top, WIDTH, min(image.height, top + HEIGHT)))
                out = Path(f"{prefix}-{name}.png")
                crop.quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
                print(f"{out}: {out.stat().st_size / 1024:,.0f} KiB")
    finally:
        probe_path.unlink()


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(Path(sys.argv[1]).resolve(), sys.argv[2], sys.argv[3:])
