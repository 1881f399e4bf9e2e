#!/usr/bin/env python3
"""Writes the command fuzzer's seed corpus into Fuzz/seeds: every command of CommandTable with
typical arguments, GEO searches with their options, sessions taken from the tests, inline
commands, and multibulk edge cases. Deterministic: rerun it after changing the lists below and
commit what changes. Each seed is one small file (a client's byte stream); its name is its
content's hash, as libFuzzer names what it adds.

    Fuzz/seeds.py
"""
import hashlib
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "seeds")


def frame(*words):
    out = b"*%d\r\n" % len(words)
    for w in words:
        w = w if isinstance(w, bytes) else w.encode()
        out += b"$%d\r\n%s\r\n" % (len(w), w)
    return out


def session(*commands):
    return b"".join(frame(*c) for c in commands)


# The preloaded keys (CommandFuzzer.Connection.preload): Sicily, g (GEO sets), s (a string).
SEARCH_SHAPES = [
    ["FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"],
    ["FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"],
    ["FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km"],
    ["FROMMEMBER", "Catania", "BYBOX", "1", "1", "mi"],
    ["FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km"],
    ["FROMLONLAT", "180", "0", "BYRADIUS", "100", "m"],
    ["FROMLONLAT", "0", "0", "BYBOX", "40000", "20000", "km"],
]
SEARCH_OPTIONS = [
    [], ["ASC"], ["DESC"], ["COUNT", "1"], ["COUNT", "2", "ANY"], ["ASC", "COUNT", "3"],
    ["WITHCOORD", "WITHDIST", "WITHHASH"], ["DESC", "COUNT", "1", "WITHDIST"],
    ["WITHHASH", "ASC"], ["COUNT", "0"], ["COUNT", "-1"], ["ANY"],
]

commands = []
for shape in SEARCH_SHAPES:
    for key in ["Sicily", "g"]:
        for options in SEARCH_OPTIONS:
            commands.append(["GEOSEARCH", key] + shape + options)
for options in [[], ["STOREDIST"], ["ASC", "COUNT", "1"], ["STOREDIST", "DESC"]]:
    commands.append(["GEOSEARCHSTORE", "dst", "Sicily"] + SEARCH_SHAPES[1] + options)
    commands.append(["GEOSEARCHSTORE", "Sicily", "Sicily"] + SEARCH_SHAPES[0] + options)
for tail in [
    [], ["WITHDIST"], ["WITHCOORD", "WITHHASH", "ASC"], ["COUNT", "1"], ["COUNT", "2", "ANY", "DESC"],
    ["STORE", "dst"], ["STOREDIST", "dst"], ["WITHDIST", "STORE", "dst"], ["ASC", "COUNT", "1", "STORE", "g"],
]:
    commands.append(["GEORADIUS", "Sicily", "15", "37", "200", "km"] + tail)
    commands.append(["GEORADIUS_RO", "g", "0", "0", "5000", "mi"] + tail)
    commands.append(["GEORADIUSBYMEMBER", "Sicily", "Palermo", "300", "km"] + tail)
    commands.append(["GEORADIUSBYMEMBER_RO", "g", "origin", "1", "m"] + tail)
commands += [
    ["GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"],
    ["GEOADD", "k", "NX", "1", "1", "a"], ["GEOADD", "Sicily", "XX", "CH", "13", "38", "Palermo"],
    ["GEOADD", "k", "CH", "1", "1", "a", "2", "2", "b"], ["GEOADD", "k", "NX", "XX", "1", "1", "a"],
    ["GEOADD", "k", "181", "0", "bad"], ["GEOADD", "k", "0", "85.06", "bad"],
    ["GEOADD", "k", "nan", "0", "bad"], ["GEOADD", "k", "1e400", "0", "bad"],
    ["GEOADD", "k", "-180", "-85.05112878", "edge"], ["GEOADD", "s", "1", "1", "wrongtype"],
    ["GEODIST", "Sicily", "Palermo", "Catania"], ["GEODIST", "Sicily", "Palermo", "Catania", "km"],
    ["GEODIST", "Sicily", "Palermo", "Catania", "mi"], ["GEODIST", "Sicily", "Palermo", "nobody"],
    ["GEODIST", "Sicily", "Palermo", "Catania", "furlongs"], ["GEODIST", "g", "ne", "sw", "ft"],
    ["GEOPOS", "Sicily", "Palermo", "nobody", "Catania"], ["GEOPOS", "none"], ["GEOPOS", "s", "x"],
    ["GEOHASH", "Sicily", "Palermo", "Catania", "nobody"], ["GEOHASH", "g", "ne", "sw", "east"],
    ["ZRANGE", "Sicily", "0", "-1"], ["ZRANGE", "Sicily", "0", "-1", "WITHSCORES"],
    ["ZRANGE", "g", "-2", "-1", "REV"], ["ZRANGE", "g", "0", "+inf", "BYSCORE", "LIMIT", "1", "2"],
    ["ZRANGE", "g", "(0", "(3000000000000000", "BYSCORE", "WITHSCORES"],
    ["ZRANGE", "g", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "-1"],
    ["ZRANGE", "g", "[a", "[z", "BYLEX"], ["ZRANGE", "g", "0", "1", "LIMIT", "0", "1"],
    ["ZRANGE", "s", "0", "1"], ["ZRANGE", "g", "5", "2"],
    ["ZREM", "Sicily", "Palermo", "nobody"], ["ZREM", "g", "origin", "ne", "sw", "east", "near", "paris"],
    ["ZCARD", "g"], ["ZCARD", "none"], ["ZSCORE", "g", "paris"], ["ZSCORE", "g", "nobody"],
    ["DEL", "s", "g", "none"], ["EXISTS", "s", "g", "s", "none"], ["TYPE", "g"], ["TYPE", "s"], ["TYPE", "x"],
    ["KEYS", "*"], ["KEYS", "S*"], ["KEYS", "?"], ["KEYS", "[a-h]*"], ["KEYS", "[^S]"], ["KEYS", "\\*"],
    ["KEYS", "*[ix]*l*"], ["KEYS", "[z-a]"], ["KEYS", "[abc"],
    ["SCAN", "0"], ["SCAN", "0", "COUNT", "1"], ["SCAN", "1", "MATCH", "*i*", "COUNT", "2"],
    ["SCAN", "0", "TYPE", "zset"], ["SCAN", "0", "TYPE", "string", "MATCH", "s"], ["SCAN", "x"],
    ["SCAN", "0", "COUNT", "0"], ["SCAN", "18446744073709551615"],
    ["DBSIZE"], ["SELECT", "1"], ["SELECT", "15"], ["SELECT", "16"], ["SELECT", "-1"],
    ["FLUSHDB"], ["FLUSHDB", "ASYNC"], ["FLUSHALL", "SYNC"], ["FLUSHALL", "later"],
    ["SET", "k", "v"], ["SET", "k", "v", "NX"], ["SET", "s", "v", "XX", "GET"], ["SET", "g", "v", "GET"],
    ["SET", "k", "v", "KEEPTTL"], ["SET", "k", "v", "EX", "10"], ["SET", "k", "v", "NX", "XX"],
    ["GET", "s"], ["GET", "g"], ["GET", "none"],
    ["PING"], ["PING", "hello"], ["PING", "a", "b"], ["ECHO", "hi"], ["QUIT"],
    ["AUTH", "secret"], ["AUTH", "default", "secret"], ["AUTH", "a", "b", "c"],
    ["HELLO"], ["HELLO", "3"], ["HELLO", "2"], ["HELLO", "4"], ["HELLO", "x"],
    ["HELLO", "3", "AUTH", "default", "pw", "SETNAME", "me"], ["HELLO", "2", "SETNAME", "bad name"],
    ["INFO"], ["INFO", "memory", "clients"], ["COMMAND"], ["COMMAND", "COUNT"], ["COMMAND", "LIST"],
    ["COMMAND", "INFO", "geosearch", "nosuch"], ["COMMAND", "DOCS"], ["COMMAND", "NOSUCH"],
    ["CLIENT", "ID"], ["CLIENT", "GETNAME"], ["CLIENT", "SETNAME", "me"], ["CLIENT", "SETNAME", "a b"],
    ["CLIENT", "LIST"], ["CLIENT", "INFO"], ["CLIENT"], ["CLIENT", "KILL"],
    ["CONFIG", "GET", "*"], ["CONFIG", "GET", "max*", "time?ut"], ["CONFIG", "SET", "timeout", "0"],
    ["CONFIG", "SET", "nosuch", "1"], ["CONFIG", "RESETSTAT"],
    ["FUNCTION", "FLUSH"], ["FUNCTION", "FLUSH", "SYNC"], ["DEBUG", "SLEEP", "0"], ["BACKUP", "/tmp/x"],
    ["NOSUCH", "a", "b"], ["geosearch"], ["GeoAdd", "k", "1", "1"],
]

sessions = [
    # ReplyReuseTests: searches over a long member, then ones with WITHDIST.
    [["GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
      "13.5", "38.0", "x" * 300],
     ["GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "COUNT", "1"],
     ["GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "COUNT", "3"],
     ["GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "COUNT", "2",
      "WITHDIST"]],
    # A move, a removal, and the order and searches after them.
    [["GEOADD", "g", "2.36", "48.86", "paris"], ["ZREM", "g", "near"],
     ["ZRANGE", "g", "0", "-1", "WITHSCORES"],
     ["GEORADIUSBYMEMBER", "g", "paris", "5", "km", "WITHDIST", "ASC"]],
    # Databases: what SELECT sees, WRONGTYPE across types, FLUSHDB on one.
    [["SELECT", "3"], ["SET", "a", "1"], ["GEOADD", "b", "1", "1", "m"], ["KEYS", "*"],
     ["GET", "b"], ["GEOPOS", "a", "m"], ["FLUSHDB"], ["DBSIZE"], ["SELECT", "0"], ["DBSIZE"]],
    # RESP3 and back, with a map-shaped reply each way.
    [["HELLO", "3"], ["CONFIG", "GET", "*"], ["ZRANGE", "g", "0", "-1", "WITHSCORES"],
     ["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km", "WITHCOORD", "WITHDIST"],
     ["HELLO", "2"], ["CONFIG", "GET", "*"]],
    # GEOSEARCHSTORE into a new key, then reading it.
    [["GEOSEARCHSTORE", "near", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "100", "km", "STOREDIST"],
     ["ZRANGE", "near", "0", "-1", "WITHSCORES"], ["TYPE", "near"],
     ["GEOSEARCHSTORE", "near", "g", "FROMLONLAT", "90", "0", "BYRADIUS", "1", "m"], ["EXISTS", "near"]],
    # Many members, then a rebuild-sized churn of one key.
    [["GEOADD", "many"] + [w for i in range(40) for w in (str(i * 0.5 - 10), str(i * 0.25), "m%d" % i)],
     ["GEOSEARCH", "many", "FROMLONLAT", "0", "0", "BYBOX", "3000", "3000", "km", "ASC", "COUNT", "5"],
     ["ZREM", "many"] + ["m%d" % i for i in range(0, 40, 3)],
     ["GEOSEARCH", "many", "FROMMEMBER", "m1", "BYRADIUS", "500", "km", "DESC", "WITHHASH"]],
]

raw = [
    # Inline commands (quotes, escapes, blank lines, CRLF and LF).
    b"PING\r\n", b"PING\n", b"\r\n\r\nPING\r\n", b"SET 'a b' \"c\\x41\\n\"\r\nGET \"a b\"\r\n",
    b"GEOADD k 13.36 38.11 \"Pal ermo\"\nGEOPOS k \"Pal ermo\"\n", b"ECHO \"unbalanced\r\n",
    b"ECHO 'x'y\r\n", b"ECHO \"\\xZZ\"\r\n", b"  KEYS   *  \r\n", b"HELLO 3\r\nZRANGE g 0 -1 WITHSCORES\r\n",
    # Multibulk edge cases: empty commands, empty arguments, pieces, bad headers, limits.
    b"*0\r\n*-1\r\n" + frame("PING"), frame("ECHO", ""), frame("SET", "", ""),
    b"*1\r\n$4\r\nPI", b"*2\r\n$4\r\nECHO\r\n", b"*1\r\n$4\r\nPINGxx", b"*1\r\n$04\r\nPING\r\n",
    b"*01\r\n$4\r\nPING\r\n", b"*1\r\n$-1\r\n", b"*1\r\n$x\r\n", b"*abc\r\n", b"*2\r\n+PING\r\n",
    b"*-2\r\n", b"*513\r\n", b"*1\r\n$2049\r\n", b"*1\r\n$2147483648\r\n", b"*99999999999\r\n",
    b"*1\r\n$99999999999999999999999\r\n", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n\x00\r\n",
    frame("ECHO", b"\x00\xff\r\n*1\r\n"), frame("PING") + b"PING\r\n" + frame("PING"),
    b"*1\n$4\nPING\n", b"*1\r$4\rPING\r", b"*" + b"9" * 1100, b"X" * 1100,
    frame("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km") * 3,
]

if os.path.isdir(OUT):
    shutil.rmtree(OUT)
os.makedirs(OUT)
seeds = [frame(*c) for c in commands] + [session(*s) for s in sessions] + raw
for seed in seeds:
    name = hashlib.sha1(seed).hexdigest()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(seed)
print("%d seeds, %d bytes, in %s" % (len(set(seeds)), sum(map(len, set(seeds))), OUT))
