/// The map page's script and style sheet, served from this server (`/static/map.js`,
/// `/static/map.css`) so that the page's CSP allows scripts and styles from itself only. The
/// script draws the bundled country outlines (or the configured tiles), and the markers of
/// `GET /v1/cards` for the viewport as it moves (its zoom is of 512-pixel tiles, Leaflet's of
/// 256-pixel ones: one less); a cluster zooms in to where it splits. Card
/// values become text nodes, never markup.
enum MapScript {
  static let javascript = """
    "use strict";
    (function () {
      var element = document.getElementById("map");
      var tiles = element.getAttribute("data-tiles");
      var map = L.map(element, { worldCopyJump: true, minZoom: 1, maxZoom: 20 });
      map.attributionControl.setPrefix("Leaflet");
      if (tiles) {
        L.tileLayer(tiles, {
          maxZoom: 20, attribution: element.getAttribute("data-tiles-attribution") || ""
        }).addTo(map);
      } else {
        fetch(element.getAttribute("data-countries"))
          .then(function (r) { return r.json(); })
          .then(function (countries) {
            L.geoJSON(countries, {
              interactive: false,
              style: { color: "#8b95a5", weight: 1, fillColor: "#e9edf2", fillOpacity: 1 }
            }).addTo(map).bringToBack();
          });
        map.attributionControl.addAttribution("Natural Earth");
      }
      var markers = L.layerGroup().addTo(map);
      var asked = 0;

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

      function marker(feature) {
        var c = feature.geometry.coordinates, p = feature.properties;
        var at = L.latLng(c[1], c[0]);
        if (p.cluster) {
          var size = p.count < 10 ? "small" : p.count < 100 ? "medium" : "large";
          var icon = L.divIcon({
            className: "cluster cluster-" + size, html: String(Number(p.count)),
            iconSize: null
          });
          return L.marker(at, { icon: icon, title: p.count + " cards" }).on("click", function () {
            map.setView(at, Math.min(p.expansionZoom + 1, 20));
          });
        }
        return L.circleMarker(at, {
          radius: 7, color: "#ffffff", weight: 2, fillColor: "#2457d6", fillOpacity: 1
        }).bindPopup(function () { return popup(p); });
      }

      function load() {
        var ask = ++asked;
        // The API's zoom is of 512-pixel tiles, Leaflet's of 256-pixel ones.
        var zoom = clamp(Math.round(map.getZoom()) - 1, 0, 20);
        fetch("/v1/cards?bbox=" + viewport() + "&zoom=" + zoom)
          .then(function (r) { return r.ok ? r.json() : { features: [] }; })
          .then(function (collection) {
            if (ask !== asked) { return; }
            markers.clearLayers();
            collection.features.forEach(function (f) { markers.addLayer(marker(f)); });
            element.setAttribute("data-features", String(collection.features.length));
          });
      }

      map.on("moveend", load);
      map.setView([30, 10], 2);
    })();

    """

  static let css = """
    html,body{height:100%;margin:0}
    body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    #map{position:absolute;inset:0;background:#c9dcef}
    @media (prefers-color-scheme:dark){#map{background:#16263a}}
    .cluster{display:flex;align-items:center;justify-content:center;border-radius:50%;\
    background:#2457d6;color:#fff;font-weight:600;border:3px solid rgba(255,255,255,.8);\
    box-sizing:border-box}
    .cluster-small{width:30px;height:30px;margin:-15px 0 0 -15px}
    .cluster-medium{width:38px;height:38px;margin:-19px 0 0 -19px}
    .cluster-large{width:46px;height:46px;margin:-23px 0 0 -23px}
    .leaflet-popup-content .role,.leaflet-popup-content .city{color:#5b6270}
    .leaflet-popup-content a{display:inline-block;margin-top:.3rem}

    """
}
