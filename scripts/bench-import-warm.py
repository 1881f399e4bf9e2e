#!/usr/bin/env python3
"""`cardatlas import` with a warm geocoder cache: N rows, each a distinct street address and no
lon/lat, imported once through --geocoder nominatim (a stand-in answering every /search at once,
so that the first run is quick: only its answers matter), then again into a fresh data directory
holding only the first run's geocode-cache.sqlite. The second run makes no request (checked:
the stand-in counts them) and is timed as bench-import.py times its runs: rows/s and the
importer's RSS from row 10,000 to the end.

  scripts/bench-import-warm.py [--rows 200000] [--binary .build/release/cardatlas]

Figures go to docs/BENCHMARKS.md ("Imports")."""
import argparse, json, os, shutil, subprocess, tempfile, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CITIES = ["Vaduz", "Schaan", "Prattville", "Montgomery", "Zurich", "Berlin", "Lyon", "Madrid"]


class StandIn(BaseHTTPRequestHandler):
    requests = 0
    lock = threading.Lock()

    def do_GET(self):
        with StandIn.lock:
            StandIn.requests += 1
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        street = query.get("street", [""])[0]
        city = query.get("city", [""])[0]
        number = sum(map(ord, street + city))
        lat, lon = 47.0 + (number % 1000) / 10000, 9.5 + (number % 997) / 10000
        body = json.dumps([{
            "place_id": number, "osm_type": "node", "osm_id": number,
            "lat": "%.6f" % lat, "lon": "%.6f" % lon, "display_name": "%s, %s" % (street, city),
            "boundingbox": ["%.6f" % lat, "%.6f" % lat, "%.6f" % lon, "%.6f" % lon],
            "importance": 0.5, "place_rank": 30, "category": "place", "type": "house",
        }]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def generate(path, rows):
    with open(path, "w") as f:
        f.write("externalId,ownerEmail,firstName,lastName,company,street,city\n")
        for i in range(1, rows + 1):
            f.write("e%d,owner%d@example.com,First%d,Last%d,Company %d,%d Main Street,%s\n"
                    % (i, i, i, i, i % 500, i, CITIES[i % len(CITIES)]))


def main():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "bench_import", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-import.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--binary", default=".build/release/cardatlas")
    a = p.parse_args()
    binary = os.path.abspath(a.binary)
    env = dict(os.environ, CARDATLAS_DATA=os.path.abspath("data"))
    work = tempfile.mkdtemp(prefix="bench-import-warm-")
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d" % server.server_address[1]
    try:
        source = os.path.join(work, "cards.csv")
        generate(source, a.rows)

        def run(data):
            args = [binary, "import", source, "--data", data, "--geocoder", "nominatim",
                    "--geocoder-url", url, "--rate", "100000", "--concurrency", "8",
                    "--report", os.path.join(work, "report.csv"), "--progress-interval", "1000"]
            start = time.time()
            proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            samples = []
            while proc.poll() is None:
                row = 0
                try:
                    with open(source + ".checkpoint") as f:
                        row = json.load(f)["row"]
                except (OSError, ValueError):
                    pass
                rss = bench.rss_kb(proc.pid)
                if rss:
                    samples.append((time.time(), row, rss))
                time.sleep(0.1)
            out, err = proc.communicate()
            return time.time(), samples, out.decode().strip()

        cold = os.path.join(work, "cold")
        _, _, out = run(cold)
        print("cold run: %s (%d requests)" % (out.splitlines()[0], StandIn.requests))
        warm = os.path.join(work, "warm")
        os.mkdir(warm)
        shutil.copy(os.path.join(cold, "geocode-cache.sqlite"), warm)
        before = StandIn.requests
        end, samples, out = run(warm)
        print("warm run: %s" % out.splitlines()[0])
        print("requests during the warm run: %d" % (StandIn.requests - before))
        after = [s for s in samples if s[1] >= 10_000]
        if after:
            low, high = min(s[2] for s in after), max(s[2] for s in after)
            t0, r0 = after[0][0], after[0][1]
            print("RSS from row %d to the end: %.1f MB .. %.1f MB (growth %.1f MB)"
                  % (r0, low / 1024, high / 1024, (high - low) / 1024))
            print("rows/s from row %d to the end: %.0f" % (r0, (a.rows - r0) / (end - t0)))
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
