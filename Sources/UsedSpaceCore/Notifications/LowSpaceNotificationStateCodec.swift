/// The alerts file: per watched path, the low-space notification state (for snoozes that
/// outlive restarts). One JSON object: {"version":1,"alerts":{"/home/u":{…}}}.
public enum LowSpaceNotificationStateCodec {
    public static func encode(_ alerts: [String: LowSpaceNotificationState]) -> String {
        var members: [String] = []
        for (path, alert) in alerts.sorted(by: { $0.key < $1.key }) {
            var json = JSONObjectWriter()
            json.add("active", alert.active)
            json.add("notified_free_numerator", alert.notifiedFreeShare?.numerator)
            json.add("notified_free_denominator", alert.notifiedFreeShare?.denominator)
            json.add("notified_at", Int(alert.notifiedAt))
            json.add("snoozed_until", Int(alert.snoozedUntil))
            members.append(JSONObjectWriter.quoted(path) + ":" + json.finish())
        }
        return "{\"version\":1,\"alerts\":{" + members.joined(separator: ",") + "}}\n"
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func decode(_ text: String) throws(Failure) -> [String: LowSpaceNotificationState] {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw Failure(description: error.description) }
        guard value["version"]?.intValue == 1, case .object(let members)? = value["alerts"] else {
            throw Failure(description: "not a usedspace alerts file (version 1)")
        }
        var alerts: [String: LowSpaceNotificationState] = [:]
        for (path, entry) in members.prefix(1024) {
            var alert = LowSpaceNotificationState()
            alert.active = entry["active"]?.boolValue ?? false
            if let numerator = entry["notified_free_numerator"]?.uint64Value,
               let denominator = entry["notified_free_denominator"]?.uint64Value, denominator > 0 {
                alert.notifiedFreeShare = Fraction(numerator: numerator, denominator: denominator)
            }
            alert.notifiedAt = Int64(entry["notified_at"]?.intValue ?? 0)
            alert.snoozedUntil = Int64(entry["snoozed_until"]?.intValue ?? 0)
            alerts[path] = alert
        }
        return alerts
    }
}
