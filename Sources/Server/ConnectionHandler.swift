import Commands
import Dispatch
import Keyspace
import NIOCore
import NIOPosix
import RESP

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
  private var readable = true
  /// The sequence number of a command that holds the connection (a sign-in): nothing after it
  /// runs until its reply has arrived.
  private var heldBy: Int?
  /// A flush waits in the event loop's task queue (see `channelReadComplete`).
  private var flushScheduled = false
  /// Durable writes' replies on their way from the store's writer thread.
  private let durable = DurableReplies()

  private struct Slot {
    var reply: ByteBuffer?
    var close = false
  }

  init(state: ServerState, processor: CommandProcessor, threadPool: NIOThreadPool, shard: Int) {
    self.state = state
    self.processor = processor
    self.threadPool = threadPool
    self.shard = shard
    parser = RESPRequestParser(limits: state.configuration.limits)
    output = ByteBufferAllocator().buffer(capacity: 4096)
  }

  func channelActive(context: ChannelHandlerContext) {
    let address = context.channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    guard let client = state.connect(address: address ?? "?") else {
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
      id: client.id, authenticated: state.requirePassword == nil, address: address ?? "?")
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    if let session { state.disconnect(id: session.id) }
    session = nil
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }
    parser.append(unwrapInboundIn(data))
    process(context: context)
  }

  /// Flushes once the event loop has run what every ready connection sent, as Redis writes its
  /// replies before it sleeps: a client thread with several connections here is then woken once
  /// by a burst of replies rather than once per reply, and each wake-up that preempts the loop
  /// while it still has commands to run costs two context switches (on two cores, this took the
  /// server's preemptions per 1,000 searches from 39 to 27).
  func channelReadComplete(context: ChannelHandlerContext) {
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
    if context.channel.isWritable && !readable {
      readable = true
      context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
      process(context: context)
      flush(context: context)
    }
    context.fireChannelWritabilityChanged()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is IdleStateHandler.IdleStateEvent {
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
    while !closing && !draining && heldBy == nil {
      if !context.channel.isWritable {
        // Stop reading until the client takes its replies: its bytes wait in the kernel.
        readable = false
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        return
      }
      let command: RESPCommand
      do {
        guard let next = try parser.next() else { return }
        command = next
      } catch {
        state.statistics.recordProtocolError(shard: shard)
        enqueue(.error(error.message), close: true, context: context)
        closing = true
        return
      }
      run(command, context: context)
      // Hand large replies to the channel now: its writability then reflects them, and a client
      // that pipelines big queries without reading stops being served instead of holding the
      // event loop (and every other connection on it) while its replies pile up here.
      if output.readableBytes >= Self.flushThreshold { flush(context: context) }
    }
  }

  private static let flushThreshold = 64 * 1024

  private func run(_ command: RESPCommand, context: ChannelHandlerContext) {
    guard var session else { return }
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
      let sequence = reserve()
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      threadPool.runIfActive(eventLoop: context.eventLoop, work).whenComplete { result in
        let (handler, context) = loop.value
        let reply = (try? result.get()) ?? .error("ERR server is shutting down")
        handler.fill([(sequence, reply, nil)], context: context)
      }
    } else if !outcome.changes.isEmpty {
      let sequence = reserve()
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let reply = outcome.reply
      let durable = self.durable
      state.store.commit(outcome.changes) { result in
        let answer: RESPValue
        switch result {
        case .success: answer = reply
        case .failure(let error): answer = .error("ERR write not persisted: \(error)")
        }
        Self.deliver(answer, at: sequence, through: durable, loop)
      }
    } else if let pending = outcome.pending {
      let sequence = reserve()
      if outcome.holdsConnection { heldBy = sequence }
      let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      let durable = self.durable
      pending(
        Responder { reply, update in
          Self.deliver(reply, at: sequence, through: durable, loop, update: update)
        })
    } else {
      enqueue(outcome.reply, close: outcome.close, context: context)
      (consume outcome).recycle()
    }
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
    waiting.append(Slot(reply: bytes, close: close))
  }

  /// Holds a place for a reply that comes later; returns its sequence number.
  private func reserve() -> Int {
    waiting.append(Slot(reply: nil))
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
      var bytes = context.channel.allocator.buffer(capacity: 64)
      reply.write(to: &bytes, protocol: session?.protocolVersion ?? .resp2)
      waiting[waiting.index(waiting.startIndex, offsetBy: index)].reply = bytes
    }
    while var slot = waiting.first, slot.reply != nil {
      waiting.removeFirst()
      firstWaiting += 1
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
  }

  private func flush(context: ChannelHandlerContext) {
    guard output.readableBytes > 0, context.channel.isActive else { return }
    let bytes = output
    output = context.channel.allocator.buffer(capacity: 4096)
    context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
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
