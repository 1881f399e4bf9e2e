import Foundation
import Hummingbird
import NIOCore
import PreviewImages

/// The files every page names: `/favicon.ico`, the web manifest and its icons (drawn once, at
/// start, by `PreviewImages`), and the card page's script.
struct SiteFiles: Sendable {
  struct File: Sendable {
    let type: String
    let bytes: ByteBuffer
  }

  let files: [String: File]

  init() throws {
    func file(_ type: String, _ bytes: [UInt8]) -> File {
      File(type: type, bytes: ByteBuffer(bytes: bytes))
    }
    files = [
      "/favicon.ico": file("image/x-icon", try PreviewImages.favicon()),
      "/icons/192.png": file("image/png", try PreviewImages.icon(size: 192)),
      "/icons/512.png": file("image/png", try PreviewImages.icon(size: 512)),
      "/manifest.webmanifest": file("application/manifest+json", Array(Self.manifest.utf8)),
      "/static/card.js": file(
        "text/javascript; charset=utf-8", Array(CardScript.javascript.utf8)),
    ]
  }

  /// What a browser installing the site or pinning a page reads: its name, colours and icons.
  static let manifest = """
    {"name":"CardAtlas","short_name":"CardAtlas","start_url":"/","display":"browser",\
    "background_color":"#f4f5f7","theme_color":"\(PreviewImages.accent.hex)",\
    "icons":[{"src":"/icons/192.png","sizes":"192x192","type":"image/png"},\
    {"src":"/icons/512.png","sizes":"512x512","type":"image/png"}]}

    """

  func add(to router: Router<PageContext>) {
    for (path, file) in files {
      router.get(RouterPath(path)) { _, _ in
        Response(
          status: .ok,
          headers: [
            .contentType: file.type, .xContentTypeOptions: "nosniff",
            .cacheControl: "public, max-age=86400",
          ],
          body: .init(byteBuffer: file.bytes))
      }
    }
  }
}
