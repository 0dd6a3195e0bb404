import UsedSpaceCore

/// The one-line STATUS= shown by `systemctl --user status usedspace`, e.g.
/// "35.2% used of /home (seq 42)".
enum StatusText {
    static func describe(_ snapshots: [Snapshot?]) -> String {
        let parts = snapshots.map { snapshot -> String in
            guard let snapshot else { return "sampling…" }
            let place = ControlCharacters.replaced(in: snapshot.mountPoint ?? snapshot.path)
            switch snapshot.state {
            case .failed:
                return "failed: \(ControlCharacters.replaced(in: snapshot.error ?? "unknown error")) (seq \(snapshot.seq))"
            case .fresh, .stale:
                let percent = snapshot.usedFraction.map { PercentText.oneDecimal($0, padded: false) + "%" } ?? "?"
                let stale = snapshot.state == .stale ? ", stale" : ""
                return "\(percent) used of \(place) (seq \(snapshot.seq)\(stale))"
            }
        }
        return parts.joined(separator: "; ")
    }
}
