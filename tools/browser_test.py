"""Load every page of the built book in headless Chromium, offline.

Usage: python tools/browser_test.py [--no-screenshots] [HTML_ROOT]      (default _build/html)

Serves HTML_ROOT on 127.0.0.1 and opens each page in Debian's Chromium (installed
with apt-get when missing) through Playwright, with every other address sent to a
dead proxy, so a page that needs the network shows it.  For each page it checks:

* no request left 127.0.0.1 (and the static HTML references no outside script,
  style, font or image),
* MathJax typeset every formula (no raw ``\\(`` or ``$$`` left in the text),
* a page made from a notebook offers that very notebook (``.ipynb``) for download,
* every image loaded (naturalWidth > 0),
* no console error and no failed request,
* at phone width (390 px) the document does not overflow sideways
  (``scrollWidth <= clientWidth``): wide tables, equations, code and animations scroll
  inside their own box (that is allowed; the page itself may not);
* at both widths (1280 and 390 px) no display equation, table or code block is
  clipped: wherever its content is wider than the box that shows it, that box scrolls
  sideways with a visible cue, a scroll bar or edge shadows (:data:`CLIP_JS`); code
  blocks do not wrap (a
  wrapped line loses Python's indentation).  Each clipped box is listed by its
  equation number or TeX, its table's header, or its code's first line.
* every chapter figure (an ``<img>`` of a file in ``figures/``) is legible at 1280 px
  (:func:`legibility`): the book's base font (``font.size`` of :func:`lib.book.style`)
  at the PNG's dpi (its pHYs chunk), scaled to the width the image is shown at, is at
  least :data:`MIN_TEXT_PX` CSS px, and the PNG has at least :data:`MIN_SHARPNESS` times
  as many pixels across as it is shown wide (else it is blurry).  The same numbers at
  390 px are printed, not judged (a phone shows every figure at the screen's width).

Screenshots go to ``_build/screenshots/`` (``<page>.png`` at 1280 px and
``<page>-phone.png`` at 390 px), full pages, to be looked at; ``--no-screenshots`` (what
``make test`` runs) checks the same things without writing them, which saves most of the
test's time (encoding 94 PNGs, the longest over 30,000 px tall).  Exits 1 listing every failure.
"""
from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
MIN_TEXT_PX = 11.0      # 12 pt body text of the figure must show at >= 11 CSS px at 1280 px
MIN_SHARPNESS = 1.5     # PNG pixels per shown CSS px (below it the figure is blurry)
DEFAULT_DPI = 160.0     # lib.book.style()'s savefig.dpi, used when a PNG has no pHYs chunk
# Measured (Chromium, 1280 x 900 window, this theme): the article's text column is 688 CSS px
# and a figure's content box 672 px (figure padding 8 px a side), so ``:width: W%`` shows a
# figure W% of 672 px wide; 12 pt text of a figure w inches wide then shows at
# 12/72 x 672 x W/100 / w px, >= 11 px for w <= 10.2 x W/100.  At 390 px: 358 and 342 px.
FIGURE_BOX_PX = 672
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# elements sticking out of the phone-width page, outside any scroll container
OVERFLOW_JS = """() => {
  const doc = document.documentElement, w = doc.clientWidth;
  if (doc.scrollWidth <= w + 1) return {scroll: doc.scrollWidth, client: w, culprits: []};
  const scrolls = el => { for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if ((o === 'auto' || o === 'scroll' || o === 'hidden') && p !== doc && p !== document.body) return true; }
    return false; };
  const culprits = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1 && !scrolls(el)) {
      culprits.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
        (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
        ' (right edge ' + Math.round(r.right) + ' px)');
      if (culprits.length >= 5) break; } }
  return {scroll: doc.scrollWidth, client: w, culprits: culprits};
}"""
# Display equations, tables and code blocks whose content is wider than the box that
# shows it (the nearest of itself and its ancestors whose overflow-x is not visible)
# while that box does not scroll with a visible cue; and code that wraps.  Headless
# Chromium draws no scroll bars (as a phone or macOS shows none until the reader
# scrolls), so the cue is a scroll bar that takes room where one is drawn, or edge
# shadows that scroll with the content (a gradient background with attachment local,
# _static/responsive.css): a box that merely scrolls, with nothing to show it, fails.
CLIP_JS = """() => {
  const root = document.querySelector('main') || document.body;
  const boxes = root.querySelectorAll('mjx-container[display="true"], div.math, table, div.highlight pre');
  const shown = el => { for (let p = el; p && p !== document.body && p !== document.documentElement; p = p.parentElement)
      if (getComputedStyle(p).overflowX !== 'visible') return p;
    return null; };
  const label = el => {
    if (el.matches('table')) {
      const head = el.querySelector('tr');
      return 'table "' + (head ? head.innerText : el.innerText).replace(/\\s+/g, ' ').trim().slice(0, 60) + '"'; }
    if (el.matches('pre')) return 'code "' + el.innerText.split('\\n')[0].trim().slice(0, 60) + '"';
    const block = el.closest('div.math') || el;
    const eqno = block.querySelector('.eqno');
    let tex = '';
    try { const items = MathJax.startup.document.getMathItemsWithin(block);
          if (items.length) tex = items[0].math; } catch (e) {}
    return 'equation ' + (eqno ? eqno.innerText.replace(/[^0-9.()]/g, '') + ' ' : '') +
      '"' + (tex || block.innerText).replace(/\\s+/g, ' ').trim().slice(0, 60) + '"'; };
  const out = [], seen = new Set();
  for (const el of boxes) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const box = shown(el);
    const right = r.left + Math.max(r.width, el.scrollWidth);
    let clipped = false, why = '';
    if (box === null) {
      const col = (el.closest('article') || root).getBoundingClientRect();
      if (right > col.right + 1) { clipped = true; why = 'sticks out of the text column'; }
    } else {
      const b = box.getBoundingClientRect(), cs = getComputedStyle(box);
      const visible = b.left + box.clientLeft + box.clientWidth;
      if (right > visible + 1 || box.scrollWidth > box.clientWidth + 1 && box === el) {
        const bar = box.offsetHeight - box.clientHeight - parseFloat(cs.borderTopWidth) - parseFloat(cs.borderBottomWidth);
        const scrolls = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
        // a cue: a scroll bar that takes room, or edge shadows that scroll with the content
        const shadow = cs.backgroundImage.includes('gradient') && cs.backgroundAttachment.includes('local');
        if (!scrolls || (bar <= 0 && !shadow)) { clipped = true;
          why = Math.round(Math.max(right, b.left + box.scrollWidth) - visible) + ' px cut off, ' +
                (scrolls ? 'scrolls with no visible cue' : 'overflow-x ' + cs.overflowX); } } }
    if (!clipped && el.matches('pre') && getComputedStyle(el).whiteSpace !== 'pre') {
      clipped = true; why = 'wraps (white-space ' + getComputedStyle(el).whiteSpace + ')'; }
    if (clipped) { const name = label(el) + ': ' + why;
      if (!seen.has(name)) { seen.add(name); out.push(name); } }
  }
  return out;
}"""
# every <img> with its natural and shown width and the width of the box that holds it (a
# figure's content box: what ``:width: W%`` is a percentage of), and the text column's width
IMAGES_JS = """() => {
  const art = document.querySelector('main article') || document.querySelector('article') ||
              document.querySelector('main') || document.body;
  const cs = getComputedStyle(art);
  const column = art.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  return {column: column, images: Array.from(document.images).map(i => ({
    src: i.getAttribute('src') || '', url: i.src, natural: i.naturalWidth,
    shown: i.getBoundingClientRect().width,
    box: (() => { const f = i.closest('figure') || i.parentElement, c = getComputedStyle(f);
                  return f.clientWidth - parseFloat(c.paddingLeft) - parseFloat(c.paddingRight); })()}))};
}"""
EXTERNAL = re.compile(
    r"""<(?:script|img|link|source|iframe)\b[^>]*?\b(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I
)


def png_dpi(path: Path, default: float = DEFAULT_DPI) -> float:
    """The resolution a PNG declares in its pHYs chunk (pixels per inch); ``default``
    when it declares none (or only an aspect ratio).  Matplotlib writes pHYs from
    ``savefig.dpi``."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    i = 8
    while i + 8 <= len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        kind = data[i + 4:i + 8]
        if kind == b"pHYs":
            x, _y, unit = struct.unpack(">IIB", data[i + 8:i + 17])
            return x * 0.0254 if unit == 1 and x > 0 else default
        if kind in (b"IDAT", b"IEND"):
            break                    # pHYs must come before the image data
        i += 12 + n
    return default


def book_font_pt() -> float:
    """The base font size (pt) of the book's figures: ``font.size`` as
    :func:`lib.book.style` sets it (read, not typed, so the check follows the style)."""
    sys.path.insert(0, str(ROOT))
    import matplotlib
    from lib.book import style

    with matplotlib.rc_context():
        style()
        return float(matplotlib.rcParams["font.size"])


def text_px(natural_px: float, shown_px: float, dpi: float, font_pt: float) -> float:
    """CSS px that ``font_pt`` text of a PNG rendered at ``dpi`` takes when the PNG,
    ``natural_px`` wide, is shown ``shown_px`` wide: pt/72 inch x dpi x shown/natural."""
    return font_pt / 72.0 * dpi * shown_px / natural_px


def legibility(natural_px: float, shown_px: float, dpi: float, font_pt: float,
               min_text_px: float = MIN_TEXT_PX, min_sharpness: float = MIN_SHARPNESS):
    """``(text px, sharpness, problems)`` of a figure shown ``shown_px`` wide.

    ``problems`` is empty when ``font_pt`` text shows at >= ``min_text_px`` CSS px and
    the PNG has >= ``min_sharpness`` pixels per shown px; otherwise it says which fails.
    """
    if natural_px <= 0 or shown_px <= 0:
        return 0.0, 0.0, [f"not shown (natural {natural_px} px, shown {shown_px} px)"]
    px = text_px(natural_px, shown_px, dpi, font_pt)
    sharp = natural_px / shown_px
    problems = []
    if px < min_text_px:
        problems.append(f"{font_pt:g} pt text shows at {px:.1f} px (< {min_text_px:g})")
    if sharp < min_sharpness:
        problems.append(f"blurry: {natural_px:.0f} px PNG shown {shown_px:.0f} px wide "
                        f"({sharp:.2f}x < {min_sharpness:g}x)")
    return px, sharp, problems


def figure_legibility(page, html_root: Path, page_path: str, font_pt: float, judge: bool):
    """Measure every chapter figure on ``page`` (the viewport as it is now).

    Returns ``(column px, rows, problems)``: one row per figure
    ``(file, natural px, shown px, dpi, text px, sharpness, box px)``; ``problems`` only
    when ``judge``."""
    got = page.evaluate(IMAGES_JS)
    rows, problems = [], []
    for img in got["images"]:
        name = Path(img["src"].split("?")[0].split("#")[0]).name
        if not name.endswith(".png") or not (FIGURES / name).is_file():
            continue                 # not a chapter figure (logo, notebook output, ...)
        served = (html_root / Path(page_path).parent / img["src"]).resolve()
        dpi = png_dpi(served if served.is_file() else FIGURES / name)
        px, sharp, bad = legibility(img["natural"], img["shown"], dpi, font_pt)
        rows.append((name, img["natural"], img["shown"], dpi, px, sharp, img["box"]))
        if judge:
            problems += [f"figure {name}: {b}" for b in bad]
    return got["column"], rows, problems


def _has_cjk_font() -> bool:
    try:
        out = subprocess.run(["fc-list", ":lang=ko"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return False
    return bool(out.strip())


def ensure_chromium():
    """Install Debian's chromium and a CJK font (the glossary has Korean) when missing."""
    want = []
    if not Path(CHROMIUM).exists():
        want.append("chromium")
    if not _has_cjk_font():
        want.append("fonts-noto-cjk")
    if not want:
        return
    print(f"installing Debian's {' and '.join(want)} ...", flush=True)
    cmd = ["apt-get", "install", "-y", "-q", *want]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL, check=True)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    handler = functools.partial(_Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def static_external_refs(html: str) -> list[str]:
    """Tags in a page that would load a script, style, font or image from outside."""
    refs = []
    for m in EXTERNAL.finditer(html):
        tag = m.group(0)
        if tag.lower().startswith("<link") and not re.search(r"rel=[\"']?(stylesheet|preload|icon|modulepreload)", html[m.start(): m.start() + 300], re.I):
            continue  # plain <link rel="canonical"> etc. loads nothing
        refs.append(tag[:120])
    return refs


def main(argv):
    argv = list(argv)
    take_shots = "--no-screenshots" not in argv
    argv = [a for a in argv if a != "--no-screenshots"]
    html_root = Path(argv[0]) if argv else ROOT / "_build" / "html"
    if not (html_root / "index.html").exists():
        print(f"{html_root} has no index.html: build the book first (make book)")
        return 1
    ensure_chromium()
    from playwright.sync_api import sync_playwright

    shots = html_root.parent / "screenshots"
    if take_shots:
        if shots.exists():
            shutil.rmtree(shots)
        shots.mkdir(parents=True)
    pages = sorted(p.relative_to(html_root).as_posix() for p in html_root.rglob("*.html")
                   if p.name not in {"genindex.html", "search.html"} and "_static" not in p.parts)
    httpd = serve(html_root)
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    failures: list[str] = []
    font_pt = book_font_pt()
    legible: list[str] = []          # the figure table printed at the end
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        for page_path in pages:
            html = (html_root / page_path).read_text(encoding="utf-8")
            if re.search(r'http-equiv=["\']refresh', html, re.I):
                continue  # a redirect stub (index.html -> intro.html)
            for ref in static_external_refs(html):
                failures.append(f"{page_path}: references outside the server: {ref}")
            page = browser.new_page(viewport=DESKTOP)
            page.set_default_timeout(180_000)   # a full-page screenshot on a busy machine
            problems: list[str] = []
            page.on("console", lambda m, p=problems: p.append(f"console {m.type}: {m.text}")
                    if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
            page.on("response", lambda r, p=problems: p.append(f"HTTP {r.status}: {r.url}")
                    if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
            page.on("pageerror", lambda e, p=problems: p.append(f"page error: {e}"))
            page.on("requestfailed", lambda r, p=problems: p.append(f"request failed: {r.url} ({r.failure})"))
            page.on("request", lambda r, p=problems: p.append(f"outside request: {r.url}")
                    if not r.url.startswith((base, "data:", "blob:", "about:")) else None)
            page.goto(base + page_path, wait_until="load")
            n_math = page.evaluate("document.querySelectorAll('.math, span.math, div.math').length")
            if n_math:
                try:
                    page.wait_for_function(
                        "window.MathJax && MathJax.startup && MathJax.startup.promise"
                        " && document.querySelectorAll('mjx-container').length > 0", timeout=20000)
                    page.evaluate("MathJax.startup.promise")
                except Exception as exc:  # noqa: BLE001 - report, do not stop
                    problems.append(f"MathJax did not typeset: {exc}")
            n_typeset = page.evaluate("document.querySelectorAll('mjx-container').length")
            raw = page.evaluate(
                "(() => { const t = document.querySelector('main') || document.body;"
                " return (t.innerText.match(/\\\\\\(|\\\\\\[|\\$\\$/g) || []).length; })()")
            if raw:
                problems.append(f"{raw} raw TeX delimiters left untypeset")
            if n_math and n_typeset == 0:
                problems.append("math present but nothing typeset")
            bad_imgs = page.evaluate(
                "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
            problems += [f"image not loaded: {s}" for s in bad_imgs]
            n_img = page.evaluate("document.images.length")
            # a page made from a notebook offers that notebook (.ipynb) for download
            src_nb = ROOT / Path(page_path).with_suffix(".ipynb")
            if src_nb.exists():
                link = page.evaluate(
                    "(() => { const a = document.querySelector('a.btn-download-source-button');"
                    " return a ? [a.getAttribute('href'), a.getAttribute('download')] : null; })()")
                if not link or not link[0].endswith(".ipynb") or link[1] != src_nb.name:
                    problems.append(f"no download link to {src_nb.name} (found {link})")
                else:
                    got = (html_root / Path(page_path).parent / link[0]).resolve()
                    if not got.is_file() or got.read_bytes() != src_nb.read_bytes():
                        problems.append(f"download link {link[0]} is not the notebook {src_nb.name}")
            shot = shots / (page_path.replace("/", "_").removesuffix(".html") + ".png")
            if take_shots:
                page.screenshot(path=str(shot), full_page=True)
            problems += [f"at {DESKTOP['width']} px {box}" for box in page.evaluate(CLIP_JS)]
            column, desk, bad = figure_legibility(page, html_root, page_path, font_pt, judge=True)
            problems += [f"at {DESKTOP['width']} px {b}" for b in bad]
            # the same page at phone width: nothing may stick out sideways
            page.set_viewport_size(PHONE)
            page.wait_for_timeout(300)          # let the theme's layout settle
            problems += [f"at {PHONE['width']} px {box}" for box in page.evaluate(CLIP_JS)]
            phone_column, phone, _ = figure_legibility(page, html_root, page_path, font_pt, judge=False)
            phone_px = {r[0]: r[4] for r in phone}
            for name, nat, shown, dpi, px, sharp, box in desk:
                legible.append(f"{page_path:28} {name:36} {nat:5d} {dpi:4.0f} {column:4.0f} "
                               f"{box:4.0f} {shown:5.0f} {px:5.1f} {sharp:5.2f} "
                               f"{phone_column:4.0f} {phone_px.get(name, 0.0):5.1f}"
                               + ("  FAIL" if any(f" {name}:" in b for b in bad) else ""))
            ov = page.evaluate(OVERFLOW_JS)
            if ov["scroll"] > ov["client"] + 1:
                problems.append(f"at {PHONE['width']} px the page is {ov['scroll']} px wide "
                                f"(horizontal overflow); sticking out: {'; '.join(ov['culprits']) or '?'}")
            if take_shots:
                page.screenshot(path=str(shot.with_name(shot.stem + "-phone.png")), full_page=True)
            page.close()
            status = "ok" if not problems else "FAIL"
            print(f"{status:4} {page_path}: {n_typeset} formulas typeset, {n_img} images")
            failures += [f"{page_path}: {p}" for p in problems]
        browser.close()
    httpd.shutdown()
    if legible:
        print(f"\nchapter figures ({font_pt:g} pt text; fails at {DESKTOP['width']} px below "
              f"{MIN_TEXT_PX:g} px or {MIN_SHARPNESS:g}x PNG px per shown px):")
        print("(PNG px wide, dpi, text column, figure box and shown width in CSS px, 12 pt text "
              "in px, PNG px per shown px; at 390 px the column and text px)")
        print(f"{'page':28} {'figure':36} {'PNG':>5} {'dpi':>4} {'col':>4} {'box':>4} {'shown':>5} "
              f"{'text':>5} {'sharp':>5} {'c390':>4} {'t390':>5}")
        print("\n".join(legible))
    if failures:
        print("\n".join(["", "browser test failures:"] + failures))
        return 1
    print(f"browser test: {len(pages)} pages, all offline, typeset and loaded, no sideways "
          f"overflow at {PHONE['width']} px, no clipped equation, table or code at "
          f"{DESKTOP['width']} and {PHONE['width']} px, {len(legible)} chapter figures legible at "
          f"{DESKTOP['width']} px" + (f"; screenshots in {shots}" if take_shots else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
