#!/usr/bin/env python3
"""Opens pages in headless Chromium and reports what a visitor's browser saw, as JSON.

    check_pages.py PLAN.json REPORT.json

PLAN: {"origin": "http://127.0.0.1:8080", "artifacts": "<dir for screenshots>",
       "schemes": ["light", "dark"],
       "pages": [{"name": "card", "path": "/c/ana",
                  "waitFor": "<optional JS expression, polled until truthy>",
                  "steps": [{"run": "<JS run after waitFor>", "waitFor": "<polled after it>"}],
                  "evaluate": {"<key>": "<optional JS expression, its value reported as JSON text>"}}]}

REPORT: {"pages": [{"name", "scheme", "status", "dom", "evaluated", "requests", "console",
                    "dialogs", "screenshot"}]}: the document's HTTP status, a summary of the
rendered DOM (title, h1s, links, scripts and their sources, event-handler attributes, images,
overflow), every
URL the page requested, every console error, exception or log error, every dialog opened.
The Swift tests (Tests/WebTests/BrowserTests.swift) assert on it; this script only observes.

Chromium starts once, driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
commands on fd 3, replies on fd 4, NUL-terminated JSON), so no driver and no Python package.
"""

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

VIEWPORT = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
TIMEOUT = 20.0

# What the tests read of a page: plain data, computed in the page after load.
DOM_SUMMARY = r"""(() => {
  const attrs = (el) => Array.from(el.attributes).map((a) => a.name);
  const all = Array.from(document.querySelectorAll('*'));
  const h1 = Array.from(document.querySelectorAll('h1'));
  return {
    title: document.title,
    h1: h1.map((e) => e.textContent),
    h1Boxes: h1.map((e) => { const r = e.getBoundingClientRect();
      return {width: r.width, height: r.height, left: r.left, right: r.right}; }),
    text: document.body ? document.body.innerText : '',
    links: Array.from(document.querySelectorAll('a')).map((a) => ({
      href: a.getAttribute('href'), className: a.className, text: a.textContent.trim(),
      download: a.hasAttribute('download'), protocol: a.href ? new URL(a.href).protocol : ''})),
    scripts: document.scripts.length,
    scriptSources: Array.from(document.scripts).map((s) => s.getAttribute('src')),
    handlers: all.filter((el) => attrs(el).some((n) => n.startsWith('on')))
      .map((el) => el.outerHTML.slice(0, 200)),
    elements: Array.from(new Set(all.map((el) => el.localName))).sort(),
    images: Array.from(document.images).map((i) => ({src: i.getAttribute('src'),
      className: i.className, loaded: i.complete && i.naturalWidth > 0})),
    iframes: document.querySelectorAll('iframe, object, embed, frame').length,
    styles: document.querySelectorAll('style').length,
    links_rel: document.querySelectorAll('link').length,
    background: getComputedStyle(document.body).backgroundColor,
    color: getComputedStyle(document.body).color,
    scrollWidth: document.documentElement.scrollWidth,
    // Blocks whose content spills out of their box: text that does not wrap. (A mobile
    // viewport widens to fit such content, so the page's own width does not show it.)
    overflowing: all.filter((el) => getComputedStyle(el).display !== 'inline'
        && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      .map((el) => el.outerHTML.slice(0, 120)),
  };
})()"""


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="cardatlas-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            raise SystemExit("chromium is not installed")
        args = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
            "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-sync", "--disable-background-networking",
            "--disable-component-update", "--disable-default-apps", "--mute-audio",
            "--hide-scrollbars", "--disable-dev-shm-usage", "about:blank",
        ]
        # The shell puts the two pipe ends on fds 3 and 4, where Chromium looks for them.
        self.process = subprocess.Popen(
            ["sh", "-c", f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}', "sh", *args],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            # Never a read that blocks past the deadline: a page that never answers fails.
            if remaining <= 0 or not select.select([self._from_browser], [], [], remaining)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """A command's result; events that arrive meanwhile are kept in self.events."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _event(self, event):
        self.events.append(event)
        # A dialog (alert) blocks the page until answered: it is reported, and dismissed at once
        # so that the page's load can finish. The answer's reply (id 0) is ignored.
        if event.get("method") == "Page.javascriptDialogOpening":
            message = {"id": 0, "method": "Page.handleJavaScriptDialog",
                       "params": {"accept": False}, "sessionId": event.get("sessionId")}
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def wait_for(self, method, session, since, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[since:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            since = len(self.events)
            self._event(self._read(deadline))


def visit(browser, session, origin, page, scheme, artifacts):
    browser.send("Emulation.setEmulatedMedia",
                 {"features": [{"name": "prefers-color-scheme", "value": scheme}]}, session)
    # Through a blank page: from /map#a to /map#b would be a fragment's move, with no load.
    start = len(browser.events)
    browser.send("Page.navigate", {"url": "about:blank"}, session)
    browser.wait_for("Page.loadEventFired", session, start)
    start = len(browser.events)
    url = origin + page["path"]
    browser.send("Page.navigate", {"url": url}, session)
    browser.wait_for("Page.loadEventFired", session, start)
    wait_for(browser, session, page, page.get("waitFor"))
    # Then what a visitor does (a click), each step until its own condition holds.
    for step in page.get("steps", []):
        evaluate(browser, session, step["run"])
        wait_for(browser, session, page, step["waitFor"])
    dom = evaluate(browser, session, DOM_SUMMARY)
    evaluated = {k: json.dumps(evaluate(browser, session, v))
                 for k, v in page.get("evaluate", {}).items()}
    # The whole page, not only the first screen.
    height = max(VIEWPORT["height"], int(evaluate(
        browser, session, "document.documentElement.scrollHeight")))
    shot = browser.send("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height, "scale": 1}},
        session)
    path = os.path.join(artifacts, f"{page['name']}-{scheme}.png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))

    events = [e for e in browser.events[start:] if e.get("sessionId") == session]
    requests, console, dialogs, status = [], [], [], None
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Network.requestWillBeSent":
            requests.append(p["request"]["url"])
        elif method == "Network.responseReceived" and p.get("type") == "Document":
            status = p["response"]["status"]
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            console.append("console: " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            console.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            entry = p["entry"]
            # The document's own 404 or 410 is the page under test, asserted as its status.
            if entry.get("source") == "network" and entry.get("url") == url:
                continue
            console.append(f"log ({entry.get('source')}): {entry.get('text')}")
        elif method == "Page.javascriptDialogOpening":
            dialogs.append(p.get("message", ""))
    dom["viewportWidth"] = VIEWPORT["width"]
    return {"name": page["name"], "scheme": scheme, "url": url, "status": status, "dom": dom,
            "evaluated": evaluated, "requests": requests, "console": console,
            "dialogs": dialogs, "screenshot": path}


def wait_for(browser, session, page, condition):
    deadline = time.monotonic() + TIMEOUT
    while condition and not holds(browser, session, condition):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{page['name']}: never held: {condition}")
        time.sleep(0.05)


def holds(browser, session, condition):
    """The condition's value; false while a step's navigation replaces the document (the old
    one's context is gone, the new one's not there yet)."""
    try:
        return evaluate(browser, session, condition)
    except RuntimeError:
        return False


def evaluate(browser, session, expression):
    result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          session)
    if "exceptionDetails" in result:
        raise RuntimeError(f"evaluate failed: {result['exceptionDetails']}")
    return result["result"].get("value")


def main():
    plan_path, report_path = sys.argv[1], sys.argv[2]
    with open(plan_path) as f:
        plan = json.load(f)
    os.makedirs(plan["artifacts"], exist_ok=True)
    browser = Browser()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            browser.send(domain + ".enable", {}, session)
        browser.send("Emulation.setDeviceMetricsOverride", VIEWPORT, session)
        # Nothing cached between pages: every request each page makes is seen.
        browser.send("Network.setCacheDisabled", {"cacheDisabled": True}, session)
        pages = []
        for scheme in plan.get("schemes", ["light", "dark"]):
            for page in plan["pages"]:
                pages.append(visit(browser, session, plan["origin"], page, scheme,
                                   plan["artifacts"]))
    finally:
        browser.close()
    with open(report_path, "w") as f:
        json.dump({"pages": pages}, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
