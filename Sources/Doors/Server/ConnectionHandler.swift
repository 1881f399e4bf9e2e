import Commands
import Dispatch
import Durability
import Keyspace
import KeyspaceStore
import NIOCore
import NIOPosix
import RESP
import RateLimits

/// One client connection: frames its bytes into commands, runs them, and writes the replies in
/// order. A write's reply waits until the store has made it durable, and holds back the replies
/// after it; reads meanwhile still run, so a pipeline keeps both cores busy.
final class ConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Asks a connection to finish what it has read and close (graceful shutdown).
  struct Drain {}

  private let state: ServerState
  private let processor: CommandProcessor
  private let threadPool: NIOThreadPool
  private let shard: Int
  private let turns: Turns
  private var parser: RESPRequestParser
  private var session: Session?
  private var client: ServerState.Client?
  /// Replies not yet written, in command order; nil bytes mean still waiting.
  private var waiting = CircularBuffer<Slot>()
  /// Sequence number of `waiting.first`.
  private var firstWaiting = 0
  private var output: ByteBuffer
  private var closing = false
  private var draining = false
  /// Reading is on (autoRead). Off while the client does not take its replies, while replies
  /// held behind a pending write exceed `heldLimit`, and while the loop's other connections
  /// have their turn after a large batch of replies.
  private var readable = true
  /// The sequence number of a command that holds the connection: work run off the loop (a
  /// large search, BACKUP), or a sign-in whose reply changes the session. Nothing after it runs
  /// until its reply has arrived, so commands run in the order they were sent.
  private var heldBy: Int?
  /// Reading waits for the other connections' turn (see `process`).
  private var turnYielded = false
  /// Bytes of ready replies held in `waiting` behind one that is not.
  private var heldBytes = 0
  /// Bytes that pending replies still being made will hold (`Outcome.replyBytes`): counted as
  /// held before they exist, so that a pipeline of large replies is made one at a time.
  private var expectedBytes = 0
  /// Bytes of the requests whose replies wait in `waiting` for the store (their changes wait
  /// in its queue) or the thread pool.
  private var unansweredBytes = 0
  /// This connection's share of its event loop's `ServerState.ClientMemory`.
  private var countedMemory = 0
  /// When the replies not yet taken went over the soft output limit; nil while under it.
  private var overSoftLimitSince: UInt64?
  private var softLimitCheckScheduled = false
  /// A flush waits in the event loop's task queue (see `channelReadComplete`).
  private var flushScheduled = false
  /// Durable writes' replies on their way from the store's writer thread.
  private let durable = DurableReplies()
  /// The sequence number of a (P)SUBSCRIBE's confirmation held behind a pending reply: RESP3
  /// messages wait behind it, so that none arrives before its subscription is confirmed.
  private var confirmation: Int?

  private struct Slot {
    var reply: ByteBuffer?
    /// Large bulk strings and the bytes before each, sent ahead of `reply` without a copy.
    var parts: [ByteBuffer] = []
    var close = false
    /// The request's size while its reply is pending.
    var request = 0
    /// The reply's `Outcome.replyBytes` while it is pending.
    var expected = 0

    var size: Int { parts.reduce(reply?.readableBytes ?? 0) { $0 + $1.readableBytes } }
  }

  init(
    state: ServerState, processor: CommandProcessor, threadPool: NIOThreadPool, shard: Int,
    turns: Turns
  ) {
    self.state = state
    self.processor = processor
    self.threadPool = threadPool
    self.shard = shard
    self.turns = turns
    parser = RESPRequestParser(limits: state.configuration.limits)
    output = ByteBufferAllocator().buffer(capacity: 4096)
  }

  func channelActive(context: ChannelHandlerContext) {
    let remote = context.channel.remoteAddress
    let address = remote.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    guard let client = state.connect(address: address ?? "?", channel: context.channel) else {
      var buffer = context.channel.allocator.buffer(capacity: 64)
      buffer.writeString("-ERR max number of clients reached\r\n")
      let channel = context.channel
      context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
        channel.close(promise: nil)
      }
      closing = true
      return
    }
    self.client = client
    session = Session(
      id: client.id, authenticated: state.requirePassword == nil, address: address ?? "?",
      client: ClientAddress.key(remote?.ipAddress ?? "?"))
    let channel = context.channel
    state.pubsub.connect(client.id) { message in
      channel.pipeline.fireUserInboundEventTriggered(message)
    }
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    if let session { state.disconnect(id: session.id) }
    session = nil
    client = nil
    state.clientMemory.add(-countedMemory, shard: shard)
    countedMemory = 0
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }
    parser.append(unwrapInboundIn(data))
    process(context: context)
    account(context: context)
  }

  /// Flushes once the event loop has run what every ready connection sent, as Redis writes its
  /// replies before it sleeps: a client thread with several connections here is then woken once
  /// by a burst of replies rather than once per reply, and each wake-up that preempts the loop
  /// while it still has commands to run costs two context switches (on two cores, this took the
  /// server's preemptions per 1,000 searches from 39 to 27).
  func channelReadComplete(context: ChannelHandlerContext) {
    scheduleFlush(context: context)
  }

  private func scheduleFlush(context: ChannelHandlerContext) {
    guard !flushScheduled, output.readableBytes > 0 else { return }
    flushScheduled = true
    let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    context.eventLoop.execute {
      let (handler, context) = loop.value
      handler.flushScheduled = false
      handler.flush(context: context)
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    account(context: context)
    resumeReading(context: context)
    context.fireChannelWritabilityChanged()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let message = event as? PubSubHub.Message {
      deliver(message, context: context)
    } else if event is IdleStateHandler.IdleStateEvent {
      closing = true
      context.close(promise: nil)
    } else if event is Drain {
      draining = true
      context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
      closeWhenDone(context: context)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    closing = true
    context.close(promise: nil)
  }

  /// Runs every complete command received, until the client stops keeping up with replies.
  private func process(context: ChannelHandlerContext) {
    while readable && !closing && !draining && heldBy == nil {
      // Stop reading until the client takes its replies, or until the writes that hold them
      // back are durable: its bytes wait in the kernel. Held replies count as the channel's
      // would: a client that pipelines large reads behind a write and never reads had all
      // their replies held here (8 such connections took the RSS from 52 to 860 MB). Replies
      // still being made count too: 50 pipelined DOC.GETs of 5 MB were all made at once, and
      // 8 clients sending them took 1.8 GB.
      if !context.channel.isWritable || heldBytes + expectedBytes > Self.heldLimit
        || unansweredBytes > Self.unansweredLimit
      {
        pauseReading(context: context)
        return
      }
      let command: RESPCommand
      let unparsed = parser.bufferedByteCount
      do {
        guard let next = try parser.next() else { return }
        command = next
      } catch {
        state.statistics.recordProtocolError(shard: shard)
        enqueue(.error(error.message), close: true, context: context)
        closing = true
        return
      }
      run(command, size: unparsed - parser.bufferedByteCount, context: context)
      // Hand large replies to the channel now: its writability then reflects them, and a client
      // that pipelines big queries without reading stops being served instead of holding the
      // event loop (and every other connection on it) while its replies pile up here. Then let
      // the loop's other connections run: the kernel takes megabytes before the channel turns
      // unwritable, and a turn that lasted until then kept a PING waiting tens of milliseconds.
      if output.readableBytes >= Self.flushThreshold {
        flush(context: context)
        yieldTurn(context: context)
      }
    }
  }

  private static let flushThreshold = 64 * 1024
  /// Held replies past which reading stops, as much as the channel buffers before it turns
  /// unwritable (NIO's default high water mark).
  private static let heldLimit = 64 * 1024
  /// Requests waiting for the store past which reading stops: a client that pipelines writes
  /// faster than the store commits them would otherwise fill the store's queue. A bulk load's
  /// GEOADDs of 1,000 members (40 KB) still go some 25 to a transaction.
  private static let unansweredLimit = 1024 * 1024

  private func pauseReading(context: ChannelHandlerContext) {
    guard readable else { return }
    readable = false
    client?.reading.store(false, ordering: .relaxed)
    context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
  }

  /// Reads and runs commands again once nothing holds reading back.
  private func resumeReading(context: ChannelHandlerContext) {
    guard !readable, !turnYielded, !closing, !draining, context.channel.isWritable,
      heldBytes + expectedBytes <= Self.heldLimit, unansweredBytes <= Self.unansweredLimit
    else { return }
    readable = true
    client?.reading.store(true, ordering: .relaxed)
    context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    process(context: context)
    flush(context: context)
  }

  /// Pauses this connection until the event loop has served what the others sent.
  private func yieldTurn(context: ChannelHandlerContext) {
    guard !closing, !turnYielded else { return }
    pauseReading(context: context)
    turnYielded = true
    turns.add {
      self.turnYielded = false
      self.resumeReading(context: context)
    }
  }

  private func run(_ command: RESPCommand, size: Int, context: ChannelHandlerContext) {
    guard var session else { return }
    let subscriptions = session.subscriptions
    let started = DispatchTime.now().uptimeNanoseconds
    let outcome = processor.execute(Arguments(command), session: &session)
    self.session = session
    let finished = DispatchTime.now().uptimeNanoseconds
    let elapsed = finished - started
    var failed = false
    if case .error = outcome.reply { failed = true }
    state.statistics.record(
      shard: shard, command: outcome.commandID, nanoseconds: elapsed, failed: failed)
    client?.ran(outcome.commandID, at: finished)
    if outcome.close { closing = true }

    if let work = outcome.deferred {
      let sequence = reserve(size)
      heldBy = sequence
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      threadPool.runIfActive(eventLoop: context.eventLoop, work).whenComplete { result in
        let (handler, context) = loop.value
        let reply = (try? result.get()) ?? .error("ERR server is shutting down")
        handler.fill([(sequence, reply, nil)], context: context)
      }
    } else if !outcome.commits.isEmpty {
      let sequence = reserve(size)
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let reply = outcome.reply
      let durable = self.durable
      Commit.whenAll(outcome.commits) { result in
        let answer: RESPValue
        switch result {
        case .success: answer = reply
        case .failure(let error as any StoreFailure) where error.nothingWritten:
          answer = .error("TRYAGAIN write not persisted, nothing written: \(error)")
        case .failure(let error): answer = .error("ERR write not persisted: \(error)")
        }
        Self.deliver(answer, at: sequence, through: durable, loop)
      }
    } else if let pending = outcome.pending {
      let sequence = reserve(size, expected: outcome.replyBytes)
      if outcome.holdsConnection { heldBy = sequence }
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let durable = self.durable
      pending(
        Responder { reply, update in
          Self.deliver(reply, at: sequence, through: durable, loop, update: update)
        })
    } else {
      let held = !waiting.isEmpty
      enqueue(outcome.reply, close: outcome.close, context: context)
      (consume outcome).recycle()
      if held && session.subscriptions > subscriptions {
        confirmation = firstWaiting + waiting.count - 1
      }
    }
  }

  /// A published message for this connection, written between whole replies. In RESP2 it
  /// takes its place in command order: the client reads every frame as the next reply, so it
  /// waits behind replies still pending (a durable write's, for a few milliseconds). In RESP3
  /// it is a push, which clients tell from replies: it goes out at once, ahead of replies still
  /// pending, and never waits behind a slow pipelined write; only a subscription's own
  /// confirmation, if still pending, goes first.
  private func deliver(_ message: PubSubHub.Message, context: ChannelHandlerContext) {
    guard !closing, let session, state.pubsub.hears(session.id, message),
      ChannelAccess.mayHear(message.channel, session, requirePassword: state.requirePassword)
    else { return }
    let version = session.protocolVersion
    let inOrder = version == .resp2 || (confirmation.map { $0 >= firstWaiting } ?? false)
    if waiting.isEmpty || !inOrder {
      message.frame.write(to: &output, protocol: version)
    } else {
      var bytes = context.channel.allocator.buffer(capacity: 64)
      message.frame.write(to: &bytes, protocol: version)
      heldBytes += bytes.readableBytes
      waiting.append(Slot(reply: bytes))
    }
    scheduleFlush(context: context)
    account(context: context)
  }

  /// Hands a reply made on another thread (the store's writer, a domain's) to its place:
  /// replies gather in `durable` and fill their places in one event-loop task.
  private static func deliver(
    _ answer: RESPValue, at sequence: Int, through durable: DurableReplies,
    _ loop: NIOLoopBound<(ConnectionHandler, ChannelHandlerContext)>,
    update: SessionUpdate? = nil
  ) {
    guard durable.add(sequence, answer, update: update) else { return }
    loop.eventLoop.execute {
      let (handler, context) = loop.value
      handler.fill(handler.durable.take(), context: context)
    }
  }

  /// Queues a ready reply behind any that are still waiting.
  private func enqueue(_ reply: RESPValue, close: Bool, context: ChannelHandlerContext) {
    if waiting.isEmpty {
      reply.write(to: &output, protocol: session?.protocolVersion ?? .resp2)
      if close { closeAfterWrite(context: context) }
      return
    }
    var bytes = context.channel.allocator.buffer(capacity: 64)
    reply.write(to: &bytes, protocol: session?.protocolVersion ?? .resp2)
    heldBytes += bytes.readableBytes
    waiting.append(Slot(reply: bytes, close: close))
  }

  /// Holds a place for a reply that comes later; returns its sequence number.
  private func reserve(_ request: Int, expected: Int = 0) -> Int {
    unansweredBytes += request
    expectedBytes += expected
    waiting.append(Slot(reply: nil, request: request, expected: expected))
    return firstWaiting + waiting.count - 1
  }

  /// Held replies have arrived: write every ready one, in order, and flush once. A reply that
  /// changes the session changes it first, and one that held the connection lets it go on.
  private func fill(_ replies: [DurableReplies.Entry], context: ChannelHandlerContext) {
    var released = false
    for (sequence, reply, update) in replies {
      let index = sequence - firstWaiting
      guard index >= 0, index < waiting.count else { continue }
      if let update, var session {
        update(&session)
        self.session = session
        state.sessionChanged(session)
      }
      if sequence == heldBy {
        heldBy = nil
        released = true
      }
      let slot = waiting.index(waiting.startIndex, offsetBy: index)
      var bytes = context.channel.allocator.buffer(capacity: 64)
      reply.write(
        to: &bytes, parts: &waiting[slot].parts, protocol: session?.protocolVersion ?? .resp2)
      waiting[slot].reply = bytes
      heldBytes += waiting[slot].size
      unansweredBytes -= waiting[slot].request
      expectedBytes -= waiting[slot].expected
      waiting[slot].request = 0
      waiting[slot].expected = 0
    }
    while var slot = waiting.first, slot.reply != nil {
      waiting.removeFirst()
      firstWaiting += 1
      heldBytes -= slot.size
      for part in slot.parts { write(part, context: context) }
      output.writeBuffer(&slot.reply!)
      if slot.close {
        closeAfterWrite(context: context)
        return
      }
    }
    flush(context: context)
    if draining { closeWhenDone(context: context) }
    if (waiting.isEmpty || released) && readable && !closing {
      process(context: context)
      flush(context: context)
    }
    resumeReading(context: context)
    account(context: context)
  }

  /// Writes `part` after the output so far, without copying it into the output.
  private func write(_ part: ByteBuffer, context: ChannelHandlerContext) {
    if output.readableBytes > 0 {
      context.write(wrapOutboundOut(output), promise: nil)
      output = context.channel.allocator.buffer(capacity: 4096)
    }
    context.write(wrapOutboundOut(part), promise: nil)
  }

  private func flush(context: ChannelHandlerContext) {
    guard output.readableBytes > 0, context.channel.isActive else { return }
    let bytes = output
    output = context.channel.allocator.buffer(capacity: 4096)
    context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    account(context: context)
  }

  // MARK: Client memory

  /// Publishes this connection's buffers for CLIENT LIST, applies the query and output limits,
  /// and counts its memory toward `maxmemory-clients`. A few loads and stores per request: the
  /// channel's own buffer is asked for only once it is past its high water mark, and the
  /// loop's total is touched only when this connection's use has moved by `granularity`.
  private func account(context: ChannelHandlerContext) {
    guard let client, !closing else { return }
    let unparsed = parser.bufferedByteCount
    let arguments = parser.argumentByteCount
    let query = unparsed + arguments
    if query > state.limits.queryBuffer.load(ordering: .relaxed) {
      state.statistics.queryBufferLimitDisconnections.add(1, ordering: .relaxed)
      return close(context: context, "Closing client that reached max query buffer length")
    }
    var omem = heldBytes + expectedBytes
    if !context.channel.isWritable,
      let buffered = try? context.channel.syncOptions?.getOption(
        ChannelOptions.bufferedWritableBytes)
    {
      omem += buffered
    }
    let free = parser.freeCapacity
    let total = query + free + output.capacity + omem + unansweredBytes
    client.queryBuffer.store(unparsed, ordering: .relaxed)
    client.queryBufferFree.store(free, ordering: .relaxed)
    client.argumentBytes.store(arguments, ordering: .relaxed)
    client.outputBuffer.store(output.readableBytes, ordering: .relaxed)
    client.outputList.store(waiting.count, ordering: .relaxed)
    client.outputMemory.store(omem, ordering: .relaxed)
    client.totalMemory.store(total, ordering: .relaxed)
    let pending = output.readableBytes + omem
    // Redis's pubsub class: a connection with subscriptions.
    let limit =
      (session?.subscriptions ?? 0) > 0 ? state.limits.pubsubOutput : state.limits.output
    if (limit.hard > 0 && pending >= limit.hard) || (limit.soft > 0 && pending >= limit.soft)
      || overSoftLimitSince != nil
    {
      guard withinOutputLimit(pending, limit, context: context) else {
        state.statistics.outputBufferLimitDisconnections.add(1, ordering: .relaxed)
        return close(
          context: context, "Client closed for overcoming of output buffer limits")
      }
    }
    // The bytes held, not the buffers' spare room: the read buffer's size moves with NIO's
    // adaptive allocator by up to 64 KiB between reads, and would touch the total on most of a
    // busy connection's reads.
    let held = query + pending + unansweredBytes
    let change = held - countedMemory
    if change >= ServerState.ClientMemory.granularity
      || change <= -ServerState.ClientMemory.granularity
    {
      countedMemory = held
      client.counted.store(held, ordering: .relaxed)
      state.clientMemory.add(change, shard: shard)
      if change > 0 { state.evictClientsIfNeeded() }
    }
  }

  /// Redis's test of `client-output-buffer-limit`: false once `pending` reaches the hard
  /// limit, or has stayed at the soft limit or above for longer than its seconds (checked
  /// again when they have passed, since a client that reads nothing adds nothing).
  private func withinOutputLimit(
    _ pending: Int, _ limit: OutputBufferLimit, context: ChannelHandlerContext
  ) -> Bool {
    if limit.hard > 0 && pending >= limit.hard { return false }
    guard limit.soft > 0 && pending >= limit.soft else {
      overSoftLimitSince = nil
      return true
    }
    let now = ServerState.now()
    // At most 136 years, so that the nanoseconds fit.
    let allowed = UInt64(min(limit.softSeconds, 1 << 32)) * 1_000_000_000
    guard let since = overSoftLimitSince else {
      overSoftLimitSince = now
      checkAgain(in: allowed + 1_000_000, context: context)
      return true
    }
    if now - since > allowed { return false }
    checkAgain(in: since + allowed + 1_000_000 - now, context: context)
    return true
  }

  private func checkAgain(in nanoseconds: UInt64, context: ChannelHandlerContext) {
    guard !softLimitCheckScheduled else { return }
    softLimitCheckScheduled = true
    let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: .nanoseconds(Int64(nanoseconds))) {
      let (handler, context) = loop.value
      handler.softLimitCheckScheduled = false
      handler.account(context: context)
    }
  }

  /// Closes the connection at once for a limit, as Redis does (no reply), and logs why.
  private func close(context: ChannelHandlerContext, _ reason: String) {
    if let client { state.logger.warning("\(reason): \(state.line(client).dropLast())") }
    closing = true
    context.close(promise: nil)
  }

  private func closeAfterWrite(context: ChannelHandlerContext) {
    closing = true
    let bytes = output
    output = context.channel.allocator.buffer(capacity: 0)
    let draining = self.draining
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in
      if draining {
        Self.linger(channel)
      } else {
        channel.close(promise: nil)
      }
    }
  }

  /// Ends a drained connection once its last replies are written: closing a socket whose
  /// client has sent more than was read resets the connection, and the client can then lose
  /// replies still on their way to it. So the output is shut (the client reads every reply,
  /// then the end), and what the client still sends is read and dropped (`closing` drops it)
  /// until it closes too, or for at most `lingerTime`.
  private static func linger(_ channel: Channel) {
    channel.close(mode: .output, promise: nil)
    channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    channel.eventLoop.scheduleTask(in: lingerTime) { channel.close(promise: nil) }
  }

  private static let lingerTime = TimeAmount.seconds(1)

  private func closeWhenDone(context: ChannelHandlerContext) {
    guard waiting.isEmpty, !closing else { return }
    closeAfterWrite(context: context)
  }
}
