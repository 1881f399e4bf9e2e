#!/usr/bin/env python3
"""Writes data/countries.geojson: the world's country outlines for the map page's offline base
map, from Natural Earth's 1:110m Admin 0 countries (public domain, naturalearthdata.com), as
shipped in the geopandas 0.14.4 wheel (geopandas/datasets/naturalearth_lowres). Coordinates are
rounded to 0.01 degree (about 1 km, finer than the 1:110m outlines) and only each country's name
is kept, so the file stays small.

    pip download --no-deps geopandas==0.14.4 && unzip geopandas-0.14.4-py3-none-any.whl
    pip install pyshp
    data/make_countries.py geopandas/datasets/naturalearth_lowres/naturalearth_lowres
"""
import json
import sys

import shapefile  # pyshp


def rounded(ring):
    points = []
    for lon, lat in ring:
        point = [round(lon, 2), round(lat, 2)]
        if not points or points[-1] != point:
            points.append(point)
    return points


def main(path, out="data/countries.geojson"):
    reader = shapefile.Reader(path)
    names = [field[0] for field in reader.fields[1:]]
    features = []
    for shape_record in reader.iterShapeRecords():
        record = dict(zip(names, shape_record.record))
        geometry = shape_record.shape.__geo_interface__
        if geometry["type"] == "Polygon":
            geometry["coordinates"] = [rounded(r) for r in geometry["coordinates"]]
        else:
            geometry["coordinates"] = [
                [rounded(r) for r in polygon] for polygon in geometry["coordinates"]
            ]
        features.append(
            {"type": "Feature", "properties": {"name": record["name"]}, "geometry": geometry}
        )
    collection = {
        "type": "FeatureCollection",
        "attribution": "Natural Earth (public domain), 1:110m Admin 0 countries",
        "features": features,
    }
    with open(out, "w") as f:
        json.dump(collection, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
