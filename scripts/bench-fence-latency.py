#!/usr/bin/env python3
"""The time from a GEOADD's acknowledgement to its fence event's arrival on a subscriber
(docs/BENCHMARKS.md, "Fences"): argv[1] the server's port, argv[2] probes (default 5,000), one
every 2 ms. Each probe adds a new member inside a small fence of its own (in the Gulf of
Guinea, away from the loaded points) on bench:points; the subscriber notes each `enter`."""
import sys, threading, time
import redis

port = int(sys.argv[1])
probes = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
r = redis.Redis(port=port)
r.execute_command("FENCE.SET", "latency-probe", "KEY", "bench:points", "CIRCLE", "0.5", "0.5",
                  "1", "km", "DETECT", "enter", "CHANNEL", "latency-probe")
arrived = {}
ready = threading.Event()

def listen():
    sub = redis.Redis(port=port).pubsub()
    sub.subscribe("latency-probe")
    ready.set()
    for message in sub.listen():
        if message["type"] != "message":
            continue
        now = time.perf_counter()
        member = message["data"].split(b'"member":"')[1].split(b'"')[0].decode()
        arrived[member] = now
        if len(arrived) == probes:
            return

thread = threading.Thread(target=listen, daemon=True)
thread.start()
ready.wait()
acked = {}
for i in range(probes):
    member = f"probe-{time.time_ns()}-{i}"
    r.execute_command("GEOADD", "bench:points", "0.5", "0.5", member)
    acked[member] = time.perf_counter()
    time.sleep(0.002)
thread.join(timeout=10)
r.execute_command("FENCE.DEL", "latency-probe")
latencies = sorted(max(0.0, arrived[m] - acked[m]) * 1000 for m in acked if m in arrived)
missing = probes - len(latencies)
def pct(p):
    return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))]
print(f"{len(latencies)} events, {missing} missing; after the acknowledgement (ms): "
      f"p50 {pct(50):.2f}, p90 {pct(90):.2f}, p99 {pct(99):.2f}, p99.9 {pct(99.9):.2f}, "
      f"max {latencies[-1]:.2f}")
