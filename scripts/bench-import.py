#!/usr/bin/env python3
"""Measures `cardatlas import` on a generated file: rows/s and the importer's RSS from row
10,000 to the end (sampled from /proc every 0.1 s, rows from the checkpoint file).

  scripts/bench-import.py [--rows 200000] [--mode data|server] [--geocode] [--curve N]
                          [--loaded] [--binary .build/release/cardatlas]

--geocode: half the rows give a city for the offline gazetteer instead of lon/lat (each
distinct city is geocoded once a run: the importer caches answers). Figures go to
docs/BENCHMARKS.md ("Imports").

--curve N: the importer's RSS every N rows. --loaded (with --mode data): then starts a daemon
on the imported directory and on an empty one, and prints what holding the imported cards and
accounts costs it (the domain's own memory, which the importer into a directory holds too)."""
import argparse, os, random, shutil, socket, subprocess, sys, tempfile, time, json

CITIES = ["Vaduz", "Schaan", "Prattville", "Montgomery", "Zurich", "Berlin", "Paris, TX",
          "Lyon", "Madrid", "Porto", "Oslo", "Vienna"]


def generate(path, rows, geocode):
    rng = random.Random(7)
    with open(path, "w") as f:
        f.write("externalId,ownerEmail,firstName,lastName,company,email,jobTitle,city,lon,lat\n")
        for i in range(1, rows + 1):
            if geocode and i % 2 == 0:
                place = '"%s",,' % rng.choice(CITIES)
            else:
                place = ",%.5f,%.5f" % (rng.uniform(-180, 180), rng.uniform(-80, 80))
            f.write("e%d,owner%d@example.com,First%d,Last%d,Company %d,p%d@example.com,Engineer,%s\n"
                    % (i, i, i, i, i % 500, i, place))


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


def serve_rss_kb(binary, env, data):
    """A daemon's RSS once it answers on its port (its cards and accounts are loaded)."""
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data", data],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(3000):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1)
        return rss_kb(server.pid)
    finally:
        server.terminate()
        server.wait()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--mode", choices=["data", "server"], default="data")
    p.add_argument("--geocode", action="store_true")
    p.add_argument("--curve", type=int, default=0)
    p.add_argument("--loaded", action="store_true")
    p.add_argument("--binary", default=".build/release/cardatlas")
    a = p.parse_args()
    binary = os.path.abspath(a.binary)
    env = dict(os.environ, CARDATLAS_DATA=os.path.abspath("data"))
    work = tempfile.mkdtemp(prefix="bench-import-")
    server = None
    try:
        source = os.path.join(work, "cards.csv")
        generate(source, a.rows, a.geocode)
        args = [binary, "import", source, "--report", os.path.join(work, "report.csv"),
                "--progress-interval", "1000"]
        if a.mode == "data":
            args += ["--data", os.path.join(work, "var")]
        else:
            port = free_port()
            server = subprocess.Popen([binary, "serve", "--port", str(port), "--data",
                                       os.path.join(work, "var"), "--requirepass", "pw"],
                                      env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port)).close()
                    break
                except OSError:
                    time.sleep(0.1)
            args += ["--server", "127.0.0.1:%d" % port, "--password", "pw"]
        checkpoint = source + ".checkpoint"
        start = time.time()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        samples = []  # (time, row, rss kB)
        while proc.poll() is None:
            row = 0
            try:
                with open(checkpoint) as f:
                    row = json.load(f)["row"]
            except (OSError, ValueError):
                pass
            rss = rss_kb(proc.pid)
            if rss:
                samples.append((time.time(), row, rss))
            time.sleep(0.1)
        end = time.time()
        out, err = proc.communicate()
        print(out.decode().strip())
        after = [s for s in samples if s[1] >= 10_000]
        if after:
            low, high = min(s[2] for s in after), max(s[2] for s in after)
            t0, r0 = after[0][0], after[0][1]
            print("rows %d, mode %s, geocode %s" % (a.rows, a.mode, a.geocode))
            print("RSS from row %d to the end: %.1f MB .. %.1f MB (growth %.1f MB)"
                  % (r0, low / 1024, high / 1024, (high - low) / 1024))
            print("rows/s from row %d to the end: %.0f" % (r0, (a.rows - r0) / (end - t0)))
        if a.curve:
            mark = 0
            for _, row, rss in samples:
                if row >= mark:
                    print("  row %8d  RSS %7.1f MB" % (row, rss / 1024))
                    mark = (row // a.curve + 1) * a.curve
            print("  end           RSS %7.1f MB" % (samples[-1][2] / 1024))
        print("wall time %.1f s (%.0f rows/s, loading included)" % (end - start, a.rows / (end - start)))
        if a.loaded and a.mode == "data":
            empty = os.path.join(work, "empty")
            os.mkdir(empty)
            full = serve_rss_kb(binary, env, os.path.join(work, "var"))
            base = serve_rss_kb(binary, env, empty)
            print("daemon RSS loaded with the %d cards: %.1f MB, empty: %.1f MB: %.0f bytes a row"
                  % (a.rows, full / 1024, base / 1024, (full - base) * 1024 / a.rows))
        if server:
            print("daemon RSS at the end: %.1f MB" % ((rss_kb(server.pid) or 0) / 1024))
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
