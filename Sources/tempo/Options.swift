import ArgumentParser
import Tempo

#if canImport(Glibc)
import Glibc
#endif

/// Parses a duration option, turning a bad value into a usage error (exit status 64) that names it.
func parseDuration(_ text: String, option: String) throws -> Duration {
    do {
        return try DurationParser.parse(text)
    } catch {
        throw ValidationError("\(option): \(error.message)")
    }
}

/// Checks a count option: it must be at least 1.
func validateCount(_ count: Int?, option: String) throws {
    if let count, count < 1 {
        throw ValidationError("\(option) must be at least 1, got \(count)")
    }
}

/// The `--late` option: what `tempo every` does with a run that is due while the previous one is still going.
enum LatePolicyOption: String, CaseIterable, ExpressibleByArgument {
    case coalesce, burst, skip

    var policy: LateTickPolicy {
        switch self {
        case .coalesce: .coalesce
        case .burst: .burst
        case .skip: .skip
        }
    }
}

/// Writes text to standard error.
func printError(_ text: String) {
    var stderr = StandardError()
    print(text, to: &stderr)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        _ = string.utf8CString.withUnsafeBufferPointer { buffer in
            Glibc.write(2, buffer.baseAddress, buffer.count - 1)
        }
    }
}

/// A single progress line on standard error, redrawn in place; silent when standard error is not a terminal.
struct ProgressLine {
    let enabled: Bool

    init(enabled: Bool = isatty(2) != 0) {
        self.enabled = enabled
    }

    func show(_ text: String) {
        guard enabled else { return }
        var stderr = StandardError()
        stderr.write("\r\u{1B}[2K" + text)
    }

    func clear() {
        guard enabled else { return }
        var stderr = StandardError()
        stderr.write("\r\u{1B}[2K")
    }
}

/// Flushes standard output, so that text interleaves correctly with child processes and progress lines.
func flushOutput() {
    fflush(nil)
}
