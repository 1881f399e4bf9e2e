/// The kinds of file the service accepts: photos and profile images (JPEG, PNG, WebP) and
/// documents (PDF).
public enum MediaType: String, Sendable, CaseIterable, Codable {
  case jpeg, png, webp, pdf

  public var contentType: String {
    switch self {
    case .jpeg: "image/jpeg"
    case .png: "image/png"
    case .webp: "image/webp"
    case .pdf: "application/pdf"
    }
  }

  /// The file name extension the stored files carry.
  public var fileExtension: String {
    switch self {
    case .jpeg: "jpg"
    case .png: "png"
    case .webp: "webp"
    case .pdf: "pdf"
    }
  }

  public var isImage: Bool { self != .pdf }
}

/// What `MediaInspector` learned of a file: its type, and for an image its size in pixels.
public struct MediaInfo: Sendable, Equatable {
  public var type: MediaType
  public var width: Int?
  public var height: Int?

  public init(type: MediaType, width: Int? = nil, height: Int? = nil) {
    self.type = type
    self.width = width
    self.height = height
  }

  /// Width × height, for bounding what an image would take to decode; nil for a document.
  public var pixels: Int? { width.flatMap { w in height.map { w * $0 } } }
}
