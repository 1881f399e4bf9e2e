/// The card page's one script, served from here (`/static/card.js`) so that the page's CSP
/// allows scripts from itself only. It shows the share button (hidden without script) and
/// answers its click with the system's share sheet (the Web Share API) where there is one;
/// else it copies the link, or, where that is refused, shows the link selected to copy by hand.
/// Every promise's failure is handled: nothing reaches the console.
enum CardScript {
  static let javascript = """
    "use strict";
    (function () {
      var button = document.querySelector("button.share");
      var status = document.querySelector(".status");
      if (!button || !status) { return; }
      var url = button.getAttribute("data-url");

      function showLink() {
        status.textContent = url;
        window.getSelection().selectAllChildren(status);
      }

      function copy() {
        if (!navigator.clipboard) { showLink(); return; }
        navigator.clipboard.writeText(url).then(function () {
          status.textContent = "Link copied";
        }, showLink);
      }

      button.addEventListener("click", function () {
        if (!navigator.share) { copy(); return; }
        navigator.share({ title: document.title, url: url }).then(function () {}, function (error) {
          // Dismissed by the visitor: nothing to do. Refused or not possible here: copy.
          if (!error || error.name !== "AbortError") { copy(); }
        });
      });
      button.hidden = false;
    })();

    """
}
