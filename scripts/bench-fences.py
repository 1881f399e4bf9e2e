#!/usr/bin/env python3
"""100,000 fences (or argv[2]) on bench:points of the server at port argv[1] (docs/BENCHMARKS.md,
"Fences"): half circles, half 20-vertex GeoJSON polygons, 50 m to 5 km across, each placed at a
member's position (half among p0…p9999, the members `load --workload add --points 0` moves)."""
import json, math, random, sys
import redis
port, count = int(sys.argv[1]), int(sys.argv[2])
r = redis.Redis(port=port)
rng = random.Random(7)
names = [f"p{rng.randrange(10000)}" if i % 2 == 0 else f"p{rng.randrange(1000000)}" for i in range(count)]
pos = []
for i in range(0, count, 10000):
    pos += r.geopos("bench:points", *names[i:i+10000])
pipe = r.pipeline(transaction=False)
R = 6371008.8
for i, p in enumerate(pos):
    lon, lat = p
    size = math.exp(rng.uniform(math.log(50), math.log(5000)))
    # off the member by up to the fence's size, so members sit inside, outside and on the edge
    lon += math.degrees(rng.uniform(-1, 1) * size / R / math.cos(math.radians(lat)))
    lat += math.degrees(rng.uniform(-1, 1) * size / R)
    if i % 2 == 0:
        pipe.execute_command("FENCE.SET", f"f{i}", "KEY", "bench:points", "CIRCLE", lon, lat, size / 2, "m")
    else:
        ring = []
        for k in range(20):
            b = 2 * math.pi * (k + rng.uniform(0, 0.8)) / 20
            d = size / 2 * rng.uniform(0.5, 1)
            ring.append([lon + math.degrees(d * math.sin(b) / R / math.cos(math.radians(lat))), lat + math.degrees(d * math.cos(b) / R)])
        ring.append(ring[0])
        pipe.execute_command("FENCE.SET", f"f{i}", "KEY", "bench:points", "GEOJSON", json.dumps({"type": "Polygon", "coordinates": [ring]}))
    if i % 5000 == 4999:
        pipe.execute()
        pipe = r.pipeline(transaction=False)
pipe.execute()
print("fences:", len(r.execute_command("FENCE.LIST")))
