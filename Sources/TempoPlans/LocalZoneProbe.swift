#if canImport(Darwin)
import Darwin
#elseif os(Linux)
import Glibc
#endif

/// A cheap fingerprint of what decides the system's local time zone: the `TZ` and `TZFILE` variables, where the
/// local-zone link (`/etc/localtime`) points, and the identity of the file it resolves to (device, inode, size,
/// modification and status-change times). Any edit that can change the local zone changes the fingerprint:
/// `timedatectl set-timezone` or `ln -sf` re-points the link, a package update replaces the zone file.
///
/// The operating-system part of a plan's time-zone watch, in one file: two `getenv`, one `readlink`, one `stat`.
/// Linux and Darwin both keep the link at `/etc/localtime` (on Darwin it points into `/var/db/timezone/zoneinfo`);
/// only Linux was run. Elsewhere the fingerprint holds the variables only.
enum LocalZoneProbe {
    /// The path of the local-zone link that glibc and Foundation read.
    static let localtimePath = "/etc/localtime"

    /// The fingerprint of the local-zone configuration.
    ///
    /// - Parameters:
    ///   - localtime: The local-zone link (tests pass a link of their own).
    ///   - environment: Reads an environment variable (default `getenv`).
    /// - Returns: A text that changes whenever the local zone may have changed.
    static func fingerprint(
        localtime: String = localtimePath,
        environment: (String) -> String? = variable
    ) -> String {
        let tz = environment("TZ").map { "TZ=\($0)" } ?? "TZ unset"
        let tzFile = environment("TZFILE").map { "TZFILE=\($0)" } ?? "TZFILE unset"
        return "\(tz); \(tzFile); \(link(localtime)); \(fileIdentity(localtime))"
    }

    /// The value of an environment variable, or `nil` when it is unset.
    static func variable(_ name: String) -> String? {
        #if canImport(Darwin) || os(Linux)
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
        #else
        return nil
        #endif
    }

    /// Where `path` points, or a note that it is not a link.
    private static func link(_ path: String) -> String {
        #if canImport(Darwin) || os(Linux)
        var buffer = [CChar](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBufferPointer { bytes -> Int in
            guard let base = bytes.baseAddress else { return -1 }
            return readlink(path, base, bytes.count - 1)
        }
        guard count >= 0 else { return "no link (errno \(errno))" }
        let bytes = buffer.prefix(count).map { UInt8(bitPattern: $0) }
        return "link=\(String(decoding: bytes, as: UTF8.self))"
        #else
        return "no link"
        #endif
    }

    /// The identity of the file `path` resolves to.
    private static func fileIdentity(_ path: String) -> String {
        #if canImport(Darwin) || os(Linux)
        var info = stat()
        guard stat(path, &info) == 0 else { return "no file (errno \(errno))" }
        #if canImport(Darwin)
        let modified = (info.st_mtimespec.tv_sec, info.st_mtimespec.tv_nsec)
        let changed = (info.st_ctimespec.tv_sec, info.st_ctimespec.tv_nsec)
        #else
        let modified = (info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
        let changed = (info.st_ctim.tv_sec, info.st_ctim.tv_nsec)
        #endif
        return "file=\(info.st_dev):\(info.st_ino) size=\(info.st_size) "
            + "mtime=\(modified.0).\(modified.1) ctime=\(changed.0).\(changed.1)"
        #else
        return "no file"
        #endif
    }
}
