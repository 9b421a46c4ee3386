/// The tick handlers of one ``TempoTimer``, in the order they were added, with the ids handed out for removal.
///
/// The first handler, while it is the only one ever added (the usual case), is stored inline with no id beside it
/// (its id is 0): 17 bytes, no array. A value type that the timer keeps under its lock; the drain loop takes a copy
/// (which only retains the closures) and calls it outside the lock.
struct TimerHandlers {
    typealias Handler = @Sendable (TimerTick) -> Void

    private typealias Entry = (id: UInt64, handler: Handler)

    private enum Storage {
        /// No handler was ever added: the next id is 0.
        case empty
        /// Only handler 0 was ever added, and it is still here: the next id is 1.
        case first(Handler)
        /// Anything else: the handlers (possibly none) and the next id.
        case list([Entry], nextID: UInt64)
    }

    private var storage = Storage.empty

    /// The number of handlers.
    var count: Int {
        switch storage {
        case .empty: 0
        case .first: 1
        case .list(let list, _): list.count
        }
    }

    /// Adds a handler after the others; returns its id.
    mutating func add(_ handler: consuming @escaping Handler) -> UInt64 {
        switch storage {
        case .empty:
            storage = .first(handler)
            return 0
        case .first(let first):
            let list: [Entry] = [(id: UInt64(0), handler: first), (id: UInt64(1), handler: handler)]
            storage = .list(list, nextID: 2)
            return 1
        case .list(var list, let nextID):
            storage = .empty
            list.append((nextID, handler))
            storage = .list(list, nextID: nextID + 1)
            return nextID
        }
    }

    /// Removes the handler with `id`; returns it (to be released outside the lock), or `nil` if there is none.
    mutating func remove(id: UInt64) -> Handler? {
        switch storage {
        case .empty:
            return nil
        case .first(let handler):
            guard id == 0 else { return nil }
            storage = .list([], nextID: 1)
            return handler
        case .list(var list, let nextID):
            guard let index = list.firstIndex(where: { $0.id == id }) else { return nil }
            storage = .empty
            let removed = list.remove(at: index).handler
            storage = .list(list, nextID: nextID)
            return removed
        }
    }

    /// Removes every handler; returns them (to be released outside the lock). Later handlers get new ids.
    mutating func removeAll() -> TimerHandlers {
        let removed = self
        switch storage {
        case .empty: break
        case .first: storage = .list([], nextID: 1)
        case .list(_, let nextID): storage = .list([], nextID: nextID)
        }
        return removed
    }

    /// Calls every handler with `tick`, in order.
    ///
    /// Consuming: the drain calls a copy it took under the timer's lock and drops it after; the handlers are then moved
    /// out of it rather than copied again for the call (one retain and release fewer per tick).
    consuming func callAsFunction(_ tick: TimerTick) {
        let storage = self.storage
        switch consume storage {
        case .empty:
            break
        case .first(let handler):
            handler(tick)
        case .list(let list, _):
            for entry in list { entry.handler(tick) }
        }
    }
}
