#!/usr/bin/env python3
"""CardAtlas's fences beside Tile38's, the same fences and moves (docs/BENCHMARKS.md,
"Fences beside Tile38"). Starts each server in turn on a fresh directory, sets --fences fences
(half circles, half 20-vertex star polygons, 50 m to 5 km across, detecting enter and exit),
places --objects objects, then times --moves moves of random objects by 10 to 200 m, pipelined
over 4 connections; prints each server's moves a second and RSS after.

CardAtlas: FENCE.SET … CIRCLE / GEOJSON on a GEO key, GEOADD moves, fsync on every commit (its
default, stricter than Tile38's).
Tile38: SETCHAN … NEARBY/WITHIN … FENCE DETECT enter,exit, SET … POINT moves, its default
append-only file (fsync every second). Nobody subscribes to either's channels.

  scripts/bench-tile38.py --cardatlas .build/release/cardatlas --tile38 /tmp/tile38/tile38-server
"""
import argparse, math, os, random, shutil, socket, subprocess, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--cardatlas", required=True)
parser.add_argument("--tile38", required=True)
parser.add_argument("--fences", type=int, default=100_000)
parser.add_argument("--objects", type=int, default=1_000_000)
parser.add_argument("--moves", type=int, default=500_000)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()

# Europe, 0–10° E, 45–55° N: about 700 × 1,100 km, an object a square km.
WEST, SOUTH, EAST, NORTH = 0.0, 45.0, 10.0, 55.0
R = 6371008.8


def destination(lon, lat, bearing, distance):
    φ, λ, θ, δ = math.radians(lat), math.radians(lon), math.radians(bearing), distance / R
    φ2 = math.asin(math.sin(φ) * math.cos(δ) + math.cos(φ) * math.sin(δ) * math.cos(θ))
    λ2 = λ + math.atan2(math.sin(θ) * math.sin(δ) * math.cos(φ), math.cos(δ) - math.sin(φ) * math.sin(φ2))
    return math.degrees(λ2), math.degrees(φ2)


rng = random.Random(args.seed)
fences = []
for i in range(args.fences):
    lon, lat = rng.uniform(WEST, EAST), rng.uniform(SOUTH, NORTH)
    size = math.exp(rng.uniform(math.log(50), math.log(5000)))
    if i % 2 == 0:
        fences.append(("circle", lon, lat, size / 2))
    else:
        ring = [destination(lon, lat, 360 * (k + rng.uniform(0, 0.8)) / 20, size / 2 * rng.uniform(0.5, 1))
                for k in range(20)]
        ring.append(ring[0])
        fences.append(("polygon", ring))
objects = [(rng.uniform(WEST, EAST), rng.uniform(SOUTH, NORTH)) for _ in range(args.objects)]
moves = []
places = list(objects)
for _ in range(args.moves):
    o = rng.randrange(args.objects)
    places[o] = destination(*places[o], rng.uniform(0, 360), rng.uniform(10, 200))
    moves.append((o, places[o]))


def command(*words):
    parts = [w.encode() if isinstance(w, str) else w for w in words]
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


def geojson(ring):
    return '{"type":"Polygon","coordinates":[[%s]]}' % ",".join("[%.7f,%.7f]" % p for p in ring)


def run(port, frames, connections=4, batch=1000):
    """Sends the frames pipelined, `batch` at a time per connection; each reply is one line."""
    chunks = [frames[i::connections] for i in range(connections)]
    errors = []

    def pump(chunk):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for start in range(0, len(chunk), batch):
            part = chunk[start:start + batch]
            s.sendall(b"".join(part))
            lines, data = 0, b""
            while lines < len(part):
                got = s.recv(1 << 20)
                if not got:
                    raise RuntimeError("closed")
                lines += got.count(b"\r\n")
                data = (data + got)[-200:]
            if b"-ERR" in data or b'"ok":false' in data:
                errors.append(data)
        s.close()

    threads = [threading.Thread(target=pump, args=(c,)) for c in chunks]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("  errors:", errors[:2])
    return time.perf_counter() - started


def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def wait_ready(port):
    for _ in range(600):
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(command("PING"))
            if s.recv(100):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("no answer on %d" % port)


def bench(name, start, fence_frame, place_frame):
    directory = tempfile.mkdtemp(prefix="bench-%s-" % name)
    port = 19000 + random.randrange(900)
    process = start(port, directory)
    try:
        wait_ready(port)
        base = rss(process.pid)
        took = run(port, [fence_frame(i, f) for i, f in enumerate(fences)], connections=1)
        print("%s: %d fences set in %.1f s" % (name, len(fences), took))
        took = run(port, [place_frame(o, p) for o, p in enumerate(objects)])
        print("%s: %d objects placed in %.1f s" % (name, len(objects), took))
        took = run(port, [place_frame(o, p) for o, p in moves])
        print("%s: %d moves in %.2f s: %.0f moves/s; RSS %.0f MB (%.0f MB empty)"
              % (name, len(moves), took, len(moves) / took, rss(process.pid), base))
        return len(moves) / took, rss(process.pid)
    finally:
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def cardatlas(port, directory):
    return subprocess.Popen([args.cardatlas, "serve", "--port", str(port), "--data", directory,
                             "--log-level", "error"])


def tile38(port, directory):
    return subprocess.Popen([args.tile38, "-p", str(port), "-d", directory, "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ours_fence(i, f):
    if f[0] == "circle":
        return command("FENCE.SET", "f%d" % i, "KEY", "fleet", "CIRCLE", "%.7f" % f[1], "%.7f" % f[2],
                       "%.1f" % f[3], "m", "DETECT", "enter,exit")
    return command("FENCE.SET", "f%d" % i, "KEY", "fleet", "GEOJSON", geojson(f[1]), "DETECT", "enter,exit")


def theirs_fence(i, f):
    if f[0] == "circle":
        return command("SETCHAN", "f%d" % i, "NEARBY", "fleet", "FENCE", "DETECT", "enter,exit", "POINT",
                       "%.7f" % f[2], "%.7f" % f[1], "%.1f" % f[3])
    return command("SETCHAN", "f%d" % i, "WITHIN", "fleet", "FENCE", "DETECT", "enter,exit", "OBJECT",
                   geojson(f[1]))


ours = bench("cardatlas", cardatlas, ours_fence,
             lambda o, p: command("GEOADD", "fleet", "%.7f" % p[0], "%.7f" % p[1], "o%d" % o))
theirs = bench("tile38", tile38, theirs_fence,
               lambda o, p: command("SET", "fleet", "o%d" % o, "POINT", "%.7f" % p[1], "%.7f" % p[0]))
print("cardatlas / tile38: %.2f× the moves a second, %.2f× the RSS" % (ours[0] / theirs[0], ours[1] / theirs[1]))
