import Crypto
import Foundation
import Mustache

/// The pages' Mustache templates and their one style sheet. `{{ }}` escapes HTML (`<`, `>`,
/// `&`, `"`, `'`), so every value a card's owner set is text, in an element or an attribute;
/// nothing is written unescaped but the style sheets: the constant one, and a card's theme,
/// made of a parsed colour (`CardPageModel.theme`). No inline script: the card page's share
/// button is `/static/card.js` (`CardScript`).
enum PageTemplates {
  /// Mobile first: one column, large tap targets; light or dark as the device prefers. Any text
  /// wraps anywhere, so that a long word (a name without spaces) cannot widen the page.
  static let css = """
    :root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--text:#1b1d21;--muted:#5b6270;\
    --accent:#2457d6;--on-accent:#fff;--line:#e3e6ea}
    @media (prefers-color-scheme:dark){:root{--bg:#111316;--card:#1c1f24;--text:#eef0f3;\
    --muted:#a3aab6;--accent:#7ea2ff;--on-accent:#0c1020;--line:#2c3038}}
    *{box-sizing:border-box}
    body{margin:0;background:var(--bg);color:var(--text);overflow-wrap:anywhere;\
    font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem 3rem}
    .card{background:var(--card);border:1px solid var(--line);border-radius:1rem;padding:1.5rem}
    header{text-align:center}
    .avatar{width:7.5rem;height:7.5rem;border-radius:50%;object-fit:cover;display:block;\
    margin:0 auto 1rem;background:var(--line)}
    .initials{display:flex;align-items:center;justify-content:center;font-size:2.5rem;\
    font-weight:600;color:var(--muted)}
    .logo{max-height:2.5rem;max-width:8rem;display:block;margin:0 auto .75rem}
    h1{font-size:1.6rem;line-height:1.25;margin:0}
    .pronouns{color:var(--muted);font-size:.95rem}
    .role,.tagline{margin:.25rem 0 0;color:var(--muted)}
    .banner{display:block;width:calc(100% + 3rem);height:8rem;object-fit:cover;\
    margin:-1.5rem -1.5rem 1rem;border-radius:1rem 1rem 0 0}
    .actions{display:flex;gap:.5rem;margin:1.25rem 0 .25rem}
    .save,.share{flex:1;text-align:center;padding:.8rem 1rem;border-radius:.75rem;font:inherit;\
    font-weight:600;text-decoration:none;background:var(--accent);color:var(--on-accent);border:0}
    .share{background:none;color:var(--text);border:1px solid var(--line);cursor:pointer}
    [hidden]{display:none}
    .status{min-height:1.5rem;margin:0 0 .75rem;text-align:center;color:var(--muted);font-size:.9rem}
    .qr{display:block;width:11rem;height:11rem;margin:0 auto;background:#fff;border-radius:.5rem}
    ul{list-style:none;margin:0;padding:0}
    li{border-top:1px solid var(--line)}
    li a,li span{display:block;padding:.7rem .25rem;color:var(--text);text-decoration:none;\
    overflow-wrap:anywhere}
    li a:hover{color:var(--accent)}
    .label{display:block;font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;\
    color:var(--muted)}
    section{margin-top:1.5rem}
    h2{font-size:1rem;margin:0 0 .5rem}
    .text{white-space:pre-line;margin:0;overflow-wrap:anywhere}
    .social{display:flex;flex-wrap:wrap;gap:.5rem}
    .social a{padding:.45rem .8rem;border:1px solid var(--line);border-radius:999px;\
    color:var(--text);text-decoration:none}
    .notice{text-align:center;padding:3rem 1.5rem}
    .notice a{color:var(--accent)}
    footer{text-align:center;color:var(--muted);font-size:.85rem;margin-top:1.5rem}
    """

  /// The CSP source that lets exactly this style sheet apply.
  static let styleHash = hash(css)

  /// The CSP source that lets exactly `style` apply.
  static func hash(_ style: String) -> String {
    let digest = SHA256.hash(data: Data(style.utf8))
    return "'sha256-\(Data(digest).base64EncodedString())'"
  }

  /// How every page's document starts, up to its title: no referrer leaves with a link.
  static let documentStart = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    """

  /// A page's own referrer policy may replace the default (the account pages': their forms
  /// must carry their origin, which `no-referrer` sends as `null`).
  static let layout = """
    \(documentStart.replacingOccurrences(
      of: #"content="no-referrer""#, with: #"content="{{$referrer}}no-referrer{{/referrer}}""#))
    <title>{{title}}</title>
    <link rel="icon" href="/favicon.ico">
    <link rel="manifest" href="/manifest.webmanifest">
    <style>\(css)</style>
    {{$head}}{{/head}}
    </head>
    <body>
    <main>
    {{$body}}{{/body}}
    </main>
    </body>
    </html>

    """

  /// The link preview's Open Graph and Twitter tags name the card's absolute URLs.
  static let card = """
    {{<layout}}{{$head}}
    {{#summary}}<meta name="description" content="{{summary}}">
    {{/summary}}<meta property="og:type" content="profile">
    <meta property="og:title" content="{{name}}">
    {{#summary}}<meta property="og:description" content="{{summary}}">
    {{/summary}}{{#url}}<meta property="og:url" content="{{url}}">
    {{/url}}{{#preview}}<meta property="og:image" content="{{preview}}">
    <meta property="og:image:width" content="1200">
    <meta property="og:image:height" content="630">
    <meta property="og:image:alt" content="{{name}}">
    <meta name="twitter:card" content="summary_large_image">
    <meta name="twitter:image" content="{{preview}}">
    {{/preview}}<meta name="twitter:title" content="{{name}}">
    {{#summary}}<meta name="twitter:description" content="{{summary}}">
    {{/summary}}{{#theme}}<meta name="theme-color" content="{{color}}">
    <style>{{{css}}}</style>
    {{/theme}}<script src="/static/card.js" defer></script>
    {{/head}}{{$body}}
    <article class="card">
    {{#banner}}<img class="banner" src="{{banner}}" alt="">{{/banner}}
    <header>
    {{#logo}}<img class="logo" src="{{logo}}" alt="">{{/logo}}
    {{#picture}}<img class="avatar" src="{{picture}}" alt="{{name}}">{{/picture}}
    {{^picture}}<div class="avatar initials" aria-hidden="true">{{initials}}</div>{{/picture}}
    <h1>{{name}}</h1>
    {{#pronouns}}<div class="pronouns">{{pronouns}}</div>{{/pronouns}}
    {{#role}}<p class="role">{{role}}</p>{{/role}}
    {{#tagline}}<p class="tagline">{{tagline}}</p>{{/tagline}}
    </header>
    <div class="actions"><a class="save" href="{{vcard}}" download>Save contact</a>{{#url}}<button class="share" type="button" data-url="{{url}}" hidden>Share</button>{{/url}}</div>
    <p class="status" role="status"></p>
    {{#hasContacts}}<ul class="contacts">
    {{#contacts}}<li>{{#href}}<a href="{{href}}"><span class="label">{{label}}</span>{{text}}</a>{{/href}}{{^href}}<span><span class="label">{{label}}</span>{{text}}</span>{{/href}}</li>
    {{/contacts}}</ul>{{/hasContacts}}
    {{#hasSocial}}<section><h2>Social</h2><div class="social">
    {{#social}}<a class="{{network}}" href="{{url}}" rel="me noopener">{{label}}</a>
    {{/social}}</div></section>{{/hasSocial}}
    {{#about}}<section><h2>About</h2><p class="text">{{about}}</p></section>{{/about}}
    {{#message}}<section class="message"><h2>{{header}}</h2><p class="text">{{text}}</p></section>{{/message}}
    {{#hasLinks}}<section><h2>Links</h2><ul class="links">
    {{#links}}<li><a href="{{url}}" rel="noopener">{{text}}</a></li>
    {{/links}}</ul></section>{{/hasLinks}}
    {{#cv}}<section class="cv"><h2>{{header}}</h2>{{#description}}<p class="text">{{description}}</p>{{/description}}
    <ul><li><a href="{{url}}" rel="noopener">{{text}}</a></li></ul></section>{{/cv}}
    {{#qr}}<section><h2>Scan to open this card</h2><img class="qr" src="{{qr}}" alt="QR code of this card's link" width="176" height="176"></section>{{/qr}}
    </article>
    <footer>{{#url}}{{url}}{{/url}}</footer>
    {{/body}}{{/layout}}
    """

  /// The inactive, placeholder and not-found pages.
  static let notice = """
    {{<layout}}{{$body}}
    <div class="card notice">
    <h1>{{heading}}</h1>
    {{#detail}}<p>{{detail}}</p>{{/detail}}
    {{#link}}<p><a href="{{href}}">{{text}}</a></p>{{/link}}
    </div>
    {{/body}}{{/layout}}
    """

  static func library() throws -> MustacheLibrary {
    var library = MustacheLibrary()
    try library.register(layout, named: "layout")
    try library.register(card, named: "card")
    try library.register(notice, named: "notice")
    try AccountTemplates.register(in: &library)
    return library
  }
}
