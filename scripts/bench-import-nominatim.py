#!/usr/bin/env python3
"""Is an import against the local Nominatim limited by the geocoder, not by us? Measures, in
one run, Nominatim alone answering N distinct structured address searches with C requests in
flight (the requests `cardatlas import` sends), then `cardatlas import` of the same N addresses
with `--concurrency C` into a fresh data directory (empty cache, no rate limit). The goal is
import rows/s >= 0.9 x Nominatim's own requests/s.

  scripts/bench-import-nominatim.py [--addresses 600] [--concurrency 4]
      [--nominatim http://127.0.0.1:8088] [--binary .build/release/cardatlas]

The addresses are found by reverse geocoding random points of the extract (Liechtenstein), so
every one is a real house Nominatim knows. Figures go to docs/BENCHMARKS.md ("Imports")."""
import argparse, concurrent.futures, json, os, random, shutil, subprocess, tempfile, time
import urllib.parse, urllib.request


def get(base, path, params):
    url = base + path + "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(urllib.request.Request(
            url, headers={"User-Agent": "cardatlas-bench"}), timeout=30) as r:
        return json.load(r)


def addresses(base, count):
    rng = random.Random(11)
    found = {}
    tries = 0
    while len(found) < count and tries < count * 40:
        tries += 1
        r = get(base, "/reverse", dict(lon=rng.uniform(9.48, 9.62), lat=rng.uniform(47.06, 47.24),
                                       format="jsonv2", zoom=18, addressdetails=1))
        a = r.get("address", {})
        city = a.get("town") or a.get("village") or a.get("city")
        if "house_number" in a and "road" in a and city and "," not in a["house_number"]:
            street = "%s %s" % (a["road"], a["house_number"])
            found[(street, city)] = dict(street=street, city=city,
                                         postcode=a.get("postcode", ""))
    return list(found.values())


def alone(base, rows, concurrency):
    def search(row):
        params = dict(format="jsonv2", addressdetails=1, street=row["street"], city=row["city"],
                      countrycodes="li", limit=1)
        if row["postcode"]:
            params["postalcode"] = row["postcode"]
        return len(get(base, "/search", params))
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        hits = sum(1 for n in pool.map(search, rows) if n)
    return len(rows) / (time.time() - start), hits


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--addresses", type=int, default=600)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--nominatim", default="http://127.0.0.1:8088")
    p.add_argument("--binary", default=".build/release/cardatlas")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="bench-import-nominatim-")
    try:
        rows = addresses(a.nominatim, a.addresses)
        source = os.path.join(work, "addresses.csv")
        with open(source, "w") as f:
            f.write("externalId,ownerEmail,firstName,street,postcode,city,country\n")
            for i, row in enumerate(rows):
                f.write("a%d,owner%d@example.com,Card,%s,%s,%s,LI\n"
                        % (i, i, row["street"], row["postcode"], row["city"]))
        # Once to warm Nominatim's own caches (PostgreSQL pages), not measured.
        alone(a.nominatim, rows, a.concurrency)
        own, hits = alone(a.nominatim, rows, a.concurrency)
        start = time.time()
        run = subprocess.run(
            [os.path.abspath(a.binary), "import", source, "--data", os.path.join(work, "var"),
             "--geocoder", "nominatim", "--geocoder-url", a.nominatim, "--rate", "100000",
             "--concurrency", str(a.concurrency), "--report", os.path.join(work, "report.csv")],
            capture_output=True, text=True)
        ours = len(rows) / (time.time() - start)
        print(run.stdout.strip())
        print("%d addresses (%d found by Nominatim), concurrency %d" % (len(rows), hits,
                                                                       a.concurrency))
        print("Nominatim alone: %.1f requests/s" % own)
        print("cardatlas import: %.1f rows/s (process start and store creation included)" % ours)
        print("ratio: %.3f (goal >= 0.9)" % (ours / own))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
