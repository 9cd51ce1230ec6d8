"""The HTML transcript (course_helpers.display) as JupyterLab shows it, at 1280 and 800 px.

A notebook with tool calls and results is run through the UI; then, at each width, every
rendered transcript must be visible, must fit its output area (no horizontal scrolling of the
output, the transcript or its JSON blocks) and its text must be readable against its own
background (WCAG contrast of at least 4.5:1, computed from the page's styles).
"""

from __future__ import annotations

import pytest

from .conftest import NOTEBOOKS, WIDTHS, LabPage, skip_without_browser

skip_without_browser()

# The first of these that exists: 03 has tool_use / tool_result pairs, 01 and 00 plain text.
CANDIDATES = ("03_pair_tool_results.ipynb", "01_make_a_single_call.ipynb", "00_start_here.ipynb")
NOTEBOOK = next((name for name in CANDIDATES if (NOTEBOOKS / name).exists()), None)
MIN_CONTRAST = 4.5

pytestmark = pytest.mark.skipif(NOTEBOOK is None, reason="none of notebooks 03, 01, 00 exists yet")

# For every transcript: its size against the output area, and the worst-contrast text in it.
_MEASURE = """
async () => {
  // Two rendered frames first: a starved renderer must lay the page out before it is measured.
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const parse = (colour) => {
    const m = colour.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a] = m[1].split(',').map((x) => parseFloat(x));
    return { r, g, b, a: a === undefined ? 1 : a };
  };
  const luminance = ({ r, g, b }) => {
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const contrast = (element) => {
    const fg = luminance(parse(getComputedStyle(element).color));
    const bg = luminance(background(element));
    return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  };
  const overflowing = (e) => e.scrollWidth > e.clientWidth + 1;
  return [...document.querySelectorAll('.jp-OutputArea-output .course-transcript')].map((t, i) => {
    const output = t.closest('.jp-OutputArea-output');
    const box = t.getBoundingClientRect(), area = output.getBoundingClientRect();
    let worst = { ratio: 99, text: '' };
    for (const e of t.querySelectorAll('*')) {
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !e.getClientRects().length) continue;
      const ratio = contrast(e);
      if (ratio < worst.ratio) worst = { ratio, text: e.textContent.trim().slice(0, 40) };
    }
    return {
      index: i,
      width: Math.round(box.width),
      outputOverflow: overflowing(output),
      transcriptOverflow: overflowing(t),
      sticksOut: box.right > area.right + 1,
      wideBlocks: [...t.querySelectorAll('pre, div')].filter(overflowing).length,
      worst,
      cards: t.querySelectorAll('[id*="-call-"], a[href*="-call-"]').length,
    };
  });
}
"""


def settled_measures(lab_page: LabPage, tries: int = 100, agreeing: int = 3) -> list[dict]:
    """Measures once JupyterLab's layout has settled after a resize.

    On a loaded machine the notebook panel takes a while to reflow; a measure taken halfway
    through shows a squeezed transcript that the person never sees. Each measure waits for two
    rendered frames (a stalled renderer cannot make two measures agree by not drawing), and
    `agreeing` equal measures in a row, 100 ms apart, count as settled. A layout that is wrong
    for good is stable too, and still fails.
    """
    measures = [lab_page.page.evaluate(_MEASURE)]
    for _ in range(tries):
        lab_page.page.wait_for_timeout(100)
        measures.append(lab_page.page.evaluate(_MEASURE))
        if len(measures) >= agreeing and all(m == measures[-1] for m in measures[-agreeing:]):
            break
    return measures[-1]


def test_transcript_fits_and_is_readable(lab_page: LabPage) -> None:
    from playwright.sync_api import expect

    lab_page.open(NOTEBOOK)
    lab_page.run_all()
    transcripts = lab_page.page.locator(".jp-OutputArea-output .course-transcript")
    expect(transcripts.first).to_be_visible()
    assert transcripts.count() >= 1

    for width in WIDTHS:
        lab_page.page.set_viewport_size({"width": width, "height": 900})
        measures = settled_measures(lab_page)
        assert measures, f"{width} px: no transcript rendered"
        for m in measures:
            where = f"{width} px, transcript {m['index']}"
            assert not m["outputOverflow"], f"{where}: the output area scrolls sideways: {m}"
            assert not m["transcriptOverflow"], f"{where}: the transcript is wider than itself: {m}"
            assert not m["sticksOut"], f"{where}: the transcript sticks out of its output: {m}"
            assert not m["wideBlocks"], f"{where}: {m['wideBlocks']} blocks scroll sideways: {m}"
            assert m["width"] > 200, f"{where}: the transcript is squeezed: {m}"
            assert m["worst"]["ratio"] >= MIN_CONTRAST, f"{where}: low contrast: {m['worst']}"

    # Screenshots of the richest transcript (most tool calls and results) at each width.
    richest = max(measures, key=lambda m: m["cards"])["index"]
    lab_page.screenshot("transcript", transcripts.nth(richest))
    for width in WIDTHS:
        lab_page.page.set_viewport_size({"width": width, "height": 900})
        lab_page.page.wait_for_timeout(150)
        path = lab_page.results / f"{lab_page.name}-element-{width}.png"
        transcripts.nth(richest).screenshot(path=str(path))
        lab_page.shots.append(path)
