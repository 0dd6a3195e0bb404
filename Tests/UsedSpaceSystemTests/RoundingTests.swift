import CLinux
import Glibc
import Testing

/// The lean daemon's floor, ceil, round and sqrt (CLinux/Rounding.c) against glibc's libm,
/// bit for bit: signed zeros, halves, the edge of 2^52, infinities, NaN, subnormals, and a
/// million random doubles of every exponent.
@Suite struct RoundingTests {
    enum Function: String, CaseIterable, Sendable {
        case floor, ceil, round, sqrt

        func ours(_ x: Double) -> Double {
            switch self {
            case .floor: clinux_floor(x)
            case .ceil: clinux_ceil(x)
            case .round: clinux_round(x)
            case .sqrt: clinux_sqrt(x)
            }
        }

        func libm(_ x: Double) -> Double {
            switch self {
            case .floor: Glibc.floor(x)
            case .ceil: Glibc.ceil(x)
            case .round: Glibc.round(x)
            case .sqrt: Glibc.sqrt(x)
            }
        }
    }

    static func sameBits(_ a: Double, _ b: Double) -> Bool {
        a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
    }

    static let edges: [Double] = {
        let magnitudes: [Double] = [
            0, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 3.5, 0.49999999999999994, 0.5000000000000001,
            0x1p52 - 0.5, 0x1p52 - 1, 0x1p52, 0x1p52 + 1, 0x1p53, 0x1p63, 0x1p64, 1e300,
            .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, .infinity, .nan,
            99.995, 12_345.5, 4_294_967_295.5,
        ]
        return magnitudes.flatMap { [$0, -$0, $0.nextUp, $0.nextDown] }
    }()

    @Test(arguments: Function.allCases)
    func agreesWithLibmOnTheEdges(_ function: Function) {
        for x in Self.edges {
            #expect(Self.sameBits(function.ours(x), function.libm(x)), "\(function)(\(x)): \(function.ours(x)), libm \(function.libm(x))")
        }
    }

    @Test(arguments: Function.allCases)
    func agreesWithLibmOnRandomDoubles(_ function: Function) {
        var generator = SystemRandomNumberGenerator()
        var disagreements: [Double] = []
        for round in 0..<1_000_000 {
            // Every bit pattern, then values where the fraction matters.
            let x = round.isMultiple(of: 2) ? Double(bitPattern: generator.next())
                : Double.random(in: -1e6...1e6, using: &generator)
            if !Self.sameBits(function.ours(x), function.libm(x)) { disagreements.append(x) }
        }
        #expect(disagreements.isEmpty, "\(function) differs from libm at \(disagreements.prefix(5))")
    }
}
