import Tempo
import Testing

/// The shared ticker's bookkeeping as a value: subscriber counts, pause, and the ordered timer commands.
@Suite struct SharedTickerStateMachineTests {
    private func drain(_ machine: inout SharedTickerStateMachine) -> [SharedTickerStateMachine.TimerCommand] {
        var all: [SharedTickerStateMachine.TimerCommand] = []
        while let commands = machine.takeTimerCommands() { all += commands }
        return all
    }

    @Test func theFirstSubscriberStartsTheTimerAndTheLastOneCancelsIt() {
        var machine = SharedTickerStateMachine()
        let (a, first) = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }
        #expect(first == .drain)
        #expect(drain(&machine) == [.start])
        let (b, second) = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }
        #expect(second == .none)
        #expect(machine.state == .ticking(live: 2))
        let result1 = machine.unsubscribe(a).action
        #expect(result1 == .none)
        let last = machine.unsubscribe(b)
        #expect(last.handler != nil)
        #expect(last.action == .drain)
        #expect(drain(&machine) == [.cancel])
        #expect(machine.state == .stopped(paused: false))
    }

    @Test func eventsDuringADrainQueueBehindItInOrder() {
        var machine = SharedTickerStateMachine()
        let (a, action) = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }
        #expect(action == .drain)
        // Before the drainer takes the commands, another thread leaves and a third comes.
        let result2 = machine.unsubscribe(a).action
        #expect(result2 == .none)
        let result3 = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }.action
        #expect(result3 == .none)
        let result4 = machine.pause()
        #expect(result4 == .none)
        #expect(drain(&machine) == [.start, .cancel, .start, .pause])
        // The drain ended: the next event drains again.
        let result5 = machine.resume()
        #expect(result5 == .drain)
        #expect(drain(&machine) == [.start])
    }

    @Test func pauseWithoutSubscribersTouchesNoTimerAndHoldsBackTheNextStart() {
        var machine = SharedTickerStateMachine()
        let result6 = machine.pause()
        #expect(result6 == .none)
        #expect(machine.isPaused)
        let result7 = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }.action
        #expect(result7 == .none)
        #expect(machine.state == .paused(live: 1))
        let result8 = machine.resume()
        #expect(result8 == .drain)
        #expect(drain(&machine) == [.start])
        let result9 = machine.pause()
        #expect(result9 == .drain)
        let result10 = machine.pause()
        #expect(result10 == .none)
        #expect(drain(&machine) == [.pause])
    }

    @Test func aTickCountsSlotsAndKeepsTheSubscribersItStartedWith() {
        var machine = SharedTickerStateMachine()
        let (a, _) = machine.subscribe(every: 1, ownerIsAlive: nil) { _ in }
        _ = drain(&machine)
        let tick = machine.tickStarted(missed: 2)
        #expect(tick.slotsBefore == 0)
        #expect(tick.slotsAfter == 3)
        _ = machine.subscribe(every: 2, ownerIsAlive: nil) { _ in }
        _ = machine.unsubscribe(a)
        #expect(tick.subscribers.count == 1)
        #expect(tick.subscribers[0].handler != nil)
        #expect(machine.subscriberCount == 1)
    }

    @Test func aDeadOwnersSubscriptionIsNotCountedButStaysUntilRemoved() {
        var machine = SharedTickerStateMachine()
        let (id, _) = machine.subscribe(every: 1, ownerIsAlive: { false }, handler: { _ in })
        #expect(machine.subscriberCount == 0)
        #expect(!machine.isActive(id))
        #expect(machine.live == 1)
        #expect(machine.unsubscribe(id).handler != nil)
        let result11 = machine.unsubscribe(id).handler
        #expect(result11 == nil)
    }

    #if DEBUG
    @Test func takingCommandsWithoutADrainFailsLoudlyInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            var machine = SharedTickerStateMachine()
            _ = machine.takeTimerCommands()
        }
    }
    #endif
}
