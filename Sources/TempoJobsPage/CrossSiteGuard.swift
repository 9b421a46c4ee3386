#if Dashboard
import HTTPTypes
import Hummingbird

/// The checks that keep the page's buttons for the page itself: a POST is accepted only when it is same-origin by
/// the browser's own headers and carries the page's token in its form and in its cookie.
enum CrossSiteGuard {
    /// The cookie that holds the page's token (scoped to the page's path).
    static let cookieName = "tempo-jobs-token"

    /// Why `request` must be refused, or `nil` when it comes from the page: `Sec-Fetch-Site`, when present, must be
    /// `same-origin`; `Origin`, when present, must be `http://` or `https://` followed by the request's own host
    /// (its `Host` header); and `formToken` must equal the cookie's token (both present).
    static func refusal(of request: Request, formToken: String?) -> String? {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" {
            return "cross-site request refused (Sec-Fetch-Site: \(site))"
        }
        if let origin = request.headers[.origin] {
            let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!] ?? ""
            guard !host.isEmpty, origin == "http://\(host)" || origin == "https://\(host)" else {
                return "cross-site request refused (Origin: \(origin), host: \(host))"
            }
        }
        guard let cookie = request.cookies[cookieName]?.value, isWellFormed(cookie) else {
            return "request refused: no page token cookie (reload the page)"
        }
        guard let formToken, equalInConstantTime(formToken, cookie) else {
            return "request refused: the form's token does not match (reload the page)"
        }
        return nil
    }

    /// The request's token when it has a well-formed one, else a new one that the response must set.
    static func token(of request: Request) -> (token: String, isNew: Bool) {
        if let cookie = request.cookies[cookieName]?.value, isWellFormed(cookie) { return (cookie, false) }
        return (newToken(), true)
    }

    /// 32 random bytes from the system's generator, as 64 lowercase hexadecimal digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".unicodeScalars)
        var token = ""
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            token.unicodeScalars.append(digits[Int(byte >> 4)])
            token.unicodeScalars.append(digits[Int(byte & 0xF)])
        }
        return token
    }

    /// The cookie that carries `token` for the page at `path`.
    static func cookie(_ token: String, path: String) -> Cookie {
        Cookie(name: cookieName, value: token, path: path.isEmpty ? "/" : path, httpOnly: true, sameSite: .strict)
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Compares every byte, whatever the first difference, so the time taken tells nothing of the token.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
#endif
