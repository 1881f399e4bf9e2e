/// The map page's script and style sheet, served from this server (`/static/map.js`,
/// `/static/map.css`) so that the page's CSP allows scripts and styles from itself only. The
/// script draws the bundled country outlines (or the configured tiles), and the markers of
/// `GET /v1/cards` for the viewport as it moves (its zoom is of 512-pixel tiles, Leaflet's of
/// 256-pixel ones: one less), merging markers that would touch on the screen; a cluster zooms
/// in to where it splits. A search box (`/v1/geocode`) moves the map, a filter narrows the
/// cards, and both with the view live in the URL (`#zoom/lat/lon?field=value`). Card values
/// become text nodes, never markup.
enum MapScript {
  static let javascript = """
    "use strict";
    (function () {
      var element = document.getElementById("map");
      var tiles = element.getAttribute("data-tiles");
      var map = L.map(element, { worldCopyJump: true, minZoom: 1, maxZoom: 20 });
      map.attributionControl.setPrefix("Leaflet");
      var dark = window.matchMedia("(prefers-color-scheme: dark)");
      var land = null;
      function landStyle() {
        return dark.matches
          ? { color: "#4b5566", weight: 1, fillColor: "#27303b", fillOpacity: 1 }
          : { color: "#8b95a5", weight: 1, fillColor: "#e9edf2", fillOpacity: 1 };
      }
      if (tiles) {
        L.tileLayer(tiles, {
          maxZoom: 20, attribution: element.getAttribute("data-tiles-attribution") || ""
        }).addTo(map);
      } else {
        fetch(element.getAttribute("data-countries"))
          .then(function (r) { return r.json(); })
          .then(function (countries) {
            land = L.geoJSON(countries, { interactive: false, style: landStyle });
            land.addTo(map).bringToBack();
          });
        map.attributionControl.addAttribution("Natural Earth");
        dark.addEventListener("change", function () { if (land) { land.setStyle(landStyle()); } });
      }
      var markers = L.layerGroup().addTo(map);
      var asked = 0;
      var fields = ["company", "jobTitle", "city"];
      var filter = { field: "company", value: "" };
      var fieldInput = document.getElementById("field");
      var valueInput = document.getElementById("value");
      var status = document.getElementById("status");

      function wrap(lon) { return ((((lon + 180) % 360) + 360) % 360) - 180; }
      function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }

      function viewport() {
        var b = map.getBounds();
        var west = b.getWest(), east = b.getEast();
        if (east - west >= 360) { west = -180; east = 180; }
        else { west = wrap(west); east = wrap(east); }
        var south = clamp(b.getSouth(), -90, 90), north = clamp(b.getNorth(), -90, 90);
        return [west, south, east, north].map(function (v) { return v.toFixed(6); }).join(",");
      }

      // The view and the filter live in the URL: #zoom/lat/lon?field=value.
      function readHash() {
        var m = /^#(\\d{1,2})\\/(-?\\d+(?:\\.\\d+)?)\\/(-?\\d+(?:\\.\\d+)?)(?:\\?(.*))?$/
          .exec(location.hash);
        if (!m) { return null; }
        var state = { zoom: clamp(Number(m[1]), 1, 20), lat: clamp(Number(m[2]), -85, 85),
          lon: wrap(Number(m[3])), field: "company", value: "" };
        new URLSearchParams(m[4] || "").forEach(function (value, key) {
          if (fields.indexOf(key) >= 0) { state.field = key; state.value = value.slice(0, 150); }
        });
        return state;
      }

      function writeHash() {
        var c = map.getCenter();
        var hash = "#" + map.getZoom() + "/" + c.lat.toFixed(5) + "/" + wrap(c.lng).toFixed(5)
          + (filter.value
            ? "?" + filter.field + "=" + encodeURIComponent(filter.value) : "");
        if (hash !== location.hash) { history.replaceState(null, "", hash); }
      }

      function text(tag, value, className) {
        var node = document.createElement(tag);
        node.textContent = value;
        if (className) { node.className = className; }
        return node;
      }

      function popup(card) {
        var box = document.createElement("div");
        var name = [card.prefix, card.firstName, card.lastName].filter(Boolean).join(" ");
        box.appendChild(text("strong", name));
        var role = [card.jobTitle, card.company].filter(Boolean).join(" · ");
        if (role) { box.appendChild(text("div", role, "role")); }
        if (card.city) { box.appendChild(text("div", card.city, "city")); }
        if (card.url && /^https?:\\/\\//i.test(card.url)) {
          var link = text("a", "Open card");
          link.href = card.url;
          link.rel = "noopener";
          box.appendChild(link);
        }
        return box;
      }

      // 1.2k, 34k, 1.5M: four characters at most, so a count fits its circle.
      function abbreviate(n) {
        function tenths(x) { return String(Math.floor(x * 10) / 10); }
        if (n < 1000) { return String(n); }
        if (n < 10000) { return tenths(n / 1000) + "k"; }
        if (n < 1000000) { return Math.floor(n / 1000) + "k"; }
        return tenths(n / 1000000) + "M";
      }

      // A cluster's diameter in pixels grows with its count; a card is a dot of 18 pixels.
      function diameter(count) {
        return count > 1 ? Math.round(28 + 10 * Math.log10(count)) : 18;
      }

      // Markers that would touch on the screen are merged, the larger taking the smaller
      // (which grows it), until none touches another: no circle hides another's number.
      function separate(features) {
        var items = features.map(function (f) {
          var c = f.geometry.coordinates, p = f.properties;
          var count = p.cluster ? p.count : 1;
          var at = L.latLng(c[1], c[0]);
          return { at: at, point: map.latLngToLayerPoint(at), count: count,
            card: p.cluster ? null : p, bounds: L.latLngBounds(at, at), parts: 1,
            expansion: p.cluster ? p.expansionZoom : map.getZoom() + 1 };
        });
        items.sort(function (a, b) { return b.count - a.count; });
        var merged = true;
        while (merged) {
          merged = false;
          for (var i = 0; i < items.length; i++) {
            for (var j = i + 1; j < items.length; j++) {
              var reach = (diameter(items[i].count) + diameter(items[j].count)) / 2 + 2;
              if (items[i].point.distanceTo(items[j].point) < reach) {
                items[i].count += items[j].count;
                items[i].card = null;
                items[i].bounds.extend(items[j].bounds);
                items[i].parts += items[j].parts;
                items[i].expansion = Math.min(items[i].expansion, items[j].expansion,
                  map.getZoom() + 2);
                items.splice(j, 1);
                merged = true;
                j--;
              }
            }
          }
        }
        return items;
      }

      function marker(item) {
        if (!item.card) {
          var size = diameter(item.count);
          var icon = L.divIcon({
            className: "cluster", html: abbreviate(item.count),
            iconSize: [size, size]
          });
          return L.marker(item.at, { icon: icon, title: item.count + " cards" })
            .on("click", function () { zoomInto(item); });
        }
        // The map's own popup, not the marker's: the move that shows it reloads the markers.
        return L.circleMarker(item.at, {
          radius: 7, color: "#ffffff", weight: 2, fillColor: "#2457d6", fillOpacity: 1
        }).on("click", function () {
          L.popup().setLatLng(item.at).setContent(popup(item.card)).openOn(map);
        });
      }

      // A click on a cluster zooms in until it splits: to where the server's cluster splits,
      // or to the markers merged into it; again while the view still draws one marker.
      var splitting = 0;
      function zoomInto(item) {
        splitting = 4;
        if (item.parts > 1) {
          map.fitBounds(item.bounds, { padding: [60, 60], maxZoom: 20 });
        } else {
          map.setView(item.at, Math.min(Math.max(item.expansion + 1, map.getZoom() + 1), 20));
        }
      }

      function load() {
        var ask = ++asked;
        // The API's zoom is of 512-pixel tiles, Leaflet's of 256-pixel ones.
        var zoom = clamp(Math.round(map.getZoom()) - 1, 0, 20);
        var url = "/v1/cards?bbox=" + viewport() + "&zoom=" + zoom
          + (filter.value
            ? "&" + filter.field + "=" + encodeURIComponent(filter.value) : "");
        fetch(url)
          .then(function (r) { return r.ok ? r.json() : { features: [] }; })
          .then(function (collection) {
            if (ask !== asked) { return; }
            markers.clearLayers();
            var items = separate(collection.features);
            items.forEach(function (item) { markers.addLayer(marker(item)); });
            element.setAttribute("data-features", String(collection.features.length));
            if (splitting > 0 && items.length === 1 && !items[0].card
                && map.getZoom() < 20) {
              splitting -= 1;
              zoomInto(items[0]);
            } else {
              splitting = 0;
            }
          });
      }

      function show(state) {
        filter.field = state.field;
        filter.value = state.value;
        fieldInput.value = state.field;
        valueInput.value = state.value;
        map.setView([state.lat, state.lon], state.zoom);
      }

      document.getElementById("search").addEventListener("submit", function (event) {
        event.preventDefault();
        var q = document.getElementById("place").value.trim();
        if (!q) { return; }
        status.textContent = "Looking…";
        fetch("/v1/geocode?count=1&q=" + encodeURIComponent(q.slice(0, 200)))
          .then(function (r) { return r.json().then(function (body) { return [r.ok, body]; }); })
          .then(function (answer) {
            var place = answer[0] && answer[1][0];
            if (!place) {
              status.textContent = answer[0] ? "No place found." : String(answer[1].error || "");
              return;
            }
            status.textContent = place.label;
            map.setView([place.lat, place.lon], 11);
          })
          .catch(function () { status.textContent = "The search failed."; });
      });

      document.getElementById("filter").addEventListener("submit", function (event) {
        event.preventDefault();
        filter.field = fields.indexOf(fieldInput.value) >= 0 ? fieldInput.value : "company";
        filter.value = valueInput.value.trim().slice(0, 150);
        writeHash();
        load();
      });

      map.on("moveend", function () { writeHash(); load(); });
      window.addEventListener("hashchange", function () {
        var state = readHash();
        if (state) { show(state); load(); }
      });
      show(readHash() || { zoom: 2, lat: 30, lon: 10, field: "company", value: "" });
    })();

    """

  static let css = """
    html,body{height:100%;margin:0}
    body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    #map{position:absolute;inset:0;background:#c9dcef}
    @media (prefers-color-scheme:dark){#map{background:#16263a}}
    .cluster{display:flex;align-items:center;justify-content:center;border-radius:50%;\
    background:#2457d6;color:#fff;font-weight:600;font-size:12px;\
    border:3px solid rgba(255,255,255,.8);box-sizing:border-box}
    .leaflet-popup-content .role,.leaflet-popup-content .city{color:#5b6270}
    .leaflet-popup-content a{display:inline-block;margin-top:.3rem}
    .panel{position:absolute;z-index:1001;top:.5rem;left:3.2rem;right:.5rem;max-width:24rem;\
    padding:.5rem .6rem;border-radius:.6rem;background:rgba(255,255,255,.94);color:#1b1d21;\
    box-shadow:0 1px 4px rgba(0,0,0,.3)}
    @media (prefers-color-scheme:dark){.panel{background:rgba(28,31,36,.94);color:#eef0f3}}
    .panel h1{font-size:1rem;margin:0 0 .3rem}
    .panel form{display:flex;gap:.3rem;margin:.25rem 0}
    .panel input,.panel select{flex:1;min-width:0;font:inherit;padding:.3rem .4rem;\
    border:1px solid #8b95a5;border-radius:.4rem;background:transparent;color:inherit}
    .panel select{flex:0 0 auto}
    .panel button{font:inherit;padding:.3rem .6rem;border:0;border-radius:.4rem;\
    background:#2457d6;color:#fff}
    .panel p{margin:.2rem 0 0;font-size:12px}
    .panel .dot{display:inline-block;width:10px;height:10px;border-radius:50%;\
    background:#2457d6;border:2px solid #fff;vertical-align:middle}
    .panel .ring{display:inline-block;min-width:18px;padding:0 3px;border-radius:9px;\
    background:#2457d6;color:#fff;text-align:center;font-weight:600}

    """
}
