#!/usr/bin/env python3
"""A geocoder that misbehaves on demand, for the fault tests.

Requests go to /<scenario>/<behaviour>/<anything>: the scenario names a counter and an arrival
log of its own, the behaviour what the server does with the scenario's n-th request (n from 1):
  ok             200, one Nominatim-shaped result (empty list for q=nothing)
  fail500-N      500 for the first N requests, then ok       always500   always 500
  fail503-N      503 for the first N, then ok
  r429-N-S       429 with Retry-After: S (seconds) for the first N, then ok
  d429-N-S       the same with Retry-After as an HTTP-date S seconds ahead
  bad400         400 with Nominatim's error object
  slow-S         ok after S seconds of silence
  dribble-S      headers and half the body at once, the rest after S seconds
  garbage        200 with an HTML page           truncated   200 with JSON cut short
  cutoff         200 promising more bytes than it sends, then closes
GET /log/<scenario> answers the scenario's arrival times (monotonic seconds) as a JSON list.
Prints its port on the first line of stdout, and exits when its stdin closes (its test is over,
or crashed).
"""
import email.utils
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ARRIVALS = {}

OK = json.dumps([{
    "place_id": 1, "osm_type": "node", "osm_id": 42, "lat": "47.14", "lon": "9.52",
    "category": "place", "type": "town", "place_rank": 16, "importance": 0.5,
    "addresstype": "town", "name": "Vaduz", "display_name": "Vaduz, Oberland, Liechtenstein",
    "address": {"town": "Vaduz", "country": "Liechtenstein", "country_code": "li"},
    "boundingbox": ["47.10", "47.18", "9.47", "9.56"]}]).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "log":
            with LOCK:
                body = json.dumps(ARRIVALS.get(parts[1], [])).encode()
            return self.send(200, body)
        scenario, behaviour = parts[0], parts[1]
        with LOCK:
            log = ARRIVALS.setdefault(scenario, [])
            log.append(time.monotonic())
            n = len(log)
        name, *args = behaviour.split("-")
        ok = b"[]" if "q=nothing" in self.path else OK
        if name == "ok":
            return self.send(200, ok)
        if name in ("fail500", "fail503"):
            status = 500 if name == "fail500" else 503
            return self.send(status, b"oops") if n <= int(args[0]) else self.send(200, ok)
        if name == "always500":
            return self.send(500, b"<html>Internal Server Error</html>")
        if name in ("r429", "d429"):
            if n > int(args[0]):
                return self.send(200, ok)
            seconds = float(args[1])
            value = (str(int(seconds)) if name == "r429"
                     else email.utils.formatdate(time.time() + seconds, usegmt=True))
            return self.send(429, b'{"error": "Too Many Requests"}', [("Retry-After", value)])
        if name == "bad400":
            return self.send(400, json.dumps({"error": {
                "code": 400, "message": "Parameter 'q' not allowed with structured query."}}).encode())
        if name == "slow":
            time.sleep(float(args[0]))
            return self.send(200, ok)
        if name == "dribble":
            self.send_response(200)
            self.send_header("Content-Length", str(len(ok)))
            self.end_headers()
            self.wfile.write(ok[: len(ok) // 2])
            self.wfile.flush()
            time.sleep(float(args[0]))
            self.wfile.write(ok[len(ok) // 2:])
            return
        if name == "garbage":
            return self.send(200, b"<html><body>Service temporarily moved</body></html>")
        if name == "truncated":
            return self.send(200, ok[: len(ok) // 2])
        if name == "cutoff":
            self.send_response(200)
            self.send_header("Content-Length", str(len(ok) * 2))
            self.end_headers()
            self.wfile.write(ok)
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(404, b"unknown behaviour")


def exit_with_parent():
    sys.stdin.buffer.read()
    os._exit(0)


# A child of the test process inherits its blocked signals: unblock what ends a server.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
threading.Thread(target=exit_with_parent, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
