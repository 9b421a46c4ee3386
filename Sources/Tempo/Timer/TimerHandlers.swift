/// The tick handlers of one ``TempoTimer``, in the order they were added, with the ids handed out for removal.
///
/// The first handler, while it is the only one ever added (the usual case), is stored inline with no id beside it
/// (its id is 0): 17 bytes, no array. A value type that the timer keeps under its lock. For a run, the drain loop
/// takes the handlers under the lock (``lend()``) and calls them outside it: that lone first handler is *lent*
/// (moved out, no reference count, and moved back by ``giveBack(_:)`` in the drain's next critical section), any other
/// set is copied (which only retains the closures). A lent handler removed meanwhile is handed back to the drain to
/// release, after its run, outside the lock; one added meanwhile goes after it.
struct TimerHandlers {
    typealias Handler = @Sendable (TimerTick) -> Void

    private typealias Entry = (id: UInt64, handler: Handler)

    private enum Storage {
        /// No handler was ever added: the next id is 0.
        case empty
        /// Only handler 0 was ever added, and it is still here: the next id is 1.
        case first(Handler)
        /// Handler 0, the only one, is lent to the run under way (see ``lend()``): the next id is 1.
        case lent
        /// Handler 0 is lent to the run under way and still registered; `list` holds the handlers added since (they
        /// come after it).
        case lentBefore([Entry], nextID: UInt64)
        /// Anything else: the handlers (possibly none) and the next id.
        case list([Entry], nextID: UInt64)
    }

    /// Handler 0 out on loan to a run (see ``lend()``).
    ///
    /// A nominal type around the closure, not the closure itself, so that it crosses generic code (`Optional`, the
    /// lock's `withLock`) as it is: a bare closure passed through a generic parameter is wrapped in a reabstraction thunk
    /// (an allocation), and a closure lent and given back on every tick would gain a thunk on every tick. An enum, not a
    /// struct: a consuming `switch` moves the closure out of its case, where reading a struct's field copies it (a
    /// retain and a release per tick).
    enum Lent {
        case handler(Handler)
    }

    /// The handlers of one run, taken under the timer's lock by ``lend()`` and called outside it.
    enum Run {
        /// Handler 0, the only one, moved out of the timer: the drain gives it back with ``giveBack(_:)``.
        case lent(Lent)
        /// A copy of the handlers, dropped after the run (outside the lock: it may hold the last references).
        case copied(TimerHandlers)

        /// Calls every handler of the run with `tick`, in order; returns the lent handler, for the drain to give back.
        ///
        /// Consuming: a lent closure is moved out of its case, called and moved back out, with no reference count.
        consuming func callAll(_ tick: TimerTick) -> Lent? {
            switch consume self {
            case .lent(let loan):
                switch consume loan {
                case .handler(let handler):
                    handler(tick)
                    return .handler(handler)
                }
            case .copied(let handlers):
                handlers.callAll(tick)
                return nil
            }
        }
    }

    private var storage = Storage.empty

    /// The number of handlers (a lent one included).
    var count: Int {
        switch storage {
        case .empty: 0
        case .first, .lent: 1
        case .lentBefore(let list, _): list.count + 1
        case .list(let list, _): list.count
        }
    }

    /// Takes the handlers for one run: the lone first handler is moved out (no retain, and no release after the run:
    /// a shared closure context is not a cache line that every run writes), any other set is copied.
    ///
    /// The caller gives a ``Run/lent(_:)`` handler back with ``giveBack(_:)`` before it lends again (one drain runs per
    /// timer at a time).
    mutating func lend() -> Run {
        guard case .first = storage else {
            assert(!isLent, "handlers were lent twice")
            return .copied(self)
        }
        var taken = Storage.lent
        swap(&taken, &storage)
        guard case .first(let handler) = consume taken else { preconditionFailure("unreachable: checked above") }
        return .lent(.handler(handler))
    }

    /// Puts back the handler ``lend()`` lent; returns it when it was removed meanwhile, for the caller to release
    /// outside the lock.
    mutating func giveBack(_ lent: consuming Lent) -> Lent? {
        switch storage {
        case .lent:
            switch consume lent {
            case .handler(let handler): storage = .first(handler)
            }
            return nil
        case .lentBefore(let list, let nextID):
            switch consume lent {
            case .handler(let handler): storage = .list([(id: UInt64(0), handler: handler)] + list, nextID: nextID)
            }
            return nil
        case .empty, .first, .list:
            return lent
        }
    }

    /// Whether handler 0 is lent to a run.
    private var isLent: Bool {
        switch storage {
        case .lent, .lentBefore: true
        case .empty, .first, .list: false
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
        case .lent:
            storage = .lentBefore([(id: UInt64(1), handler: handler)], nextID: 2)
            return 1
        case .lentBefore(var list, let nextID):
            storage = .empty
            list.append((nextID, handler))
            storage = .lentBefore(list, nextID: nextID + 1)
            return nextID
        case .list(var list, let nextID):
            storage = .empty
            list.append((nextID, handler))
            storage = .list(list, nextID: nextID + 1)
            return nextID
        }
    }

    /// Removes the handler with `id`; returns whether there was one, and the closure to release outside the lock (`nil`
    /// for a lent handler: the run that holds it releases it once it gives it back).
    mutating func remove(id: UInt64) -> (found: Bool, handler: Handler?) {
        switch storage {
        case .empty:
            return (false, nil)
        case .first(let handler):
            guard id == 0 else { return (false, nil) }
            storage = .list([], nextID: 1)
            return (true, handler)
        case .lent:
            guard id == 0 else { return (false, nil) }
            storage = .list([], nextID: 1)
            return (true, nil)
        case .lentBefore(var list, let nextID):
            if id == 0 {
                storage = .list(list, nextID: nextID)
                return (true, nil)
            }
            guard let index = list.firstIndex(where: { $0.id == id }) else { return (false, nil) }
            storage = .empty
            let removed = list.remove(at: index).handler
            storage = .lentBefore(list, nextID: nextID)
            return (true, removed)
        case .list(var list, let nextID):
            guard let index = list.firstIndex(where: { $0.id == id }) else { return (false, nil) }
            storage = .empty
            let removed = list.remove(at: index).handler
            storage = .list(list, nextID: nextID)
            return (true, removed)
        }
    }

    /// Removes every handler; returns them (to be released outside the lock). Later handlers get new ids.
    mutating func removeAll() -> TimerHandlers {
        let removed = self
        switch storage {
        case .empty: break
        case .first, .lent: storage = .list([], nextID: 1)
        case .list(_, let nextID), .lentBefore(_, let nextID): storage = .list([], nextID: nextID)
        }
        return removed
    }

    /// Calls every handler with `tick`, in order (a lent one is not here to call: only a ``Run`` calls it).
    func callAll(_ tick: TimerTick) {
        switch storage {
        case .empty, .lent:
            break
        case .first(let handler):
            handler(tick)
        case .list(let list, _), .lentBefore(let list, _):
            for entry in list { entry.handler(tick) }
        }
    }
}
