#!/usr/bin/env python3
"""Checks the DOM a headless browser made of a commdx HTML report (chromium --dump-dom).

  check_dom.py DOM.html safe                  nothing active: no script/img/iframe/object/embed,
                                              no on* attribute, no javascript: URL
  check_dom.py DOM.html charts RANKS [any]    the step timeline has compute/comm/idle lanes for
                                              ranks 0..RANKS-1 with segments on each rank's
                                              compute lane, a size histogram has a non-empty
                                              bar, a bandwidth chart has measured points and a
                                              dashed expected line (with "any": the line may be
                                              missing, when the link is unknown)
  check_dom.py DOM.html text STRING           STRING is in the page's text (as text, not markup)

Exit 0 when the check holds, 1 with the reason otherwise.
"""
import sys
from html.parser import HTMLParser

ACTIVE = {"script", "img", "iframe", "object", "embed", "link", "base", "form"}


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, attrs) of open elements
        self.elements = []  # (tag, attrs, ancestors' (tag, attrs))
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a, list(self.stack)))
        if tag not in ("br", "meta", "line", "circle", "polyline", "rect", "hr", "input"):
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), list(self.stack)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.text.append(data)


def classes(attrs):
    return attrs.get("class", "").split()


def inside(ancestors, tag, cls):
    return any(t == tag and cls in classes(a) for t, a in ancestors)


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def check_safe(dom):
    for tag, attrs, _ in dom.elements:
        if tag in ACTIVE:
            fail(f"a <{tag}> element is in the DOM")
        for k, v in attrs.items():
            if k.startswith("on"):
                fail(f"<{tag}> has an event handler attribute {k}")
            if v and "javascript:" in v.replace(" ", "").lower():
                fail(f"<{tag} {k}> holds a javascript: URL")
    print(f"ok: {len(dom.elements)} elements, nothing active")


def check_charts(dom, ranks, need_expected):
    lanes = [a.get("data-lane") for t, a, anc in dom.elements
             if t == "g" and "lane" in classes(a) and inside(anc, "svg", "timeline")]
    want = [f"rank {r} {k}" for r in range(ranks) for k in ("compute", "comm", "idle")]
    if lanes != want:
        fail(f"timeline lanes {lanes}, expected {want}")
    for r in range(ranks):
        segs = [a for t, a, anc in dom.elements
                if t == "rect" and "seg" in classes(a)
                and any(at == "g" and aa.get("data-lane") == f"rank {r} compute" for at, aa in anc)]
        if not segs:
            fail(f"no segment on rank {r}'s compute lane")
    bars = [float(a.get("data-value", "0")) for t, a, anc in dom.elements
            if t == "rect" and "bar" in classes(a) and inside(anc, "svg", "histogram")]
    if not any(v > 0 for v in bars):
        fail(f"no histogram bar with a count ({len(bars)} bars)")
    series = {a.get("data-series"): int(a.get("data-points", "0")) for t, a, anc in dom.elements
              if t == "g" and "series" in classes(a) and inside(anc, "svg", "xy")}
    measured = series.get("achieved (median per size)", 0)
    if measured < 1:
        fail(f"no measured bandwidth points: {series}")
    dashed = [a for t, a, anc in dom.elements
              if t == "polyline" and a.get("stroke-dasharray") and inside(anc, "svg", "xy")]
    has_line = "expected for the link" in series and dashed
    if need_expected and not has_line:
        fail(f"no dashed expected line: {series}")
    print(f"ok: {len(lanes)} lanes, {len(bars)} histogram bars, {measured} bandwidth points"
          + (" against the expected line" if has_line else " (no expected line)"))


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    dom = Dom()
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        dom.feed(f.read())
    what = sys.argv[2]
    if what == "safe":
        check_safe(dom)
    elif what == "charts":
        check_charts(dom, int(sys.argv[3]), not (len(sys.argv) > 4 and sys.argv[4] == "any"))
    elif what == "text":
        if sys.argv[3] not in "".join(dom.text):
            fail(f"{sys.argv[3]!r} is not in the page's text")
        print(f"ok: text holds {sys.argv[3]!r}")
    else:
        fail(f"unknown check {what}")


if __name__ == "__main__":
    main()
