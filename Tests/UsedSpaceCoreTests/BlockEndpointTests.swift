import Testing
@testable import UsedSpaceCore

/// How `usedspace click` picks the watch of the clicked block, on made-up process trees.
@Suite struct BlockEndpointTests {
    @Test(arguments: [
        BlockEndpoint(pid: 42, name: nil, output: nil), BlockEndpoint(pid: 42, name: "disk", output: nil),
        BlockEndpoint(pid: 42, name: "disk", output: "HDMI-A-1"), BlockEndpoint(pid: 7, name: nil, output: "eDP-1"),
    ])
    func fileNamesRoundTrip(_ endpoint: BlockEndpoint) {
        #expect(BlockEndpoint(fileName: endpoint.fileName) == endpoint)
    }

    @Test func namesAreMadeSafeAndJunkIsNotAnEndpoint() {
        #expect(BlockEndpoint(pid: 1, name: "../../etc/x y", output: nil).fileName == "1.______etc_x_y.sock")
        for junk in ["", ".sock", "x.sock", "-3.sock", "42", "42.disk"] { #expect(BlockEndpoint(fileName: junk) == nil, "\(junk)") }
    }

    @Test func parentsComeFromProcStatEvenWithParenthesesInTheName() {
        #expect(ProcessStat.parentID("1234 (usedspace) S 77 1234 1234 0 -1 4194560") == 77)
        #expect(ProcessStat.parentID("99 (we (ird) name) R 5 99 99") == 5)
        #expect(ProcessStat.parentID("garbage") == nil)
    }

    /// waybar (100) runs two modules' watches (via sh 101, 103) and the click's shell (110);
    /// another waybar (200) runs a watch named disk too; polybar's script shell is 301.
    static let parents: [Int32: Int32] = [100: 50, 101: 100, 102: 101, 103: 100, 104: 103, 110: 100, 111: 110,
                                          200: 50, 201: 200, 202: 201, 300: 50, 301: 300, 302: 301, 50: 1]
    static func lineage(_ pid: Int32) -> [Int32] {
        var chain = [pid]
        while let parent = parents[chain.last!] { chain.append(parent) }
        return chain
    }
    static let watches = [
        BlockEndpoint(pid: 102, name: "disk", output: nil), BlockEndpoint(pid: 104, name: "data", output: nil),
        BlockEndpoint(pid: 202, name: "disk", output: nil), BlockEndpoint(pid: 302, name: nil, output: nil),
    ]

    @Test func aClickByNameReachesTheWatchOfItsOwnBarOnly() {
        let chosen = BlockEndpoint.selected(Self.watches, pid: nil, name: "disk", output: nil, clicker: Self.lineage(111), lineage: Self.lineage)
        #expect(chosen.map(\.pid) == [102])
        let data = BlockEndpoint.selected(Self.watches, pid: nil, name: "data", output: nil, clicker: Self.lineage(111), lineage: Self.lineage)
        #expect(data.map(\.pid) == [104])
    }

    @Test func aClickByPidReachesTheWatchUnderThatProcess() {
        #expect(BlockEndpoint.selected(Self.watches, pid: 301, name: nil, output: nil, clicker: [999, 1], lineage: Self.lineage).map(\.pid) == [302])
        #expect(BlockEndpoint.selected(Self.watches, pid: 302, name: nil, output: nil, clicker: [999, 1], lineage: Self.lineage).map(\.pid) == [302])
        #expect(BlockEndpoint.selected(Self.watches, pid: 110, name: nil, output: nil, clicker: [999, 1], lineage: Self.lineage).isEmpty)
    }

    @Test func theOutputPicksAmongTheBarsOfOneWaybar() {
        let two = [BlockEndpoint(pid: 102, name: "disk", output: "DP-1"), BlockEndpoint(pid: 104, name: "disk", output: "DP-2")]
        #expect(BlockEndpoint.selected(two, pid: nil, name: "disk", output: "DP-2", clicker: Self.lineage(111), lineage: Self.lineage).map(\.pid) == [104])
        // Without outputs (waybar 0.9): both blocks of that waybar.
        #expect(BlockEndpoint.selected(two, pid: nil, name: "disk", output: nil, clicker: Self.lineage(111), lineage: Self.lineage).count == 2)
    }

    @Test func nothingSharedButInitIsNoMatch() {
        #expect(BlockEndpoint.selected(Self.watches, pid: nil, name: "disk", output: nil, clicker: [900, 1], lineage: Self.lineage).isEmpty)
    }
}
