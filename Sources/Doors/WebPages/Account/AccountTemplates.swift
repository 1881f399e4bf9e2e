import Mustache

/// The account pages' templates, on the pages' layout: one form page drawn from its fields
/// (sign up, sign in, reset, a card), the list of the account's cards, and the wallet. Every
/// value is escaped (`{{ }}`); every form carries its CSRF token (`WebSession`).
enum AccountTemplates {
  /// What forms and lists add to the pages' style sheet (its own CSP hash).
  static let css = """
    form{margin:0}
    label{display:block;margin:.9rem 0 0;font-weight:600;font-size:.9rem}
    input,textarea{display:block;width:100%;margin-top:.3rem;padding:.65rem .75rem;font:inherit;\
    color:var(--text);background:var(--bg);border:1px solid var(--line);border-radius:.6rem}
    textarea{min-height:6rem}
    label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
    label.check input{width:auto;margin:0}
    button,.button{display:inline-block;margin-top:1.2rem;padding:.75rem 1.2rem;border:0;\
    border-radius:.75rem;font:inherit;font-weight:600;background:var(--accent);\
    color:var(--on-accent);text-decoration:none;cursor:pointer}
    button.quiet{background:none;color:var(--muted);border:1px solid var(--line);margin:0;\
    padding:.4rem .8rem}
    .error{color:#c62828;font-weight:600}
    .done{color:var(--muted)}
    nav{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;margin-bottom:1rem}
    nav a{color:var(--accent)}
    nav form{margin-left:auto}
    .items li{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.6rem 0}
    .items li a.name{flex:1;padding:0;font-weight:600}
    .items li span{padding:0;color:var(--muted)}
    .alt{margin-top:1.2rem;color:var(--muted)}
    .alt a{color:var(--accent)}
    """

  static let styleHash = PageTemplates.hash(css)

  /// The signed-in account's links, and signing out (a POST, with the token).
  static let nav = """
    <nav><a href="/account/cards">My cards</a><a href="/account/wallet">Wallet</a>\
    <a href="/map">Map</a><form method="post" action="/account/signout">\
    <input type="hidden" name="csrf" value="{{csrf}}">\
    <button class="quiet" type="submit">Sign out</button></form></nav>
    """

  /// The forms' style sheet, and a referrer policy under which a form's POST says its origin.
  static let head =
    "{{$referrer}}\(referrerPolicy){{/referrer}}{{$head}}<style>\(css)</style>\n{{/head}}"
  static let referrerPolicy = "same-origin"

  /// A form page: `fields` each a text input (`type`), a textarea, a checkbox or a file.
  static let form = """
    {{<layout}}\(head){{$body}}
    <div class="card">
    {{#signedIn}}\(nav){{/signedIn}}
    <h1>{{heading}}</h1>
    {{#intro}}<p class="done">{{intro}}</p>{{/intro}}
    {{#done}}<p class="done" role="status">{{done}}</p>{{/done}}
    {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}"{{#multipart}} enctype="multipart/form-data"{{/multipart}}>
    <input type="hidden" name="csrf" value="{{csrf}}">
    {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/hidden}}{{#fields}}{{#checkbox}}<label class="check"><input type="checkbox" name="{{name}}" value="on"{{#checked}} checked{{/checked}}>{{label}}</label>
    {{/checkbox}}{{#textarea}}<label>{{label}}<textarea name="{{name}}" maxlength="{{maxLength}}">{{value}}</textarea></label>
    {{/textarea}}{{#input}}<label>{{label}}<input type="{{type}}" name="{{name}}" value="{{value}}"{{#autocomplete}} autocomplete="{{autocomplete}}"{{/autocomplete}}{{#accept}} accept="{{accept}}"{{/accept}}{{#required}} required{{/required}}{{#maxLength}} maxlength="{{maxLength}}"{{/maxLength}}></label>
    {{/input}}{{/fields}}<button type="submit">{{submit}}</button>
    </form>
    {{#links}}<p class="alt">{{before}} <a href="{{href}}">{{text}}</a></p>
    {{/links}}</div>
    {{/body}}{{/layout}}
    """

  /// The account's cards, each with its page, its edit form and a delete button.
  static let cards = """
    {{<layout}}\(head){{$body}}
    <div class="card">
    \(nav)
    <h1>My cards</h1>
    {{#done}}<p class="done" role="status">{{done}}</p>{{/done}}
    {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
    <ul class="items">
    {{#cards}}<li><a class="name" href="{{page}}">{{name}}</a><span>{{detail}}</span>\
    <a href="/account/cards/{{id}}">Edit</a>\
    <form method="post" action="/account/cards/{{id}}/delete"><input type="hidden" name="csrf" value="{{csrf}}">\
    <button class="quiet" type="submit">Delete</button></form></li>
    {{/cards}}</ul>
    {{^cards}}<p class="done">No card yet.</p>{{/cards}}
    <a class="button" href="/account/cards/new">New card</a>
    </div>
    {{/body}}{{/layout}}
    """

  /// The cards the account holds, newest first, and adding one by its code or link.
  static let wallet = """
    {{<layout}}\(head){{$body}}
    <div class="card">
    \(nav)
    <h1>Wallet</h1>
    {{#done}}<p class="done" role="status">{{done}}</p>{{/done}}
    {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
    <ul class="items">
    {{#entries}}<li>{{#page}}<a class="name" href="{{page}}">{{name}}</a>{{/page}}{{^page}}<span class="name">{{name}}</span>{{/page}}<span>{{detail}}</span>\
    <form method="post" action="/account/wallet/{{id}}/delete"><input type="hidden" name="csrf" value="{{csrf}}">\
    <button class="quiet" type="submit">Remove</button></form></li>
    {{/entries}}</ul>
    {{^entries}}<p class="done">No card in your wallet yet.</p>{{/entries}}
    <form method="post" action="/account/wallet">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <label>A card's share code or link<input type="text" name="card" required maxlength="300"></label>
    <button type="submit">Add to wallet</button>
    </form>
    </div>
    {{/body}}{{/layout}}
    """

  static func register(in library: inout MustacheLibrary) throws {
    try library.register(form, named: "account-form")
    try library.register(cards, named: "account-cards")
    try library.register(wallet, named: "account-wallet")
  }
}
