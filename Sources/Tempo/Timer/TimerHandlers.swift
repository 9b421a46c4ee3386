/// The tick handlers of one ``TempoTimer``, in the order they were added, with the ids handed out for removal.
///
/// A single handler, the usual case, is stored inline: no array is allocated. A value type that the timer keeps
/// under its lock; the drain loop takes a copy (which only retains the closures) and calls it outside the lock.
struct TimerHandlers {
    typealias Handler = @Sendable (TimerTick) -> Void

    private enum Storage {
        case none
        case one(id: UInt64, Handler)
        case many([(id: UInt64, handler: Handler)])
    }

    private var storage = Storage.none
    private var nextID: UInt64 = 0

    /// The number of handlers.
    var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let list): list.count
        }
    }

    /// Adds a handler after the others; returns its id.
    mutating func add(_ handler: @escaping Handler) -> UInt64 {
        let id = nextID
        nextID += 1
        switch storage {
        case .none:
            storage = .one(id: id, handler)
        case .one(let first, let firstHandler):
            storage = .many([(first, firstHandler), (id, handler)])
        case .many(var list):
            storage = .none
            list.append((id, handler))
            storage = .many(list)
        }
        return id
    }

    /// Removes the handler with `id`; returns it (to be released outside the lock), or `nil` if there is none.
    mutating func remove(id: UInt64) -> Handler? {
        switch storage {
        case .none:
            return nil
        case .one(let only, let handler):
            guard only == id else { return nil }
            storage = .none
            return handler
        case .many(var list):
            guard let index = list.firstIndex(where: { $0.id == id }) else { return nil }
            storage = .none
            let removed = list.remove(at: index).handler
            storage = list.count == 1 ? .one(id: list[0].id, list[0].handler) : .many(list)
            return removed
        }
    }

    /// Removes every handler; returns them (to be released outside the lock).
    mutating func removeAll() -> TimerHandlers {
        defer { storage = .none }
        return self
    }

    /// Calls every handler with `tick`, in order.
    func callAsFunction(_ tick: TimerTick) {
        switch storage {
        case .none:
            break
        case .one(_, let handler):
            handler(tick)
        case .many(let list):
            for entry in list { entry.handler(tick) }
        }
    }
}
