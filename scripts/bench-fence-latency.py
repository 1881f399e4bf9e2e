#!/usr/bin/env python3
"""The time from a GEOADD's acknowledgement to its fence event's arrival on a subscriber
(docs/BENCHMARKS.md, "Fences"): argv[1] the server's port, argv[2] probes (default 3,000), one
every 2 ms. Each probe adds a new member inside a small fence of its own (in the Gulf of Guinea,
away from the loaded points) on bench:points; the subscriber notes each `enter` as its bytes
arrive. Plain sockets: redis-py's pub/sub loop held some messages back for seconds."""
import socket, sys, threading, time

port = int(sys.argv[1])
probes = int(sys.argv[2]) if len(sys.argv) > 2 else 3000


def connect():
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def command(*args):
    parts = [a.encode() if isinstance(a, str) else a for a in args]
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


writer = connect()
writer.sendall(command("FENCE.SET", "latency-probe", "KEY", "bench:points", "CIRCLE", "0.5",
                       "0.5", "1", "km", "DETECT", "enter", "CHANNEL", "latency-probe"))
assert writer.recv(100).startswith(b"+OK"), "FENCE.SET refused"
subscriber = connect()
subscriber.sendall(command("SUBSCRIBE", "latency-probe"))
time.sleep(0.2)
subscriber.recv(1000)
arrived = {}


def listen():
    pending = b""
    while len(arrived) < probes:
        data = subscriber.recv(65536)
        now = time.perf_counter()
        if not data:
            return
        pending += data
        while b'"member":"' in pending:
            start = pending.index(b'"member":"') + 10
            end = pending.index(b'"', start)
            arrived[pending[start:end].decode()] = now
            pending = pending[end:]


thread = threading.Thread(target=listen, daemon=True)
thread.start()
acknowledged = {}
for i in range(probes):
    member = f"probe-{time.time_ns()}-{i}"
    writer.sendall(command("GEOADD", "bench:points", "0.5", "0.5", member))
    writer.recv(100)
    acknowledged[member] = time.perf_counter()
    time.sleep(0.002)
thread.join(timeout=10)
writer.sendall(command("FENCE.DEL", "latency-probe"))
writer.recv(100)
latencies = sorted(max(0.0, arrived[m] - acknowledged[m]) * 1000
                   for m in acknowledged if m in arrived)


def percentile(p):
    return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))]


print(f"{len(latencies)} events, {probes - len(latencies)} missing; after the acknowledgement "
      f"(ms): p50 {percentile(50):.2f}, p90 {percentile(90):.2f}, p99 {percentile(99):.2f}, "
      f"p99.9 {percentile(99.9):.2f}, max {latencies[-1]:.2f}")
