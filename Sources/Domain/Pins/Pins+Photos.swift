import Dispatch
import Durability
import Foundation
import MediaFiles
import RateLimits

extension Pins {
  /// Sets (or replaces) the owner's pin's photo: a JPEG or PNG (by its magic bytes and a
  /// header that decodes) of at most `maxPhotoBytes`. Its file is written and synced before
  /// the row names it; a replaced photo's file goes once the new row is durable, and the new
  /// file goes if the row cannot be written.
  public func setPhoto(owner: Int64, id: Int64, bytes: [UInt8], _ done: @escaping Done<Pin>) {
    guard let pin = pin(id) else { return done(.failure(.notFound)) }
    guard pin.ownerId == owner else { return done(.failure(.noPermission)) }
    guard !bytes.isEmpty, bytes.count <= configuration.maxPhotoBytes else {
      return done(
        .failure(.invalid("photo", "must be 1 to \(configuration.maxPhotoBytes) bytes")))
    }
    guard let info = MediaInspector.inspect(bytes), Self.photoTypes.contains(info.type),
      let width = info.width, let height = info.height
    else { return done(.failure(.invalid("photo", "must be a JPEG or PNG image"))) }
    // Written and synced off the caller's thread (an event loop), one photo at a time, so
    // photos reach the store in the order they came.
    Self.photoWriter.async { [self] in
      store(photo: bytes, info.type, width, height, pin: id, owner: owner, done)
    }
  }

  private func store(
    photo bytes: [UInt8], _ type: MediaType, _ width: Int, _ height: Int, pin id: Int64,
    owner: Int64, _ done: @escaping Done<Pin>
  ) {
    let name: String
    do { name = try media.write(bytes, type: type) } catch {
      return done(.failure(.notPersisted("\(error)")))
    }
    let photo = PinPhoto(
      name: name, type: type.contentType, width: width, height: height, bytes: bytes.count)
    state.withLock { s in
      // The pin may have gone, or changed hands, while its file was written.
      guard var pin = s.pins[id], pin.ownerId == owner else {
        media.remove(name)
        return done(.failure(.notFound))
      }
      let replaced = pin.photo
      pin.photo = photo
      s.pins[id] = pin
      map.update(id, summary: summary(pin))
      let writes: [any DurableWrite] = [
        storage.settingPhoto(photo, of: id), AfterCommit { [self] in removePhotos([replaced]) },
      ]
      commit(writes) { [self, pin] result in
        if case .failure = result { media.remove(name) }
        done(result.map { pin })
      }
    }
  }

  /// The pin's photo, for `account` standing at the point: only from inside its circle, else
  /// how far its edge is. A point the account could not have reached since its last open
  /// (`OpenerTravel`) is refused, and so is an open past `opensPerHour`. The file is read off the
  /// caller's thread (an event loop).
  public func open(
    id: Int64, account: Int64, longitude: Double, latitude: Double,
    _ done: @escaping Done<[UInt8]>
  ) {
    guard Self.valid(longitude, latitude) else { return done(.failure(Self.badPoint)) }
    guard let pin = pin(id) else { return done(.failure(.notFound)) }
    if let wait = opens.take(["account:\(account)"]) {
      return done(
        .failure(
          .limited(LimitExceeded("at most \(opens.limit) PIN.OPEN an hour", retryAfter: wait))))
    }
    let now = Date().timeIntervalSince1970
    if let jump = travel.move(account, longitude: longitude, latitude: latitude, now: now) {
      return done(.failure(.implausibleMove(metres: jump.metres, seconds: jump.seconds)))
    }
    share(.opened(account: account, longitude: longitude, latitude: latitude, at: now))
    if let metres = Self.outside(pin, longitude: longitude, latitude: latitude) {
      return done(.failure(.notInRange(metres)))
    }
    guard let photo = pin.photo else { return done(.failure(.noPhoto)) }
    DispatchQueue.global().async { [media] in
      // A photo replaced or deleted meanwhile is gone: as if there were none.
      guard let bytes = try? media.read(photo.name) else { return done(.failure(.noPhoto)) }
      done(.success(bytes))
    }
  }

  static let photoTypes: Set<MediaType> = [.jpeg, .png]
  private static let photoWriter = DispatchQueue(label: "cardatlas.pins.photos")

  func removePhotos(_ photos: [PinPhoto?]) {
    for photo in photos { if let photo { media.remove(photo.name) } }
  }

  /// Removes the photos no pin names (written before a row that never committed, or left by a
  /// deletion that committed just before a crash).
  func sweepPhotos() {
    let named = state.withLock { s in
      Set(s.byOwner.values.joined().compactMap { s.pins[$0]?.photo?.name })
    }
    media.removeUnnamed(keeping: named)
  }
}
