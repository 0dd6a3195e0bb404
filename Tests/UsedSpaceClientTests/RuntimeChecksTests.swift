import Testing
@testable import UsedSpaceClient

/// The sandbox of usedspace.service as `config check` reads it from drop-ins.
@Suite struct RuntimeChecksTests {
    @Test func readWritePathsOfTheServiceSectionWithHomeExpanded() {
        let dropIn = """
            [Unit]
            ReadWritePaths=/not/this
            [Service]
            ReadWritePaths=-/var/lib/prometheus/node-exporter +%h/metrics
            Environment=X=%h
            ReadWritePaths=/srv/a
            """
        #expect(ServiceSandbox.readWritePaths(in: dropIn, home: "/home/u") == ["/var/lib/prometheus/node-exporter", "/home/u/metrics", "/srv/a"])
    }

    @Test func anEmptyAssignmentResetsTheList() {
        #expect(ServiceSandbox.readWritePaths(in: "[Service]\nReadWritePaths=/a\nReadWritePaths=\nReadWritePaths=/b\n", home: nil) == ["/b"])
    }

    @Test func procTakesNoTextfile() {
        #expect(RuntimeChecks.textfileProblem("/proc/x", home: "/root")?.hasPrefix("/proc/x is on proc (/proc)") == true)
    }
}
