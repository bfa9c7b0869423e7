#!/usr/bin/env python3
"""Drive headless Chromium over its DevTools protocol (a pipe: stdlib only) on one
HTML report and print what a test asserts, as JSON: console errors, every network
request, the table before and after a filter, a row's opened lists; a screenshot is
written when asked. Used by tests/cli/browser.rs; never reaches the network (the
page is a local file and Chromium runs with background networking off)."""
import base64, fcntl, json, os, subprocess, sys, tempfile

def main():
    chromium, page, shot = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    url = "file://" + page
    profile = tempfile.mkdtemp(prefix="ragdiff-chromium-")
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    # Chromium reads fd 3 and writes fd 4: move the ends above 4 first, so that
    # neither dup2 below overwrites the other end or is a no-op keeping CLOEXEC.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_chrome_r, from_chrome_w)]
    def fds():
        os.dup2(high[0], 3)
        os.dup2(high[1], 4)
    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-extensions",
         "--user-data-dir=" + profile, "--remote-debugging-pipe",
         "--window-size=1200,1400", "about:blank"],
        close_fds=False, preexec_fn=fds,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for fd in [to_chrome_r, from_chrome_w] + high:
        os.close(fd)
    out = os.fdopen(to_chrome_w, "wb", buffering=0)
    inp = os.fdopen(from_chrome_r, "rb", buffering=0)
    buf = b""
    events = []
    ids = [0]
    session = [None]

    def read_msg():
        nonlocal buf
        while b"\0" not in buf:
            chunk = inp.read(65536)
            if not chunk:
                raise SystemExit("chromium closed the pipe")
            buf += chunk
        msg, buf = buf.split(b"\0", 1)
        return json.loads(msg)

    def send(method, params=None, in_session=True):
        ids[0] += 1
        msg = {"id": ids[0], "method": method, "params": params or {}}
        if in_session and session[0]:
            msg["sessionId"] = session[0]
        out.write(json.dumps(msg).encode() + b"\0")
        while True:
            m = read_msg()
            if m.get("id") == ids[0]:
                if "error" in m:
                    raise SystemExit(f"{method}: {m['error']}")
                return m.get("result", {})
            events.append(m)

    def wait_for(method):
        for i, e in enumerate(events):
            if e.get("method") == method:
                return events.pop(i)
        for _ in range(100000):
            m = read_msg()
            events.append(m)
            if m.get("method") == method:
                return events.pop()
        raise SystemExit("no " + method)

    def js(expr):
        r = send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise SystemExit("script failed: " + json.dumps(r["exceptionDetails"]))
        return r["result"].get("value")

    try:
        target = send("Target.createTarget", {"url": "about:blank"}, False)["targetId"]
        session[0] = send("Target.attachToTarget", {"targetId": target, "flatten": True}, False)["sessionId"]
        for domain in ["Page", "Runtime", "Log", "Network"]:
            send(domain + ".enable")
        send("Page.navigate", {"url": url})
        wait_for("Page.loadEventFired")
        result = {"ready": js("document.body.dataset.ready || ''")}
        # Milliseconds from navigation to the load event, the script done (a figure
        # for scripts/html-report.sh; no test asserts it).
        result["ready_ms"] = js("Math.round(performance.now())")
        result["rows"] = js("document.querySelectorAll('#changed-table tbody tr.row').length")
        result["headers"] = js("Array.from(document.querySelectorAll('#changed-table thead th')).map(t => t.textContent)")
        result["cells"] = js("Array.from(document.querySelectorAll('#changed-table tbody tr.row')).map(r => Array.from(r.cells).map(c => c.textContent))")
        result["statuses"] = js("Array.from(document.querySelectorAll('#changed-table tbody tr.row td:nth-child(2)')).map(t => t.textContent)")
        result["filtered"] = js("""(() => {
            const s = document.getElementById('filter-status');
            s.value = 'fixed'; s.dispatchEvent(new Event('change'));
            const rows = Array.from(document.querySelectorAll('#changed-table tbody tr.row'));
            const out = rows.map(r => r.cells[1].textContent);
            s.value = ''; s.dispatchEvent(new Event('change'));
            return out; })()""")
        result["opened"] = js("""(() => {
            const row = document.querySelector('#changed-table tbody tr.row');
            row.click();
            const d = row.nextSibling;
            if (!d || !d.classList.contains('detail')) return null;
            return { id: row.dataset.id,
                     lists: Array.from(d.querySelectorAll('ol')).map(ol =>
                         Array.from(ol.children).map(li => li.textContent)),
                     cut: d.querySelectorAll('li.cut').length }; })()""")
        result["sorted"] = js("""(() => {
            const th = document.querySelectorAll('#changed-table thead th')[5];
            th.click();
            return Array.from(document.querySelectorAll('#changed-table tbody tr.row')).map(r => r.cells[5].textContent); })()""")
        js("document.querySelectorAll('#changed-table thead th')[5].click()")
        # Sorted by the last column (a named measure's delta under --measure).
        result["sorted_last"] = js("""(() => {
            const ths = document.querySelectorAll('#changed-table thead th');
            ths[ths.length - 1].click();
            return Array.from(document.querySelectorAll('#changed-table tbody tr.row')).map(r => r.cells[r.cells.length - 1].textContent); })()""")
        shot_data = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(shot_data))
        # Drain what is pending, then read the events.
        js("1")
        errors, requests = [], []
        for e in events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                errors.append("console: " + json.dumps(p.get("args")))
            elif m == "Runtime.exceptionThrown":
                errors.append("exception: " + json.dumps(p.get("exceptionDetails")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                errors.append("log: " + p["entry"].get("text", ""))
            elif m == "Network.requestWillBeSent":
                requests.append(p["request"]["url"])
        result["errors"] = errors
        result["requests"] = requests
        result["url"] = url
        print(json.dumps(result))
    finally:
        proc.kill()
        proc.wait()

if __name__ == "__main__":
    main()
