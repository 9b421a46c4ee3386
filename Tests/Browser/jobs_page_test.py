#!/usr/bin/env python3
"""The jobs page (TempoJobsPage, issue #45) in a real browser: headless Chromium driven by selenium.

Starts a throwaway PostgreSQL server (initdb and pg_ctl in a temporary folder, a Unix socket, trust auth; as root
through `runuser -u postgres`), then the test app `tempo-page-demo` on it (two jobs every second, the page at
/ops/jobs behind HTTP Basic authentication), then Chromium, and checks as an operator would:

  1. the page lists both jobs, active;
  2. "Pause" on send-digest pauses it, and refresh-cache keeps running while send-digest runs no scheduled date;
  3. "Run now" on the paused job runs it once, and the run appears in its history as a "run now" run;
  4. "Resume" makes it active again and its scheduled dates run again;
  5. a request without credentials gets 401; a POST from another site's page (a form on http://localhost:PORT2
     submitted by the browser, which sends the operator's credentials along) and a POST with a foreign Origin get
     403 and change nothing; a GET of a button's path changes nothing.

Every wait is bounded (60 s for what takes a few seconds on a quiet machine), so a hang fails a check instead of the
run. Prints one line per check and closes on "N passed, M failed"; exits 1 when a check failed.

Usage: jobs_page_test.py --demo PATH_TO_tempo-page-demo [--screenshot FOLDER] [--in-memory]
(--in-memory: the app's InMemoryJobStore instead of PostgreSQL, to work on the script without a server.)
"""
import argparse
import base64
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

PASSWORD = "browser-test-secret"
AUTH = "Basic " + base64.b64encode(f"operator:{PASSWORD}".encode()).decode()
LIMIT = 60  # seconds: only a hang reaches it


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
            print(f"ok - {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL - {what}{': ' + detail if detail else ''}", flush=True)
        return condition


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway server, as Tests/TempoPostgresTests/PostgresServer.swift starts one."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="tempo-page-pg-")
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.folder, user="postgres")
        data = f"{self.folder}/data"
        self.run(["initdb", "-D", data, "-A", "trust", "-U", "tempo", "--no-sync"])
        options = f"-k {self.folder} -p {self.port} -c listen_addresses='' -c fsync=off"
        self.run(["pg_ctl", "-D", data, "-o", options, "-l", f"{self.folder}/log", "-w", "-t", "60", "start"])

    @property
    def socket(self):
        return f"{self.folder}/.s.PGSQL.{self.port}"

    def run(self, command):
        subprocess.run(self.as_postgres + command, check=True, timeout=120, stdout=subprocess.DEVNULL)

    def remove(self):
        try:
            self.run(["pg_ctl", "-D", f"{self.folder}/data", "-m", "fast", "-w", "-t", "60", "stop"])
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class Demo:
    """The test app, started on the server, on a free port."""

    def __init__(self, binary, postgres):
        store = ["--socket", postgres.socket] if postgres else []
        self.process = subprocess.Popen(
            [binary, "--password", PASSWORD, "--every-ms", "1000", "--lease-ms", "2000"] + store,
            stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        self.url = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                print(f"  demo: {line.rstrip()}", flush=True)
                if line.startswith("listening on "):
                    self.url = line.split()[-1]
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120):
            raise RuntimeError("tempo-page-demo did not say where it listens within 120 s")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def request(url, method="GET", headers=None, body=None):
    """(status, text) of a request made without a browser."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def browser():
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(LIMIT)
    # The operator's credentials on every request the browser makes, as a browser that cached Basic credentials
    # sends them (to cross-site form posts too: that is what the page's own checks must refuse).
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": AUTH}})
    return driver


def until(what, condition, limit=LIMIT):
    """Polls `condition` (retrying on a page that reloaded under it) until it returns a true value."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + limit
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except (StaleElementReferenceException, NoSuchElementException) as error:
            last = error
        time.sleep(0.2)
    raise TimeoutError(f"{what}: not within {limit} s ({last})")


class Page:
    def __init__(self, driver, url):
        self.driver = driver
        self.url = url

    def overview(self):
        self.driver.get(self.url)

    def job(self, name):
        self.driver.get(f"{self.url}/job?name={name}")

    def state(self, name):
        """The state shown in the job's row of the overview."""
        from selenium.webdriver.common.by import By

        self.overview()
        return self.driver.find_element(By.XPATH, f"//tr[td/a[text()='{name}']]//span[contains(@class,'state')]").text

    def press(self, name, label, on_job_view=False):
        """Clicks a button of the job (on its row of the overview, or on its own view) and waits for the reload."""
        from selenium.webdriver.common.by import By

        def click():
            if on_job_view:
                self.job(name)
                button = self.driver.find_element(By.XPATH, f"//div[@class='actions']//button[text()='{label}']")
            else:
                self.overview()
                button = self.driver.find_element(By.XPATH, f"//tr[td/a[text()='{name}']]//button[text()='{label}']")
            button.click()
            return True

        until(f"press {label} on {name}", click)

    def runs(self, name):
        """The job's history as (planned date, trigger, outcome, error) rows, newest first."""
        from selenium.webdriver.common.by import By

        self.job(name)
        rows = []
        for row in self.driver.find_elements(By.CSS_SELECTOR, "tr.run"):
            cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            rows.append((cells[0], cells[1], cells[6], cells[7]))
        return rows

    def scheduled(self, name):
        return [run for run in self.runs(name) if run[1] == "schedule"]


def serve_attacker_page(target):
    """A page of another site (http://localhost:PORT) with a form that posts "pause refresh-cache" to the page."""
    html = f"""<!DOCTYPE html><html><body><form method="post" action="{target}/pause">
<input type="hidden" name="job" value="refresh-cache"><button id="go" type="submit">Win a prize</button>
</form></body></html>""".encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args):
            pass

    # Threads: a connection the browser opens ahead and leaves idle must not hold the server's shutdown.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(checks, demo, screenshot):
    from selenium.webdriver.common.by import By

    driver = browser()
    try:
        page = Page(driver, demo.url)
        # 1. Both jobs, active, with runs.
        until("both jobs listed with a run", lambda: page.runs("refresh-cache") and page.runs("send-digest"))
        checks.check(page.state("refresh-cache") == "active" and page.state("send-digest") == "active",
                     "the page lists both jobs, active")

        # 2. Pause send-digest; refresh-cache keeps running, send-digest runs no scheduled date.
        page.press("send-digest", "Pause")
        checks.check(page.state("send-digest") == "paused", "Pause shows send-digest paused")
        checks.check(page.state("refresh-cache") == "active", "refresh-cache stays active")
        time.sleep(5)  # two leases and a second: the pause reaches every scheduler, a run begun before it ends
        paused_last = (page.scheduled("send-digest") or [("",)])[0][0]
        other_last = page.scheduled("refresh-cache")[0][0]
        newer = until("three new runs of refresh-cache",
                      lambda: len([r for r in page.scheduled("refresh-cache") if r[0] > other_last]) >= 3 and
                      [r for r in page.scheduled("refresh-cache") if r[0] > other_last])
        checks.check(len(newer) >= 3, "refresh-cache keeps running while send-digest is paused",
                     f"{len(newer)} new runs")
        after = [r for r in page.scheduled("send-digest") if r[0] > paused_last]
        checks.check(after == [], "the paused send-digest ran no scheduled date", f"{after}")
        failures = [r for r in page.runs("refresh-cache") if r[2] == "failed"]
        checks.check(any(r[3] == "upstream returned <503 Service Unavailable>" for r in failures),
                     "a failed run's error shows as text (markup escaped)", f"{failures[:1]}")
        if screenshot:
            os.makedirs(screenshot, exist_ok=True)
            page.overview()
            driver.save_screenshot(os.path.join(screenshot, "jobs-page-overview.png"))
            page.job("refresh-cache")
            driver.save_screenshot(os.path.join(screenshot, "jobs-page-job.png"))

        # 3. Run now on the paused job: one run, in the history.
        page.press("send-digest", "Run now", on_job_view=True)
        manual = until("the run-now run in send-digest's history",
                       lambda: [r for r in page.runs("send-digest") if r[1] == "run now"])
        checks.check(len(manual) == 1 and manual[0][2] == "succeeded", "Run now ran the paused job once",
                     f"{manual}")
        time.sleep(3)
        checks.check(len([r for r in page.runs("send-digest") if r[1] == "run now"]) == 1,
                     "the run-now run is in the history once, three seconds later")
        checks.check(page.state("send-digest") == "paused", "send-digest is still paused after its run-now run")

        # 4. Resume: scheduled dates run again.
        page.press("send-digest", "Resume", on_job_view=True)
        checks.check(page.state("send-digest") == "active", "Resume shows send-digest active")
        resumed = until("a scheduled run of send-digest after the resume",
                        lambda: [r for r in page.scheduled("send-digest") if r[0] > paused_last])
        checks.check(len(resumed) >= 1, "send-digest runs its dates again after Resume")

        # 5. Refusals.
        status, text = request(demo.url)
        checks.check(status == 401 and "refresh-cache" not in text, "a request without credentials gets 401",
                     f"{status}")
        attacker = serve_attacker_page(demo.url)
        try:
            driver.get(f"http://localhost:{attacker.server_address[1]}/")
            driver.find_element(By.ID, "go").click()
            body = until("the answer to the cross-site form", lambda: driver.find_element(By.TAG_NAME, "body").text)
            checks.check("cross-site request refused" in body, "a cross-site POST from the browser is refused",
                         body[:200])
        finally:
            attacker.shutdown()
        checks.check(page.state("refresh-cache") == "active", "the cross-site POST paused nothing")
        status, text = request(f"{demo.url}/pause", "POST", {
            "Authorization": AUTH, "Origin": "https://evil.example",
            "Content-Type": "application/x-www-form-urlencoded"}, b"job=refresh-cache&token=x")
        checks.check(status == 403, "a POST with a foreign Origin gets 403", f"{status} {text[:100]}")
        opener = urllib.request.build_opener(NoRedirect)
        status = None
        try:
            status = opener.open(urllib.request.Request(f"{demo.url}/pause?job=refresh-cache",
                                                        headers={"Authorization": AUTH}), timeout=30).status
        except urllib.error.HTTPError as error:
            status = error.code
        checks.check(status in (404, 405), "a GET of the pause path is not a pause", f"{status}")
        checks.check(page.state("refresh-cache") == "active", "refresh-cache is still active after the refusals")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True, help="the tempo-page-demo binary")
    parser.add_argument("--screenshot", help="a folder for the page's screenshots")
    parser.add_argument("--in-memory", action="store_true", help="no PostgreSQL: the app's in-memory store")
    args = parser.parse_args()
    checks = Checks()
    postgres = None if args.in_memory else Postgres()
    demo = None
    try:
        demo = Demo(args.demo, postgres)
        run(checks, demo, args.screenshot)
    except Exception as error:  # a hang or a missing element: one failure, named
        checks.check(False, "the browser test ran to its end", f"{type(error).__name__}: {error}")
    finally:
        if demo:
            demo.stop()
        if postgres:
            postgres.remove()
    print(f"{checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
